"""The daily loop: ``perfwalk watch --once`` and ``perfwalk watch``.

One cycle continues every named walk (``[[walk]]``) with what landed on its branch,
measures again the changes of those walks that no re-measure decided yet (``[watch]
confirm``, within ``confirm_repetitions`` and ``confirm_seconds`` for the whole cycle:
:mod:`perfwalk.orchestrate.confirm.confirm`), finds the changes of every series, drills the
changes that are new within the cycle's budget (``[watch] drill_builds``,
``drill_repetitions``), publishes the site incrementally (``[watch] site``), tells
the people (``[notify]``) and records the new changes as seen; with ``[retention]``
set, it drops the outputs of old checkouts before publishing
(:mod:`perfwalk.services.prune`). A change is new when its series and commit range
were not seen by an earlier cycle; a cycle that dies before its end sees them again.
The changes of a walk's variants (``perfwalk run --variants``) are new and told as the
walk's are, never drilled: a drill measures the plain checkout.

Walks whose hosts are disjoint run at the same time, one thread per group of walks
that share a host (:func:`perfwalk.orchestrate.session.run_hosts.sharing_groups`); the walks of
a group run one after the other, each holding the leases on its hosts as any walk
does. A cycle holds the store's watch lease: a second ``watch`` on the same store
stops at once, naming the holder.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from perfwalk.analysis.floor import Sight
from perfwalk.config.model import Config
from perfwalk.errors import PerfwalkError, UsageError
from perfwalk.orchestrate.confirm.confirm import Budget
from perfwalk.orchestrate.findings.changes import Findings, find_all
from perfwalk.orchestrate.findings.listed_changes import listed_findings
from perfwalk.orchestrate.session.leases import HeldLeases
from perfwalk.orchestrate.session.run_hosts import leased_hosts, sharing_groups
from perfwalk.orchestrate.walk.plan import RunOptions, walk_config
from perfwalk.report.change_list import ListedChange
from perfwalk.report.site import PublishReport
from perfwalk.services.publish import publish_store
from perfwalk.services.run import RunResult, run_series
from perfwalk.store import Store
from perfwalk.store.leases import LeaseRow
from perfwalk.store.run_records import WATCH, RunRecord

if TYPE_CHECKING:  # imported by the cycles that drill or notify (start-up time)
    from perfwalk.composites.prove import Proof
    from perfwalk.orchestrate.findings.notify import NotifyReport
    from perfwalk.services.drill import DrillResult, DrillTarget
    from perfwalk.services.prune import PruneReport

#: The name of the lease a watch holds on its store (not a host name: no ssh
#: destination or host of [hosts] is written with parentheses).
WATCH_LEASE = "(watch)"

#: The least a drill can do something with (perfwalk.drill.Budget's floor).
_LEAST_BUILDS, _LEAST_REPETITIONS = 1, 2
#: The least repetitions per side a proof is started with (a try's first look).
_LEAST_PROOF = 3


@dataclass(frozen=True)
class WalkCycle:
    """What one named walk did in a cycle: its run, or the error that stopped it
    (the other walks go on)."""

    name: str
    run: RunResult | None = None
    error: PerfwalkError | None = None


@dataclass(frozen=True)
class DrillCycle:
    """A drill a cycle ran on a new change, or why it could not."""

    target: DrillTarget
    result: DrillResult | None = None
    error: PerfwalkError | None = None


@dataclass(frozen=True)
class WatchCycle:
    """One cycle: the walks continued, the changes new in it (as listed after their
    drills), the drills run and those left for the next cycle, the site published
    and how long it took."""

    started_at: datetime
    walks: tuple[WalkCycle, ...]
    new: tuple[ListedChange, ...]
    drills: tuple[DrillCycle, ...]
    undrilled: tuple[DrillTarget, ...]  # new changes the budget left for the next cycle
    site: PublishReport
    seconds: float
    notified: NotifyReport | None = None  # None: no [notify] urls
    #: the metrics of the watched walks that the cycle could not judge (their series,
    #: their walk's name, what the walk could see): too noisy to see a change that
    #: matters, or judged only with the repetitions left out (Findings.undecided)
    undecided: tuple[tuple[int, str, Sight], ...] = ()
    #: what [retention] dropped at the end of the cycle (None: it is not set)
    pruned: PruneReport | None = None
    #: the culprits the cycle's drills named, proved on today's tips ([watch] prove)
    proofs: tuple[Proof, ...] = ()

    @property
    def alarms(self) -> list[ListedChange]:
        """The new regressions nobody triaged that are to act on (confirmed, no known
        cause): what makes ``watch --once`` exit 1."""
        return [
            c
            for c in self.new
            if c.regression and c.state == "confirmed" and not c.note and c.triage is None
        ]

    def unsettled(self, state: str) -> list[ListedChange]:
        """The new regressions nobody triaged, without a known cause, whose verdict is
        ``state`` (``suspect`` or ``undecided``: ``watch --once`` exits 4 for them
        when there is no alarm)."""
        return [
            c
            for c in self.new
            if c.regression and c.state == state and not c.known_causes and c.triage is None
        ]

    @property
    def failed(self) -> list[WalkCycle]:
        return [w for w in self.walks if w.error is not None]


def watch_once(
    config: Config,
    *,
    say: Callable[[str], None] = lambda _s: None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> WatchCycle:
    """One cycle of the daily loop, holding the store's watch lease."""
    with watching(config, clock) as store:
        return _cycle(store, config, say, clock)


def watch_forever(
    config: Config,
    cycled: Callable[[WatchCycle], object],
    *,
    say: Callable[[str], None] = lambda _s: None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    sleep: Callable[[float], None] = time.sleep,
    cycles: int | None = None,
) -> None:
    """A cycle every ``[watch] interval`` seconds (from start to start; a cycle longer
    than that is followed at once by the next), each handed to ``cycled``, holding
    the watch lease all along; ``cycles`` stops after that many (None: never)."""
    with watching(config, clock) as store:
        done = 0
        while cycles is None or done < cycles:
            began = time.monotonic()
            cycled(_cycle(store, config, say, clock))
            done += 1
            if cycles is None or done < cycles:
                sleep(max(0.0, config.watch.interval - (time.monotonic() - began)))


def seen_now(config: Config) -> int:
    """Record the changes the named walks show now as seen (how many were not): the
    next cycle drills, tells and counts only what is new after them. For a store that
    has a history already (the demo's six weeks) and people who know it."""
    with Store.open(config.store.url) as store:
        walks = _watched(store, config)
        listed = listed_findings(store, find_all(store, config, walks))[0]
        return store.seen.add({c.key for c in listed}, datetime.now(UTC))


def _watched(store: Store, config: Config) -> dict[int, str]:
    """The series of the named walks of ``config``'s project, and those of their
    variants (measured beside them: their changes are new and told like the walk's,
    never drilled), with their walk's name."""
    every = store.list_series()
    walks = {
        s.id: s.walk
        for s in every
        if s.kind == "walk" and s.walk is not None and s.project == config.project.name
    }
    variants = {
        s.id: walks[s.parent_id]
        for s in every
        if s.kind == "variant" and s.parent_id is not None and s.parent_id in walks
    }
    return {**walks, **variants}


@contextmanager
def watching(config: Config, clock: Callable[[], datetime]) -> Iterator[Store]:
    """The store, with its watch lease held (a UsageError naming the holder when
    another watch has it)."""
    if not config.walks:
        raise UsageError(
            f"{config.path} has no [[walk]]: watch continues the named walks",
            hint='add one, e.g. [[walk]] name = "nightly" with from = "2024-01-01" and '
            'step = "1day" (docs/watch.md)',
        )
    with Store.open(config.store.url) as store:

        def refused(blocking: list[LeaseRow], now: datetime, _waited: float) -> UsageError:
            return UsageError(
                f"another watch runs on the store {store.url}: {blocking[0].describe(now)}",
                hint="let it finish (watch --once) or stop it; if it is gone, its lease "
                f"expires after [run] lease_expiry ({config.run.lease_expiry:g} s) or "
                f"`perfwalk hosts --break '{WATCH_LEASE}'` breaks it",
            )

        purpose = f"a watch of {config.project.name} ({config.path})"
        with HeldLeases(
            store,
            [WATCH_LEASE],
            purpose,
            wait=0,
            expiry=config.run.lease_expiry,
            clock=clock,
            refused=refused,
        ):
            yield store


def _cycle(
    store: Store, config: Config, say: Callable[[str], None], clock: Callable[[], datetime]
) -> WatchCycle:
    started_at, began = clock(), time.monotonic()
    budget = Budget.of_watch(config) if config.watch.confirm else None
    walks = _continue_walks(config, say, budget)
    watched = _watched(store, config)
    seen = store.seen.keys()
    found = find_all(store, config)
    listed, episodes = listed_findings(store, found)
    new_keys = {c.key for c in listed if c.series_id in watched and c.key not in seen}
    drills, undrilled = _drill_new(store, config, new_keys, watched, listed, found=found, say=say)
    proofs = _prove_culprits(store, config, drills, say) if config.watch.prove else ()
    if drills:  # a drill names a culprit, or rules the change out
        found = find_all(store, config)
        listed, episodes = listed_findings(store, found)
    new = tuple(c for c in listed if c.key in new_keys)
    added = sum(w.run.new_checkouts for w in walks if w.run is not None)
    store.runs.add(RunRecord(WATCH, "", None, started_at, clock(), added, None))
    pruned = _prune(store, config, found, clock)
    site = publish_store(
        store, config, config.watch.site, listed=(listed, episodes), points=found.points
    )
    notified = None
    if config.notify.urls:  # the changes to act on, and what earlier cycles could not send
        from perfwalk.services.notify import notify_changes

        told = [c for c in new if not c.note]
        notified = notify_changes(store, config, told, now=clock())
    store.seen.add(new_keys, clock())
    return WatchCycle(
        started_at=started_at,
        walks=walks,
        new=new,
        drills=drills,
        undrilled=undrilled,
        proofs=proofs,
        site=site,
        seconds=time.monotonic() - began,
        notified=notified,
        undecided=tuple((sid, watched[sid], x) for sid, x in found.undecided if sid in watched),
        pruned=pruned,
    )


def _prune(
    store: Store, config: Config, found: Findings, clock: Callable[[], datetime]
) -> PruneReport | None:
    """The outputs ``[retention]`` drops, when it is set (else None: nothing is
    dropped unless asked), before the site is published (its pages say what was
    pruned). The space is not given back here: SQLite reuses it for the next cycles'
    logs, ``perfwalk prune --apply`` shrinks the file."""
    if not config.retention.set:
        return None
    from perfwalk.services.prune import Rule, apply_prune, plan_prune

    plan = plan_prune(store, Rule.of(config), found, clock())
    return apply_prune(store, plan, clock=clock, reclaim=False)


def _continue_walks(
    config: Config, say: Callable[[str], None], budget: Budget | None
) -> tuple[WalkCycle, ...]:
    """Every named walk continued, and its undecided changes measured again within the
    cycle's ``budget`` (None: only with ``[run] confirm``); groups of walks sharing no
    host at the same time."""
    names = [w.name for w in config.walks]
    groups = sharing_groups({n: leased_hosts(walk_config(config, n)) for n in names})
    lock = threading.Lock()
    stop = threading.Event()

    def told(line: str) -> None:
        with lock:
            say(line)

    def stopped(_progress: object) -> None:  # a walk in a thread ends when the cycle does
        if stop.is_set():
            raise KeyboardInterrupt

    def walk_group(group: Sequence[str]) -> list[WalkCycle]:
        return [_continue(config, name, told, stopped, budget) for name in group]

    if len(groups) == 1:  # in this thread: Ctrl-C reaches the walk as in `perfwalk run`
        results = [walk_group(groups[0])]
    else:
        with ThreadPoolExecutor(len(groups), thread_name_prefix="perfwalk-walks") as pool:
            futures = [pool.submit(walk_group, group) for group in groups]
            try:
                results = [future.result() for future in futures]
            except BaseException:
                stop.set()  # Ctrl-C: every walk marks its series interrupted and ends
                raise
    done = {c.name: c for group_cycles in results for c in group_cycles}
    return tuple(done[name] for name in names)


def _continue(
    config: Config,
    name: str,
    say: Callable[[str], None],
    progress: Callable[[object], None],
    budget: Budget | None,
) -> WalkCycle:
    try:
        # the cycle does not tell the series' loaded repetitions and unstable sets
        result = run_series(
            config, RunOptions(walk=name), progress, say=say, tallies=False, remeasure=budget
        )
    except PerfwalkError as error:
        say(f"walk {name}: {error}")
        return WalkCycle(name, error=error)
    if result.nothing_new:
        say(f"walk {name}: nothing new; series {result.series_id} is unchanged")
    else:
        say(
            f"walk {name}: series {result.series_id}, {result.new_checkouts or result.checkouts}"
            f" new checkouts measured; worst status {result.worst.name}"
        )
    if result.confirmed is not None:
        for change in result.confirmed.remeasured:
            say(f"walk {name}: {change.said()}")
        if result.confirmed.left:
            say(
                f"walk {name}: {result.confirmed.left} change(s) left for the next cycle: "
                f"the re-measures' budget ({result.confirmed.spent}) is spent"
            )
    return WalkCycle(name, run=result)


def _drill_new(
    store: Store,
    config: Config,
    new_keys: set[tuple[int, str, str]],
    watched: dict[int, str],
    listed: Sequence[ListedChange],
    *,
    found: Findings,
    say: Callable[[str], None],
) -> tuple[tuple[DrillCycle, ...], tuple[DrillTarget, ...]]:
    """Drill the new changes to act on that no drill answered yet, strongest first,
    as far as the cycle's budget goes; the rest wait for the next cycle. ``found`` and
    ``listed``: the changes the cycle found, as found and as listed."""
    to_act_on = {c.key for c in listed if c.key in new_keys and not c.note and c.drill is None}
    if not to_act_on:
        return (), ()
    from perfwalk.drill import Budget
    from perfwalk.services.drill import change_targets, run_drill

    targets = [
        t
        for t in change_targets(store, config, found=found.changes, breaks=found.breaks)
        if t.parent is not None and (t.parent, t.before, t.after) in to_act_on
    ]
    targets.sort(key=lambda t: -abs(float(t.change.get("relative") or 0.0)))
    builds, repetitions = config.watch.drill_builds, config.watch.drill_repetitions
    drills: list[DrillCycle] = []
    left: list[DrillTarget] = []
    for target in targets:
        if builds < _LEAST_BUILDS or repetitions < _LEAST_REPETITIONS:
            left.append(target)
            continue
        assert target.parent is not None
        walk = walk_config(config, watched[target.parent])
        try:
            result = run_drill(walk, target, Budget(builds, repetitions), say=say)
        except PerfwalkError as error:
            say(f"drill of {target.metric} at {target.change.get('id')}: {error}")
            drills.append(DrillCycle(target, error=error))
            continue
        builds -= result.done.builds
        repetitions -= result.done.repetitions
        drills.append(DrillCycle(target, result=result))
    return tuple(drills), tuple(left)


def _prove_culprits(
    store: Store, config: Config, drills: Sequence[DrillCycle], say: Callable[[str], None]
) -> tuple[Proof, ...]:
    """The culprits the cycle's ``drills`` named, each proved on today's tip of its
    walk's branch (``[watch] prove``), with what the drills left of the cycle's
    repetitions (``[watch] drill_repetitions``); a proof that cannot start (the tip
    lacks the culprit) is said and the others go on."""
    from perfwalk.composites.prove import provable, prove_culprit

    left = config.watch.drill_repetitions - sum(
        d.result.done.repetitions for d in drills if d.result is not None
    )
    proved: list[Proof] = []
    for cycle in drills:
        drill = None if cycle.result is None else store.drills.get(cycle.result.series_id)
        if drill is None or provable(drill) is not None:
            continue
        most = min(config.drill.prove_repetitions, left // 2)
        if most < _LEAST_PROOF:
            say(f"drill {drill.series_id}: not proved: the cycle's repetitions are spent")
            continue
        try:
            proof = prove_culprit(store, config, drill, max_repetitions=most, say=say)
        except PerfwalkError as error:
            say(f"drill {drill.series_id}: not proved: {error}")
            continue
        say(f"drill {drill.series_id}: {proof.said()}")
        if proof.tried is not None:
            left -= sum(proof.tried.repetitions)
        proved.append(proof)
    return tuple(proved)
