"""The walk use case: plan the checkouts of a series (or resume one) and measure them.

The run opens its hosts (:mod:`perfwalk.services.hosts`), holds a lease on them
in the store while it walks, and closes every connection at the end, whatever
happened. Before it measures, it stops what walks killed on this machine left
running (:func:`perfwalk.orchestrate.walker.sweep_gone`), and it records itself as
the walker of its series, so that ``status`` tells a walk that runs from one that
is gone.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from perfwalk.config.model import Config, QuirkConfig
from perfwalk.config.secrets import config_secrets, hide_url_passwords, mask_config_text
from perfwalk.errors import ConfigError, GitError, UsageError
from perfwalk.git.checkouts import checkouts as select_checkouts
from perfwalk.git.repo import Repo
from perfwalk.git.walk_steps import looks_like_date, parse_date, parse_step
from perfwalk.git.worktree import Worktrees
from perfwalk.hosts.fingerprint import fingerprint
from perfwalk.limits import MAX_COUNT
from perfwalk.model import Status
from perfwalk.orchestrate.phases import check_placeholders
from perfwalk.orchestrate.quirks import PlannedQuirk, QuirkPoint, applying, plan_quirks
from perfwalk.orchestrate.topology import Topology
from perfwalk.orchestrate.walk import PlannedCheckout, Progress, Walk
from perfwalk.orchestrate.walker import interrupted_on_error, sweep_gone, take_series, this_walker
from perfwalk.secret_text import mask_text
from perfwalk.services.hosts import opened_topology, ready_hosts
from perfwalk.store import Store
from perfwalk.store.records import NewSeries, QuirkInfo, SeriesKind, SeriesRow


@dataclass(frozen=True)
class RunOptions:
    """What the command line asks; ``None`` takes the config's [run] value."""

    from_: str | None = None
    to: str | None = None
    step: str | None = None
    repetitions: int | None = None
    between: str | None = None
    resume: bool = False
    parent: int | None = None
    name: str | None = None


@dataclass(frozen=True)
class RunResult:
    series_id: int
    checkouts: int
    repetitions: int
    worst: Status
    resumed: bool
    parent: int | None = None  # the series it zooms into


def run_series(
    config: Config,
    options: RunOptions,
    progress: Callable[[Progress], None] = lambda _p: None,
    *,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    say: Callable[[str], None] = lambda _s: None,
) -> RunResult:
    """Walk (or resume) a series and return what it measured; ``say`` hears what the
    walk did besides measuring (processes of killed walks it stopped first).

    Every repetition is committed to the store when it finishes; a KeyboardInterrupt
    (Ctrl-C, SIGTERM, SIGHUP) marks the series ``interrupted`` (``perfwalk run
    --resume`` continues it).
    """
    store = Store.open(config.store.url)
    store.mask_logs(config_secrets(config))
    try:
        with opened_topology(config) as topology:
            walk_plan = _plan_run(store, config, options, topology)
            purpose = f"a walk of {config.project.name} ({config.path})"
            with ready_hosts(store, config, topology, purpose, clock) as check:

                def report(step: Progress) -> None:
                    check()
                    progress(step)

                return _walk(
                    store,
                    config,
                    options=options,
                    walk_plan=walk_plan,
                    progress=report,
                    clock=clock,
                    say=say,
                )
    finally:
        store.close()


@dataclass(frozen=True)
class _Plan:
    """What a run will walk: its checkouts and quirks, where, how often, between what."""

    repo: Repo
    topology: Topology
    checkouts: list[PlannedCheckout]
    quirks: tuple[PlannedQuirk, ...]
    spec: tuple[str, str, str]  # from, to, step
    repetitions: int
    between: str
    resumed: SeriesRow | None
    parent: int | None  # the series this walk zooms into


def _plan_run(store: Store, config: Config, options: RunOptions, topology: Topology) -> _Plan:
    repo = Repo(config.project.repo)
    resumed = None
    if options.resume:
        resumed = store.find_unfinished(config.hash)
        if resumed is None:
            raise UsageError(
                "nothing to resume: no unfinished series was made with this configuration",
                hint="start a new walk with `perfwalk run` (a changed config starts anew)",
            )
        spec = (resumed.from_spec, resumed.to_spec, resumed.step)
        repetitions, between = resumed.repetitions, resumed.between
    else:
        step = options.step or config.run.step
        parse_step(step)  # a bad step is a usage error before anything is stored
        to = options.to or config.run.to
        tip = to if looks_like_date(to) else walk_tip(repo, config, to, options)
        spec = (options.from_ if options.from_ is not None else config.run.from_, tip, step)
        repetitions = config.run.repetitions if options.repetitions is None else options.repetitions
        between = options.between or config.run.between
    if not 1 <= repetitions <= MAX_COUNT:  # a series stored before the bound had none
        where = f"series {resumed.id} asks for" if resumed is not None else "--repetitions:"
        raise UsageError(
            f"{where} {repetitions} repetitions per checkout: 1 to {MAX_COUNT} are allowed",
            hint="start a new walk with fewer repetitions (run.repetitions or -n)",
        )
    if between == "reboot" and not any(not m.local and m.reboot for m in topology):
        raise ConfigError(
            "between = reboot would reboot this machine",
            key="run.between",
            hint="reboot needs ssh hosts (with a reboot command); use keep, rebuild or a "
            "command with the local host",
        )
    check_placeholders(config.tests, config.install, topology)
    # a commit-ish end is the tip of the walked line, so a resume walks the same commits
    branch = config.project.branch if looks_like_date(spec[1]) else spec[1]
    history = repo.first_parent(branch)
    planned, quirks = plan(
        repo, config, history, from_spec=spec[0], to_spec=spec[1], step=spec[2], branch=branch
    )
    parent = options.parent
    if parent is None and resumed is None:
        parent = zoom_parent(store, config, history, planned)
    return _Plan(repo, topology, planned, quirks, spec, repetitions, between, resumed, parent)


def walk_tip(repo: Repo, config: Config, to: str, options: RunOptions) -> str:
    """The last commit of a walk that ends at the commit-ish ``to``.

    ``HEAD`` (the default of ``[run] to``) is the tip of ``[project] branch``; any
    other commit-ish must be on that branch's first-parent line, or the walk would
    measure another line than the configured one: a ConfigError naming ``run.to``
    (a UsageError naming ``--to`` when the command line gave it). With the default
    branch, ``HEAD``, any commit-ish ends a walk along its own first-parent line.
    """
    branch = config.project.branch
    if branch == "HEAD":
        return repo.resolve(to)
    if to == "HEAD":
        return repo.resolve(branch)
    history = repo.first_parent(branch)
    try:
        repo.resolve_point(to, history, branch=branch)
    except GitError as error:
        hint = f"{error.hint}; or set [project] branch to the line you mean to walk"
        if options.to is not None:
            raise UsageError(f"--to: {error.message}", hint=hint) from error
        raise ConfigError(error.message, path=str(config.path), key="run.to", hint=hint) from error
    return repo.resolve(to)


def zoom_parent(
    store: Store,
    config: Config,
    history: Sequence[tuple[str, datetime]],
    planned: Sequence[PlannedCheckout],
) -> int | None:
    """The newest walk of the project that this walk zooms into: the one with two
    neighbouring checkouts between which (both included) every planned checkout lies,
    with more checkouts there than the two. None when there is none."""
    where = {commit: pos for pos, (commit, _) in enumerate(history)}
    first, last = planned[0].position, planned[-1].position
    for series in reversed(store.list_series()):
        if series.kind != "walk" or series.project != config.project.name:
            continue
        positions = sorted(where[c.sha] for c in store.checkouts(series.id) if c.sha in where)
        for before, after in itertools.pairwise(positions):
            inside = sum(1 for p in planned if before <= p.position <= after)
            if before <= first and last <= after and inside > 2:
                return series.id
    return None


def _walk(
    store: Store,
    config: Config,
    *,
    options: RunOptions,
    walk_plan: _Plan,
    progress: Callable[[Progress], None],
    clock: Callable[[], datetime],
    say: Callable[[str], None],
) -> RunResult:
    topology, spec = walk_plan.topology, walk_plan.spec
    host = topology.member("").host
    walker = this_walker(f"a walk of {config.project.name} ({config.path})")
    for swept in sweep_gone(store):
        say(swept.describe())
    if walk_plan.resumed is not None:
        series_id = walk_plan.resumed.id
        take_series(store, series_id, walker, clock())
        store.set_series_state(series_id, "running")
        if walk_plan.resumed.planned_checkouts is None:
            store.set_planned_checkouts(series_id, len(walk_plan.checkouts))
    else:
        series_id = store.create_series(
            describe_series(
                config,
                topology,
                name=options.name or f"{config.project.name} {spec[2]}",
                spec=spec,
                repetitions=walk_plan.repetitions,
                between=walk_plan.between,
                quirks=walk_plan.quirks,
                parent=walk_plan.parent,
                started_at=clock(),
                planned_checkouts=len(walk_plan.checkouts),
            )
        )
        take_series(store, series_id, walker, clock())
    worktrees = Worktrees.for_series(
        walk_plan.repo, config.store.worktrees, store.store_id(), series_id
    )
    walk = Walk(
        series_id=series_id,
        config=config,
        store=store,
        host=host,
        worktrees=worktrees,
        checkouts=walk_plan.checkouts,
        quirks=walk_plan.quirks,
        repetitions=walk_plan.repetitions,
        between=walk_plan.between,
        progress=progress,
        topology=topology,
        marker=walker.token,
    )
    purpose = f"series {series_id} of {store.url}, a walk of {config.project.name} ({config.path})"
    with interrupted_on_error(store, series_id, walker.token), worktrees.held(purpose):
        walk.run()
        worktrees.remove()
    store.set_series_state(series_id, "finished", clock())
    return RunResult(
        series_id=series_id,
        checkouts=len(walk_plan.checkouts),
        repetitions=walk_plan.repetitions,
        worst=_worst(store, series_id),
        resumed=walk_plan.resumed is not None,
        parent=walk_plan.parent if walk_plan.resumed is None else walk_plan.resumed.parent_id,
    )


def describe_series(
    config: Config,
    topology: Topology,
    *,
    name: str,
    spec: tuple[str, str, str],
    repetitions: int,
    between: str,
    quirks: Sequence[PlannedQuirk],
    started_at: datetime,
    parent: int | None = None,
    kind: SeriesKind = "walk",
    planned_checkouts: int | None = None,
) -> NewSeries:
    """A new series of ``config`` walked on ``topology``, with its provenance."""
    return NewSeries(
        name=name,
        project=config.project.name,
        repo=str(config.project.repo),
        from_spec=spec[0],
        to_spec=spec[1],
        step=spec[2],
        repetitions=repetitions,
        between=between,
        host=topology.member("").host.name,
        config_hash=config.hash,
        config_text=mask_config_text(config.text),
        commands=_commands(config, between),
        fingerprint=_fingerprints(topology, list(config.run.tools)),
        parent_id=parent,
        kind=kind,
        quirks=tuple(QuirkInfo(q.letter, q.at.date, q.at.commit, q.comment) for q in quirks),
        started_at=started_at,
        planned_checkouts=planned_checkouts,
    )


def plan(
    repo: Repo,
    config: Config,
    history: Sequence[tuple[str, datetime]],
    *,
    from_spec: str,
    to_spec: str,
    step: str,
    branch: str,
) -> tuple[list[PlannedCheckout], tuple[PlannedQuirk, ...]]:
    """The checkouts of a walk, each with the letters of the quirks that apply."""
    where = {commit: pos for pos, (commit, _) in enumerate(history)}
    quirks = history_quirks(repo, config, history)
    chosen = select_checkouts(repo, from_spec or None, to_spec, step, branch=branch)
    planned: list[PlannedCheckout] = []
    previous: int | None = None
    for checkout in chosen:
        pos = where[checkout.commit]
        patches, crossed = applying(quirks, previous, pos)
        letters = tuple(sorted({q.letter for q in [*patches, *crossed]}, key=_letter_order(quirks)))
        planned.append(PlannedCheckout(dataclasses.replace(checkout, quirks=letters), pos))
        previous = pos
    return planned, quirks


def history_quirks(
    repo: Repo, config: Config, history: Sequence[tuple[str, datetime]]
) -> tuple[PlannedQuirk, ...]:
    """The quirks of ``config`` placed on ``history`` (a first-parent line), lettered."""
    ids = [commit for commit, _ in history]
    dates = [date for _, date in history]
    where = {commit: pos for pos, commit in enumerate(ids)}
    return plan_quirks(
        [_quirk_point(repo, where, i, q) for i, q in enumerate(config.quirks)], ids, dates
    )


def _letter_order(quirks: Sequence[PlannedQuirk]) -> Callable[[str], int]:
    order = {q.letter: n for n, q in enumerate(quirks)}
    return lambda letter: order[letter]


def _quirk_point(
    repo: Repo, where: dict[str, int], index: int, quirk: QuirkConfig
) -> tuple[int, QuirkPoint, QuirkPoint | None, str, tuple[str, ...], Path | None]:
    at = _point(repo, where, quirk.at, f"quirk[{index}].at")
    until = _point(repo, where, quirk.until, f"quirk[{index}].until") if quirk.until else None
    return (index, at, until, quirk.comment, tuple(quirk.commands), quirk.patch)


def _point(repo: Repo, where: dict[str, int], text: str, key: str) -> QuirkPoint:
    if looks_like_date(text):
        return QuirkPoint(parse_date(text))
    try:
        commit = repo.commit(repo.resolve(text))
    except GitError as error:
        raise ConfigError(
            str(error), key=key, hint="give a date or a commit of the walked line"
        ) from error
    if commit.id not in where:
        raise ConfigError(
            f"commit {text} is not on the first-parent line of the walked branch",
            key=key,
            hint="name a commit of the branch itself (not of a merged side branch) or a date",
        )
    return QuirkPoint(commit.date, commit.id)


def _commands(config: Config, between: str) -> dict[str, object]:
    """The commands of a walk as its setup page shows them (secrets masked)."""
    secrets = config_secrets(config)

    def shown(command: str) -> str:
        return hide_url_passwords(mask_text(command, secrets))

    return {
        "build": [shown(step) for step in config.build.steps],
        "between": shown(between),
        "tests": {t.name: {"command": shown(t.command), "parser": t.parser} for t in config.tests},
        "quirks": {str(i): [shown(c) for c in q.commands] for i, q in enumerate(config.quirks)},
    }


def _fingerprints(topology: Topology, tools: list[str]) -> dict[str, str]:
    """The [run] host's fingerprint, and every other host's as ``<name>.<key>``."""
    default = topology.member("")
    found = fingerprint(default.host, tools)
    for member in topology:
        if member.name != default.name:
            other = fingerprint(member.host, tools)
            found.update({f"{member.name}.{key}": value for key, value in other.items()})
    return found


def _worst(store: Store, series_id: int) -> Status:
    checkouts = store.checkouts(series_id)
    statuses = [row.build_status for row in checkouts if row.build_status]
    statuses += [row.status for row in store.results(series_id)]
    for checkout in checkouts:  # what happened between repetitions (a reboot that failed)
        statuses += [r.between_status for r in store.repetitions(checkout.id) if r.between_status]
    return Status.worst([Status(s) for s in statuses])
