"""The plan of a walk, made before anything is measured: which checkouts, the quirks
they cross, how many repetitions and what between them, on which hosts, and the series
it starts, continues (``--resume``, or ``--walk`` for a named walk) or zooms into.

:func:`plan_walk` checks what can be checked before a lease is taken or a series
stored (the step, the ends, the repetitions, the placeholders of the tests), and
returns a :class:`WalkPlan`; the walk (:class:`perfwalk.orchestrate.walk.walk.Walk`) is
handed it and measures it.
"""

from __future__ import annotations

import dataclasses
import itertools
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from perfwalk.config.model import Config, QuirkConfig, VariantConfig, WalkConfig
from perfwalk.errors import ConfigError, GitError, UsageError
from perfwalk.git.checkouts import checkouts as select_checkouts
from perfwalk.git.history import Timeline
from perfwalk.git.repo import Repo
from perfwalk.git.walk_steps import ADAPTIVE, looks_like_date, parse_date, parse_step, planning_step
from perfwalk.limits import MAX_COUNT
from perfwalk.model import Checkout
from perfwalk.orchestrate.checkout.quirks import (
    PlannedQuirk,
    QuirkPoint,
    applying,
    base_position,
    plan_quirks,
)
from perfwalk.orchestrate.checkout.variants import check_modifiers, chosen_variants
from perfwalk.orchestrate.hosts.topology import Member, Topology
from perfwalk.orchestrate.phases.phases import TEST_PLACEHOLDERS, check_placeholders
from perfwalk.orchestrate.steps.placeholders import substitute
from perfwalk.store import Store
from perfwalk.store.records import CheckoutRow, ExtensionInfo, Measuring, SeriesRow


@dataclass(frozen=True)
class RunOptions:
    """What the command line asks of a walk; ``None`` takes the config's [run] value."""

    from_: str | None = None
    to: str | None = None
    step: str | None = None
    repetitions: int | None = None
    between: str | None = None
    resume: bool = False
    parent: int | None = None
    name: str | None = None
    walk: str | None = None  # a named walk ([[walk]]) to continue
    variants: tuple[str, ...] = ()  # the [[variant]]s measured besides the plain checkout
    #: with ``resume``: this series, not the newest unfinished one (a job run again)
    resume_series: int | None = None
    #: a stored walk's series to extend at its checkouts: up to ``repetitions`` each, or
    #: ``variants`` measured beside as many new repetitions of the plain checkout
    extend: int | None = None
    budget: int | None = None  # an adaptive walk of at most this many checkouts


@dataclass(frozen=True)
class PlannedCheckout:
    """A checkout with its first-parent position, as the walk needs it.

    ``since`` is set on the first checkout of a walk with ``[run] quirks_since``:
    the position the walk comes from, so that the quirks after it are crossed
    before the first build (None: the machine is taken as it is).
    """

    checkout: Checkout
    position: int
    since: int | None = None


@dataclass(frozen=True)
class NamedWalk:
    """A named walk (``[[walk]]``) being continued: its name, the branch it follows
    and the last checkout it had measured before (None: it never ran)."""

    name: str
    branch: str
    last: CheckoutRow | None


#: A checkout of one variant: the variant's name (``base``: the plain checkout), the
#: checkout's index.
Unit = tuple[str, int]


@dataclass(frozen=True)
class Extending:
    """What the extension of a stored series measures (``perfwalk run --extend``): per
    checkout of each variant it measures, the repetition numbers it is to have
    (``spans``: after those stored before it, up to its new count); ``left`` per
    checkout index, how many of them are not stored yet (its variants' included).

    ``stored`` is the unfinished extension it continues (None: a new one, started when
    the walk begins); ``last_repetition`` the id of the last repetition stored before
    it; ``repetitions_before`` what a checkout had planned before; ``added`` the
    variants it adds and ``variant_repetitions`` each one's count (None: it adds no
    variant, only repetitions)."""

    stored: ExtensionInfo | None
    last_repetition: int
    repetitions_before: int
    spans: Mapping[Unit, range]
    left: Mapping[int, int]
    added: tuple[str, ...] = ()
    variant_repetitions: int | None = None


@dataclass(frozen=True)
class WalkPlan:
    """What a walk will measure: its checkouts and the quirks they cross, how often,
    between what, on which hosts, and which series it is.

    ``resumed`` is the series a ``--resume`` or a named walk continues (None: a new
    series named ``name``); ``parent`` the series this walk zooms into; ``named`` the
    named walk it continues (None: a walk with no name).
    """

    repo: Repo
    checkouts: tuple[PlannedCheckout, ...]
    quirks: tuple[PlannedQuirk, ...]
    spec: tuple[str, str, str]  # from, to, step
    repetitions: int
    between: str
    hosts: tuple[str, ...]
    name: str
    resumed: SeriesRow | None
    parent: int | None
    measuring: Measuring = field(default_factory=Measuring)  # the order, how many
    named: NamedWalk | None = None
    #: the variants measured besides the plain checkout, each in a series of its own
    variants: tuple[VariantConfig, ...] = ()
    #: an extension of the stored series ``resumed`` at its checkouts (None: a walk)
    extension: Extending | None = None
    #: an adaptive walk's most checkouts (its ``checkouts``: every commit of its line)
    budget: int | None = None

    @property
    def new_checkouts(self) -> int:
        """How many checkouts of a named walk's plan its series does not have yet."""
        return len(self._new())

    @property
    def first_new(self) -> int | None:
        """The index of the first checkout of :attr:`new_checkouts` (None: none)."""
        return min(self._new(), default=None)

    def _new(self) -> list[int]:
        if self.extension is not None:  # its checkouts are all stored
            return []
        last = self.named.last if self.named is not None else None
        every = [planned.checkout.index for planned in self.checkouts]
        return every if last is None else [index for index in every if index > last.idx]

    @property
    def nothing_new(self) -> bool:
        """A named walk whose series is finished and whose branch has nothing new."""
        return (
            self.named is not None
            and self.resumed is not None
            and self.resumed.state == "finished"
            and self.new_checkouts == 0
        )


def plan_walk(store: Store, config: Config, topology: Topology, options: RunOptions) -> WalkPlan:
    """The plan of a walk of ``config`` on ``topology`` (or of the walk it resumes)."""
    if options.walk is not None:
        return plan_named_walk(store, config, topology, options)
    repo = Repo(config.project.repo)
    resumed = None
    some = config.only is not None  # --tests
    for flag, given in (("--variants", options.variants), ("--tests", some)):
        if options.resume and given:
            what = flag.removeprefix("--")
            raise UsageError(
                f"{flag} cannot be given with --resume",
                hint=f"a resumed walk measures the {what} it started with; leave out {flag}",
            )
    if options.resume:
        resumed = (
            store.find_unfinished(config.hash)
            if options.resume_series is None
            else store.series(options.resume_series)
        )
        if resumed is None:
            raise UsageError(
                "nothing to resume: no unfinished series was made with this configuration",
                hint="start a new walk with `perfwalk run` (a changed config starts anew)",
            )
        if resumed.walk is not None:  # a named walk resumes as it continues
            again = dataclasses.replace(options, resume=False, walk=resumed.walk)
            return plan_named_walk(store, config, topology, again)
        spec = (resumed.from_spec, resumed.to_spec, resumed.step)
        budget = resumed.planned_checkouts if resumed.step == ADAPTIVE else None
        repetitions, between = resumed.repetitions, resumed.between
        measuring = resumed.measuring or Measuring()  # a resume keeps its rounds' order
        variants = stored_variants(store, config, resumed)
    else:
        budget = options.budget
        step = ADAPTIVE if budget is not None else options.step or config.run.step
        parse_step(planning_step(step))  # a bad step: before anything is stored
        to = options.to or config.run.to
        tip = to if looks_like_date(to) else walk_tip(repo, config, to, options)
        spec = (options.from_ if options.from_ is not None else config.run.from_, tip, step)
        repetitions = config.run.repetitions if options.repetitions is None else options.repetitions
        between = options.between or config.run.between
        variants = chosen_variants(config, options.variants)
        measuring = new_measuring(config, repetitions, variants=bool(variants))
    check_walk(config, topology, repetitions, between, resumed)
    check_modifiers(config.variants, topology)
    # a commit-ish end is the tip of the walked line, so a resume walks the same commits
    branch = config.project.branch if looks_like_date(spec[1]) else spec[1]
    history = repo.first_parent(branch)
    step = planning_step(spec[2])
    planned, quirks = plan_checkouts(
        repo, config, history, from_spec=spec[0], to_spec=spec[1], step=step, branch=branch
    )
    if resumed is not None:
        parent = resumed.parent_id
    elif options.parent is not None:
        parent = options.parent
    else:
        parent = zoom_parent(store, config, history, planned)
    return WalkPlan(
        repo=repo,
        checkouts=tuple(planned),
        quirks=quirks,
        spec=spec,
        repetitions=repetitions,
        between=between,
        hosts=tuple(member.name for member in topology),
        name=options.name or f"{config.project.name} {spec[2]}",
        resumed=resumed,
        parent=parent,
        measuring=measuring,
        variants=variants,
        budget=budget,
    )


def stored_variants(store: Store, config: Config, series: SeriesRow) -> tuple[VariantConfig, ...]:
    """The variants a stored walk measures (its variant series), as ``config`` says
    what they are."""
    names = tuple(row.variant_name for row in store.variant_series(series.id))
    return chosen_variants(config, names, f"the variants of series {series.id}")


def check_walk(
    config: Config,
    topology: Topology,
    repetitions: int,
    between: str,
    resumed: SeriesRow | None,
) -> None:
    """What can be checked of a walk before anything is stored: its repetitions, the
    action between them, the placeholders of its commands and the CPUs it pins."""
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
    _check_quirk_placeholders(config, topology)
    check_pinning(config, topology)


def named_walk(config: Config, name: str) -> tuple[int, WalkConfig]:
    """The ``[[walk]]`` called ``name`` and its index; a UsageError naming the walks
    there are when none is."""
    for index, found in enumerate(config.walks):
        if found.name == name:
            return index, found
    known = ", ".join(w.name for w in config.walks)
    raise UsageError(
        f"--walk {name}: no walk of that name in {config.path}"
        + (f" (its walks: {known})" if known else " (it has no [[walk]])"),
        hint=f'add [[walk]] name = "{name}" (with its from, step…) to {config.path}'
        if not known
        else f"name one of its walks: {known}",
    )


def walk_config(config: Config, name: str) -> Config:
    """``config`` as the named walk ``name`` runs it: on its host (``[[walk]] host``,
    what its tests without a role run on and lease) and along its branch (what its
    drills search)."""
    _index, walk = named_walk(config, name)
    run, project = config.run, config.project
    if walk.host is not None:
        run = dataclasses.replace(run, host=walk.host)
    if walk.branch is not None:
        project = dataclasses.replace(project, branch=walk.branch)
    return dataclasses.replace(config, run=run, project=project)


def plan_named_walk(
    store: Store, config: Config, topology: Topology, options: RunOptions
) -> WalkPlan:
    """The plan that continues the named walk ``options.walk``: from the last checkout
    its series has (measured again only as far as it is not yet) to the newest commit
    of its branch, at its step, indexes continuing; from its ``from`` when it never ran.
    """
    assert options.walk is not None
    index, walk = named_walk(config, options.walk)
    given = [f"--{flag}" for flag, value in _ends(options) if value is not None]
    given += ["--variants"] if options.variants else []
    given += ["--tests"] if config.only is not None else []
    if given or options.resume or options.name is not None:
        flags = ", ".join(given or (["--resume"] if options.resume else ["--name"]))
        raise UsageError(
            f"--walk {walk.name} takes its from, to, step and series from [[walk]] "
            f"{walk.name}: {flags} cannot be given with it",
            hint=f"change walk[{index}] in {config.path}, or walk without --walk",
        )
    key = f"walk[{index}]"
    repo = Repo(config.project.repo)
    branch = walk.branch or config.project.branch
    step = walk.step or config.run.step
    to = walk.to or config.run.to
    tip = to if looks_like_date(to) else walk_tip(repo, config, to, branch=branch, key=f"{key}.to")
    line = branch if looks_like_date(tip) else tip
    history = repo.first_parent(line)
    series = store.find_walk(config.project.name, walk.name)
    stored = store.checkouts(series.id) if series is not None else []
    last = stored[-1] if stored else None
    first_index = 0
    if series is None or last is None:
        from_ = walk.from_ if walk.from_ is not None else config.run.from_
    else:
        where = {commit: pos for pos, (commit, _) in enumerate(history)}
        if last.sha not in where:
            raise UsageError(
                f"walk {walk.name}: the last checkout of its series {series.id}, "
                f"{last.sha[:12]}, is not on the first-parent line of {branch} any more",
                hint=f"the branch was rewritten; give the walk another name in {config.path} "
                "to start a new series",
            )
        from_, first_index = last.sha, last.idx
        end = repo.resolve_point(tip, history, branch=line)
        end_at = end if isinstance(end, int) else Timeline(history).head_at(end)
        if end_at <= where[last.sha]:  # nothing after its last checkout
            tip = last.sha
    planned, quirks = plan_checkouts(
        repo, config, history, from_spec=from_, to_spec=tip, step=step, branch=line
    )
    if first_index:
        planned = [_shifted(p, first_index) for p in planned]
    variants = chosen_variants(config, walk.variants)
    if series is not None:
        repetitions, between = series.repetitions, series.between
        measuring = series.measuring or Measuring()
    else:
        repetitions = walk.repetitions or config.run.repetitions
        between = config.run.between
        measuring = new_measuring(config, repetitions, variants=bool(variants))
    if options.repetitions is not None:
        repetitions = options.repetitions
    between = options.between or between
    check_walk(config, topology, repetitions, between, series)
    check_modifiers(config.variants, topology)
    return WalkPlan(
        repo=repo,
        checkouts=tuple(planned),
        quirks=quirks,
        spec=(from_ if series is None else series.from_spec, tip, step),
        repetitions=repetitions,
        between=between,
        hosts=tuple(member.name for member in topology),
        name=series.name if series is not None else f"{config.project.name} {walk.name}",
        resumed=series,
        parent=series.parent_id if series is not None else None,
        measuring=measuring,
        named=NamedWalk(walk.name, branch, last),
        variants=variants,
    )


def _ends(options: RunOptions) -> tuple[tuple[str, str | None], ...]:
    return (("from", options.from_), ("to", options.to), ("step", options.step))


def _shifted(planned: PlannedCheckout, by: int) -> PlannedCheckout:
    """``planned`` with its index moved on by ``by`` (a named walk's checkouts follow
    those of its series)."""
    moved = dataclasses.replace(planned.checkout, index=planned.checkout.index + by)
    return dataclasses.replace(planned, checkout=moved)


def new_measuring(config: Config, repetitions: int, *, variants: bool = False) -> Measuring:
    """How a new walk orders and counts its repetitions: ``[run] order`` (rounds, and
    walks with variants, get a new seed, stored with the series: the order of their
    shuffles) and adaptive repetitions from ``repetitions`` up to ``[run]
    repetitions_max``."""
    run = config.run
    most = run.repetitions_max or None
    if most is not None and repetitions > most:
        raise UsageError(
            f"--repetitions {repetitions} is above run.repetitions_max = {most}, the most a "
            "checkout gets",
            hint=f"give at most {most} repetitions, or raise repetitions_max in {config.path}",
        )
    return Measuring(
        order=run.order,
        seed=secrets.randbits(62) if run.order == "rounds" or variants else None,
        repetitions_max=most,
        rse_target=run.rse_target if most is not None else None,
    )


def check_pinning(config: Config, topology: Topology) -> None:
    """A test pinned to CPUs (``cpus``) runs through ``taskset``: a ConfigError naming
    the key when its host has none, before anything is stored."""
    asked: dict[str, tuple[Member, str]] = {}  # host name -> it, the key that asks
    for index, test in enumerate(config.tests):
        if test.pinned(config.run):
            key = f"test[{index}].cpus" if test.cpus else "run.cpus"
            member = topology.member(test.role)
            asked.setdefault(member.name, (member, key))
    for name, (member, key) in asked.items():
        found = member.host.run(["sh", "-c", "command -v taskset"], timeout=30)
        if found.returncode != 0:
            raise ConfigError(
                f"the tests pinned to CPUs need taskset, which host {name} does not have",
                path=str(config.path),
                key=key,
                hint=f"install util-linux on {name} (it has taskset), or remove {key}",
            )


def walk_tip(
    repo: Repo,
    config: Config,
    to: str,
    options: RunOptions | None = None,
    *,
    branch: str | None = None,
    key: str = "run.to",
) -> str:
    """The last commit of a walk that ends at the commit-ish ``to``.

    ``HEAD`` (the default of ``[run] to``) is the tip of ``branch`` (``[project]
    branch`` unless given); any other commit-ish must be on that branch's
    first-parent line, or the walk would measure another line than the configured
    one: a ConfigError naming ``key`` (a UsageError naming ``--to`` when the command
    line gave it). With the default branch, ``HEAD``, any commit-ish ends a walk
    along its own first-parent line.
    """
    branch = branch or config.project.branch
    if branch == "HEAD":
        return repo.resolve(to)
    if to == "HEAD":
        return repo.resolve(branch)
    history = repo.first_parent(branch)
    try:
        repo.resolve_point(to, history, branch=branch)
    except GitError as error:
        hint = f"{error.hint}; or set [project] branch to the line you mean to walk"
        if options is not None and options.to is not None:
            raise UsageError(f"--to: {error.message}", hint=hint) from error
        raise ConfigError(error.message, path=str(config.path), key=key, hint=hint) from error
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


def plan_checkouts(
    repo: Repo,
    config: Config,
    history: Sequence[tuple[str, datetime]],
    *,
    from_spec: str,
    to_spec: str,
    step: str,
    branch: str,
) -> tuple[list[PlannedCheckout], tuple[PlannedQuirk, ...]]:
    """The checkouts of a walk, each with the letters of the quirks that hold there or
    that the walk crosses on its way to it (from ``[run] quirks_since`` for the first)."""
    where = {commit: pos for pos, (commit, _) in enumerate(history)}
    quirks = history_quirks(repo, config, history)
    chosen = select_checkouts(repo, from_spec or None, to_spec, step, branch=branch)
    planned: list[PlannedCheckout] = []
    since = quirks_base(repo, config, history)
    previous = since
    for checkout in chosen:
        pos = where[checkout.commit]
        holding, crossed = applying(quirks, previous, pos)
        letters = tuple(sorted({q.letter for q in [*holding, *crossed]}, key=_letter_order(quirks)))
        first = since if not planned else None
        planned.append(PlannedCheckout(dataclasses.replace(checkout, quirks=letters), pos, first))
        previous = pos
    return planned, quirks


def quirks_base(repo: Repo, config: Config, history: Sequence[tuple[str, datetime]]) -> int | None:
    """The position a walk comes from before its first checkout: ``[run]
    quirks_since`` placed on ``history`` (None when it is not set)."""
    if not config.run.quirks_since:
        return None
    ids = [commit for commit, _ in history]
    where = {commit: pos for pos, commit in enumerate(ids)}
    point = _point(repo, where, config.run.quirks_since, "run.quirks_since", config.path)
    return base_position(point, ids, [date for _, date in history])


def history_quirks(
    repo: Repo, config: Config, history: Sequence[tuple[str, datetime]]
) -> tuple[PlannedQuirk, ...]:
    """The quirks of ``config`` placed on ``history`` (a first-parent line), lettered."""
    ids = [commit for commit, _ in history]
    dates = [date for _, date in history]
    where = {commit: pos for pos, commit in enumerate(ids)}
    points = [_quirk_point(repo, where, i, q, config.path) for i, q in enumerate(config.quirks)]
    return plan_quirks(points, ids, dates)


def _check_quirk_placeholders(config: Config, topology: Topology) -> None:
    """The commands that quirks put in place of a test's are checked like the test's."""
    known = dict.fromkeys((*TEST_PLACEHOLDERS, *topology.placeholders()), "")
    tests = {test.name: test for test in config.tests}
    for index, quirk in enumerate(config.quirks):
        for name, replaced in quirk.tests.items():
            if replaced.command:
                own = tests[name].placeholders() if name in tests else {}
                key = f"quirk[{index}].test.{name}.command"
                substitute(replaced.command, {**known, **own}, key=key)


def _letter_order(quirks: Sequence[PlannedQuirk]) -> Callable[[str], int]:
    order = {q.letter: n for n, q in enumerate(quirks)}
    return lambda letter: order[letter]


def _quirk_point(
    repo: Repo, where: dict[str, int], index: int, quirk: QuirkConfig, path: Path
) -> tuple[int, QuirkPoint, QuirkPoint | None, QuirkConfig]:
    at = _point(repo, where, quirk.at, f"quirk[{index}].at", path)
    until = None
    if quirk.until:
        until = _point(repo, where, quirk.until, f"quirk[{index}].until", path)
    return (index, at, until, quirk)


def _point(repo: Repo, where: dict[str, int], text: str, key: str, path: Path) -> QuirkPoint:
    """A date or a commit of the walked line, or a ConfigError naming ``path`` and ``key``."""
    if looks_like_date(text):
        return QuirkPoint(parse_date(text))
    try:
        commit = repo.commit(repo.resolve(text))
    except GitError as error:
        raise ConfigError(
            error.message,
            path=str(path),
            key=key,
            hint="give a date or a commit of the walked line",
        ) from error
    if commit.id not in where:
        raise ConfigError(
            f"commit {text} is not on the first-parent line of the walked branch",
            path=str(path),
            key=key,
            hint="name a commit of the branch itself (not of a merged side branch) or a date",
        )
    return QuirkPoint(commit.date, commit.id)
