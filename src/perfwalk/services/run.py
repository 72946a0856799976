"""The walk use case: plan the checkouts of a series (or resume one, continue a named
walk, or extend a stored series at its checkouts) and measure them.

The run opens a session (:mod:`perfwalk.orchestrate.session.session`): its store and hosts,
a lease on the hosts while it walks, every connection closed at the end, whatever
happened. It plans the walk (:func:`perfwalk.orchestrate.walk.plan.plan_walk`, or
:func:`perfwalk.orchestrate.extend.extension.plan_extension` for ``--extend`` and for the
``--resume`` of an extension) before it takes a lease. Before it measures, it stops
what walks killed on this machine left running, and it records itself as the walker
of its series, so that ``status`` tells a walk that runs from one that is gone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from perfwalk.analysis.machine import repetition_loaded
from perfwalk.config.model import Config
from perfwalk.config.test_selection import select_tests
from perfwalk.errors import UsageError
from perfwalk.git.worktree import Worktrees
from perfwalk.model import Status
from perfwalk.orchestrate.adaptive.adaptive_loop import walk_adaptively
from perfwalk.orchestrate.checkout.variants import WalkVariant, variant_series_name
from perfwalk.orchestrate.confirm.confirm import Budget, Confirmed, confirm_changes
from perfwalk.orchestrate.confirm.remeasure_targets import remeasure_targets
from perfwalk.orchestrate.extend.extension import extension_to_resume, plan_extension
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.session.run_hosts import control_directory, open_topology
from perfwalk.orchestrate.session.session import Session, config_session
from perfwalk.orchestrate.walk.plan import (
    NamedWalk,
    PlannedCheckout,
    RunOptions,
    WalkPlan,
    plan_walk,
    walk_config,
)
from perfwalk.orchestrate.walk.provenance import walk_series
from perfwalk.orchestrate.walk.walk import Walk
from perfwalk.orchestrate.walk.walk_progress import Progress
from perfwalk.report.collect import Policies, Stability, stability_of
from perfwalk.report.parser_findings import ParserFindings, parser_findings
from perfwalk.store import Store
from perfwalk.store.connect import is_missing_file
from perfwalk.store.extensions import NewExtension
from perfwalk.store.records import ExtensionInfo
from perfwalk.store.run_records import WALK, RunRecord


@dataclass(frozen=True)
class RunResult:
    series_id: int
    checkouts: int
    repetitions: int
    worst: Status
    resumed: bool
    #: its unstable repetition sets and outliers; with ``loaded`` and ``watched``,
    #: counted over the whole series unless the caller did not ask for them
    #: (``run_series(tallies=False)``: zeros)
    stability: Stability
    parent: int | None = None  # the series it zooms into
    loaded: int = 0  # repetitions with a loaded host (perfwalk.analysis.machine)
    watched: int = 0  # repetitions with a machine state
    repetitions_max: int | None = None  # adaptive repetitions: the most a checkout got
    #: the changes of the series after their re-measures (None: none measured again:
    #: ``[run] confirm`` off, not in a watch cycle)
    confirmed: Confirmed | None = None
    named: NamedWalk | None = None  # the named walk it continued (``--walk``)
    new_checkouts: int = 0  # how many checkouts it added to the series
    nothing_new: bool = False  # a named walk with nothing new: nothing was measured
    extended: ExtensionInfo | None = None  # the extension it made or finished (--extend)
    #: the values its parsers lost, its declared metrics never produced (of the whole
    #: series; none unless the caller asked for the tallies)
    parsers: ParserFindings = field(default_factory=ParserFindings)

    def per_checkout(self) -> str:
        """``5``, or ``2 to 8`` with adaptive repetitions."""
        if self.repetitions_max is None:
            return str(self.repetitions)
        return f"{self.repetitions} to {self.repetitions_max}"


def run_series(
    config: Config,
    options: RunOptions,
    progress: Callable[[Progress], None] = lambda _p: None,
    *,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    say: Callable[[str], None] = lambda _s: None,
    tallies: bool = True,
    walks: Callable[[int], None] = lambda _id: None,
    remeasure: Budget | None = None,
) -> RunResult:
    """Walk (or resume) a series and return what it measured; ``say`` hears what the
    walk did besides measuring (processes of killed walks it stopped first, hosts it
    powered on or off);
    ``tallies=False`` leaves out the counts of loaded repetitions, unstable sets and
    outliers of the whole series (what ``perfwalk run`` warns of; they read all of it);
    ``walks`` hears the id of the series before anything is measured in it.

    At its end the walk measures its undecided changes again
    (:mod:`perfwalk.orchestrate.confirm.confirm`) within ``remeasure`` (a watch cycle's budget,
    with or without ``[run] confirm``), or with ``[run] confirm`` within its own; a
    named walk with nothing new still measures on those of its earlier walks.

    Every repetition is committed to the store when it finishes; a KeyboardInterrupt
    (Ctrl-C, SIGTERM, SIGHUP) marks the series ``interrupted`` (``perfwalk run
    --resume`` continues it).
    """
    config, extending = _extended(config, options)  # a named walk's on its host and branch
    purpose = f"a walk of {config.project.name} ({config.path})"
    if remeasure is None and config.run.confirm:
        remeasure = Budget.of_run(config)
    began = clock()
    with config_session(config, purpose, clock, say) as session:
        plan = _plan(session.store, config, session.topology, options, extending)
        config = _walked_tests(config, plan)
        if plan.nothing_new and plan.resumed is not None:
            series_id = plan.resumed.id
            if remeasure is None or not remeasure_targets(session.store, config, series_id):
                _record(session.store, plan, series_id, began, clock())
                return _nothing_new(session.store, plan, series_id)
        with session.holding():
            session.sweep(say)
            return _walk(
                session,
                config,
                plan,
                progress,
                tallies=tallies,
                walks=walks,
                budget=remeasure,
                began=began,
            )


@dataclass(frozen=True)
class DryRun:
    """What ``perfwalk run`` would do, planned without building or storing anything:
    the plan, and for the walk it would continue what its series has already."""

    plan: WalkPlan
    done: Mapping[int, int]  # repetitions stored per checkout index
    failed: frozenset[int]  # checkouts whose build failed (not built again)

    def wanting(self) -> list[tuple[PlannedCheckout, int]]:
        """Each checkout the walk would build, with the repetitions it would run there
        (the most, with adaptive repetitions), variants' included."""
        extension = self.plan.extension
        if extension is not None:
            return [
                (planned, extension.left[planned.checkout.index])
                for planned in self.plan.checkouts
                if extension.left.get(planned.checkout.index)
                and planned.checkout.index not in self.failed
            ]
        most = self.plan.measuring.repetitions_max or self.plan.repetitions
        each = 1 + len(self.plan.variants)
        found = []
        for planned in self.plan.checkouts:
            index = planned.checkout.index
            left = max(0, most - self.done.get(index, 0))
            if left and index not in self.failed:
                found.append((planned, left * each))
        return found

    def builds(self) -> int:
        """The builds the walk would run: one per checkout, and one per variant built
        apart at each."""
        own = sum(1 for variant in self.plan.variants if variant.own_build)
        return len(self.wanting()) * (1 + own)


def plan_series(config: Config, options: RunOptions) -> DryRun:
    """The plan of the walk ``options`` ask for (a ``--dry-run``): the store is only
    read, nothing is built, no lease taken; the hosts are asked only what the plan
    checks (a pinned test's taskset)."""
    config, extending = _extended(config, options)
    url = config.store.url
    # a store not made yet has no walk to continue: an empty one in memory stands for it
    missing = is_missing_file(url)
    store = Store.open("sqlite://", read_only=False) if missing else Store.open(url, read_only=True)
    try:
        with control_directory() as control:
            topology = open_topology(config, control)
            try:
                plan = _plan(store, config, topology, options, extending)
            finally:
                topology.close()
        done: dict[int, int] = {}
        failed: set[int] = set()
        if plan.resumed is not None:
            for index, _rep in store.done_repetitions(plan.resumed.id):
                done[index] = done.get(index, 0) + 1
            rows = store.checkouts(plan.resumed.id)
            failed = {r.idx for r in rows if r.build_status is Status.NOEXIST}
    finally:
        store.close()
    return DryRun(plan, done, frozenset(failed))


def _extended(config: Config, options: RunOptions) -> tuple[Config, int | None]:
    """``config`` as the walk ``options`` ask for runs it (a named walk's on its host
    and branch: ``--walk``, or the series an extension extends is one's) and the
    series it extends: ``--extend``'s, or the one whose unfinished extension
    ``--resume`` continues (None: a walk)."""
    if options.walk is not None:
        return walk_config(config, options.walk), None
    if options.extend is None and not (options.resume and not options.variants):
        return config, None
    if is_missing_file(config.store.url):  # no series to extend: the plan says so
        return config, options.extend
    with Store.open(config.store.url, read_only=True) as store:
        series = (
            store.series(options.extend)
            if options.extend is not None
            else extension_to_resume(store, config, options)
        )
    if series is None:
        return config, None
    if series.walk is not None and any(walk.name == series.walk for walk in config.walks):
        config = walk_config(config, series.walk)
    return config, series.id


def _plan(
    store: Store,
    config: Config,
    topology: Topology,
    options: RunOptions,
    extending: int | None,
) -> WalkPlan:
    """The plan of the walk ``options`` ask for: the extension of series
    ``extending`` (:func:`_extended`), else a walk."""
    if extending is not None:
        return plan_extension(store, config, topology, options, store.series(extending))
    plan = plan_walk(store, config, topology, options)
    if plan.budget is not None and len(plan.checkouts) < 2:
        commit = plan.checkouts[0].checkout.commit[:12]
        raise UsageError(
            f"--adaptive: the walk from {plan.spec[0] or 'the first commit'} to {plan.spec[1]} "
            f"has one commit ({commit}): nothing to choose between",
            hint="give --from and --to further apart (or walk a branch with more commits)",
        )
    return plan


def _walk(
    session: Session,
    config: Config,
    plan: WalkPlan,
    progress: Callable[[Progress], None],
    *,
    tallies: bool,
    walks: Callable[[int], None],
    budget: Budget | None,
    began: datetime,
) -> RunResult:
    store, clock = session.store, session.clock
    walker = session.walker()
    if plan.resumed is not None:
        series_id = plan.resumed.id
    else:
        series_id = store.create_series(walk_series(config, session.topology, plan, clock()))
    walks(series_id)

    def report(step: Progress) -> None:
        session.check()
        progress(step)

    extension = _extension(store, config, plan, clock())
    variants = _variant_series(store, config, session, plan, series_id)
    worktrees = Worktrees.for_series(plan.repo, config.store.worktrees, store.store_id(), series_id)
    purpose = f"series {series_id} of {store.url}, {session.purpose}"
    with session.walking(series_id, walker, [v.series_id for v in variants]):
        if plan.resumed is not None:
            store.set_series_state(series_id, "running")
            if plan.named is not None and plan.new_checkouts:  # a named walk goes on
                for extended in (series_id, *(v.series_id for v in variants)):
                    store.extend_series(
                        extended, plan.spec[1], plan.checkouts[-1].checkout.index + 1
                    )
            elif plan.resumed.planned_checkouts is None:
                store.set_planned_checkouts(series_id, len(plan.checkouts))
        walk = Walk(
            series_id=series_id,
            config=config,
            store=store,
            worktrees=worktrees,
            topology=session.topology,
            quirks=plan.quirks,
            between=plan.between,
            progress=report,
            marker=walker.token,
            variants=variants,
        )
        confirmed = None
        with worktrees.held(purpose):
            if plan.budget is not None:  # the plan of the checkouts it chose
                plan = dataclasses.replace(
                    plan, checkouts=walk_adaptively(walk, plan, session.say).checkouts
                )
            elif not plan.nothing_new:
                walk.run(plan)
            if budget is not None:  # the changes measured again before they are told
                confirmed = confirm_changes(walk, store, config, plan, clock=clock, budget=budget)
            worktrees.remove()
    made: ExtensionInfo | None = None
    if extension is not None:
        store.extensions.finish(extension, clock())
        made = next(e for e in store.series(series_id).extensions if e.id == extension)
    _record(store, plan, series_id, began, clock())
    if plan.nothing_new:
        return dataclasses.replace(_nothing_new(store, plan, series_id), confirmed=confirmed)
    states = store.machine_states(series_id) if tallies else {}
    return RunResult(
        series_id=series_id,
        checkouts=len(plan.checkouts),
        repetitions=plan.repetitions,
        worst=store.worst_status(series_id),  # of the earlier walks too
        resumed=plan.resumed is not None,
        parent=plan.parent,
        loaded=sum(1 for found in states.values() if repetition_loaded(found)),
        watched=len(states),
        repetitions_max=plan.measuring.repetitions_max,
        confirmed=confirmed,
        stability=(
            stability_of(store, series_id, Policies(config)) if tallies else Stability(0, 0, 0, 0)
        ),
        named=plan.named,
        new_checkouts=plan.new_checkouts,
        extended=made,
        parsers=parser_findings(store, config, series_id) if tallies else ParserFindings(),
    )


def _extension(store: Store, config: Config, plan: WalkPlan, now: datetime) -> int | None:
    """The id of the extension the walk makes (stored now, with the repetitions per
    checkout its series plan from now on) or continues; None for a walk."""
    extension, series = plan.extension, plan.resumed
    if extension is None or series is None:
        return None
    if extension.stored is not None:
        return extension.stored.id
    stored = {row.variant_name: row.id for row in store.variant_series(series.id)}
    each = extension.variant_repetitions
    targets = {series.id: plan.repetitions}
    for variant in plan.variants:  # an added one's series left empty by a crash too
        found = stored.get(variant.name)
        if found is not None:
            targets[found] = each if each is not None else plan.repetitions
    new = NewExtension(
        series_id=series.id,
        started_at=now,
        repetitions_before=extension.repetitions_before,
        repetitions=plan.repetitions,
        variants=extension.added,
        variant_repetitions=each,
        order=plan.measuring.order,
        seed=plan.measuring.seed,
        last_repetition=extension.last_repetition,
        config_hash=config.hash,
    )
    return store.extensions.start(new, targets)


def _walked_tests(config: Config, plan: WalkPlan) -> Config:
    """``config`` as the walk measures it: a resumed walk (not a named walk going on,
    which measures every test of its file) the tests its series recorded (some, when
    it was started with ``--tests``)."""
    resumed = plan.resumed
    if resumed is None or plan.named is not None:
        return config
    recorded = resumed.commands.get("tests")
    if not isinstance(recorded, dict) or set(recorded) >= {t.name for t in config.tests}:
        return config
    return select_tests(
        config, [t.name for t in config.tests if t.name in recorded], same_hash=True
    )


def _variant_series(
    store: Store, config: Config, session: Session, plan: WalkPlan, series_id: int
) -> tuple[WalkVariant, ...]:
    """The series of each variant the walk measures besides its own (the plain
    checkout's): those it has already, and a new one for each variant it measures for
    the first time (a resume, a named walk going on)."""
    stored = {row.variant_name: row.id for row in store.variant_series(series_id)}
    walked: list[WalkVariant] = []
    for variant in plan.variants:
        found = stored.get(variant.name)
        if found is None:
            new = walk_series(config, session.topology, plan, session.clock())
            extension = plan.extension
            if extension is not None and extension.variant_repetitions is not None:
                new = dataclasses.replace(new, repetitions=extension.variant_repetitions)
            found = store.create_series(
                dataclasses.replace(
                    new,
                    name=variant_series_name(new.name, variant.name),
                    kind="variant",
                    parent_id=series_id,
                    variant=variant.name,
                    walk=None,
                )
            )
        walked.append(WalkVariant(variant.name, variant, found))
    return tuple(walked)


def _record(
    store: Store, plan: WalkPlan, series_id: int, started_at: datetime, finished_at: datetime
) -> None:
    """Record the walk run that ended: what the index's "last night" strip shows."""
    name = plan.named.name if plan.named is not None else ""
    store.runs.add(
        RunRecord(
            WALK, name, series_id, started_at, finished_at, plan.new_checkouts, plan.first_new
        )
    )


def _nothing_new(store: Store, plan: WalkPlan, series_id: int) -> RunResult:
    """A named walk whose branch has no commit to measure since its last checkout."""
    return RunResult(
        series_id=series_id,
        checkouts=0,
        repetitions=plan.repetitions,
        worst=store.worst_status(series_id),  # of the earlier walks too
        resumed=True,
        stability=Stability(0, 0, 0, 0),
        parent=plan.parent,
        named=plan.named,
        nothing_new=True,
    )
