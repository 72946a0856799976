"""Confirm before telling (``[run] confirm``, ``[watch] confirm``): the changes of a walk
that no re-measure decided yet (:mod:`perfwalk.orchestrate.confirm.remeasure_targets`) are
measured again, one change after the other, both of its checkouts interleaved
(before, after, after, before, … as a try's A B B A), until the sequential test of
:mod:`perfwalk.analysis.confirmation` decides every metric of it (held: the two
checkouts differ the change's way; not held: they do not) or the budget is spent
(:class:`Budget`: repetitions and seconds for the whole walk's end or watch cycle; the
most repetitions per side of one change). Before each change it waits, up to
``[run] confirm_wait`` seconds, for the machine to be quiet
(:mod:`perfwalk.orchestrate.confirm.quiet_wait`). The most likely step of a metric the walk
could not judge is measured the same way, after the doubtful changes
(:func:`perfwalk.orchestrate.confirm.remeasure_targets.most_likely_steps`).

What each re-measure found is stored with its rounds (each repetition, its side and
the load of its hosts), its waits, and per metric both sides' values and the
decision with its p-value (:mod:`perfwalk.store.confirmations`); a change the budget
left undecided is measured on by the next walk or watch cycle, from where it
stopped; a decided one is never measured again.

A change made by time (the machine got slower while the walk went from one checkout
to the next) or by a load on one side does not hold: measured again side by side, its
checkouts no longer differ. A change made by a commit does.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from perfwalk.analysis.confirmation import (
    HELD,
    NOT_HELD,
    UNDECIDED,
    Again,
    decide_again,
    one_value,
    standing,
)
from perfwalk.analysis.machine import repetition_loaded
from perfwalk.analysis.sequential import side
from perfwalk.config.model import Config
from perfwalk.model import MachineState, Status
from perfwalk.numbers import finite_or_none, numbers_in
from perfwalk.orchestrate.confirm.quiet_wait import SAMPLE_SECONDS, Waited, wait_quiet
from perfwalk.orchestrate.confirm.remeasure_targets import (
    Expected,
    Target,
    planned_checkouts,
    remeasure_targets,
)
from perfwalk.orchestrate.findings.changes import find_changes
from perfwalk.orchestrate.hosts.machine import MachineWatch, playing
from perfwalk.orchestrate.walk.plan import PlannedCheckout, WalkPlan
from perfwalk.orchestrate.walk.remeasure import OneMore, Remeasure
from perfwalk.orchestrate.walk.walk import Walk
from perfwalk.store import Store
from perfwalk.store.confirmations import ConfirmationRow
from perfwalk.store.records import NewResult


@dataclass
class Budget:
    """What the re-measures of one walk's end (``[run]``) or of one watch cycle
    (``[watch]``) may spend together: ``repetitions`` (both sides counted) and
    ``seconds`` from the first re-measure on, waits for a quiet machine included (0:
    no limit). The walks of a watch cycle share one, each in its thread."""

    repetitions: int
    seconds: float
    what: str  # the settings that set it, named when it is spent
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    _deadline: float | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of_run(cls, config: Config) -> Budget:
        return cls._of("run", config.run.confirm_repetitions, config.run.confirm_seconds)

    @classmethod
    def of_watch(cls, config: Config) -> Budget:
        return cls._of("watch", config.watch.confirm_repetitions, config.watch.confirm_seconds)

    @classmethod
    def _of(cls, section: str, repetitions: int, seconds: float) -> Budget:
        what = f"[{section}] confirm_repetitions = {repetitions}, confirm_seconds = {seconds:g}"
        return cls(repetitions, seconds, what)

    def take(self, count: int) -> bool:
        """Spend ``count`` repetitions, when they and time are left."""
        with self._lock:
            if self.repetitions < count or self.seconds_left() == 0:
                return False
            self.repetitions -= count
            return True

    def seconds_left(self) -> float | None:
        """Seconds left (None: no limit); the first question starts the clock."""
        if self.seconds <= 0:
            return None
        if self._deadline is None:
            self._deadline = time.monotonic() + self.seconds
        return max(0.0, self._deadline - time.monotonic())


@dataclass(frozen=True)
class Remeasured:
    """One change measured again at the end of a walk or in a watch cycle: its id, what
    the re-measure found (``outcome``; ``final``: nothing more will be measured), the
    repetitions measured again at each side in all and in this round, why, and how
    its round began (the wait for a quiet machine)."""

    id: str
    outcome: str
    final: bool
    counts: tuple[int, int]  # before, after: every repetition measured again so far
    added: int  # the repetitions this round measured
    reason: str
    waited: Waited
    stopped: bool = False  # the budget stopped it before a decision
    step: str = ""  # a metric's most likely step, not a change the walk found: in words

    def said(self) -> str:
        """``re-measure of 1:5: held after 3 + 3 repetitions, interleaved; measured on a
        quiet machine; latency.value: …`` (``re-measure of 1:5 (the most likely step of
        latency.value, +12.0 %, below the walk's bar): …``)"""
        state = standing(self.outcome, final=self.final)
        what = f"{self.id} ({self.step})" if self.step else self.id
        return (
            f"re-measure of {what}: {state} after {self.counts[0]} + {self.counts[1]} "
            f"repetitions, interleaved; {self.waited.said()}; {self.reason}"
        )


@dataclass(frozen=True)
class Confirmed:
    """The changes of a walk after its re-measures: how many held, did not, are still
    undecided, could not be measured again (a checkout that no longer builds) or were
    left by the budget for the next walk or cycle; and each change measured again."""

    confirmed: int = 0
    not_confirmed: int = 0
    not_measured: int = 0
    undecided: int = 0
    left: int = 0
    remeasured: tuple[Remeasured, ...] = ()
    spent: str = ""  # the budget's settings, when it stopped a re-measure or left a change


def confirm_changes(
    walk: Walk,
    store: Store,
    config: Config,
    plan: WalkPlan,
    *,
    clock: Callable[[], datetime],
    budget: Budget,
) -> Confirmed:
    """Measure again every change of the walk's series that no re-measure decided yet,
    within ``budget``, and store what each re-measure found; count the changes the
    walk then reports."""
    series_id = walk.series_id
    targets = remeasure_targets(store, config, series_id)
    rows = store.confirmations.of_series(series_id)
    indexes = [i for t in targets for i in t.measured]
    places = planned_checkouts(store, plan, series_id, indexes)
    most = config.run.confirm_max_repetitions
    watch = MachineWatch(playing(config, walk.topology), walk.marker)
    done: list[Remeasured] = []
    not_measured = left = 0
    bound = config.run.confirm_wait
    with walk.measuring_again(min(budget.repetitions, 2 * most * len(targets))) as again:
        for target in targets:
            before, after = (places.get(i) for i in target.measured)
            if before is None or after is None:
                not_measured += 1
                continue
            if not budget.take(2):  # the first pair of it
                left += 1
                continue
            loop = _ChangeLoop(
                again, target, (before, after), rows.get((target.before_idx, target.after_idx))
            )
            waited = _wait(again, watch, before, bound, budget)
            if waited.quiet is False:  # a machine busy that long stays so: one reading next
                bound = min(bound, SAMPLE_SECONDS)
            # a most likely step has no other evidence: it must hold at the clear confidence
            confidence = max(config.try_.confidence, target.confidence)
            found = loop.run(budget, most=most, confidence=confidence)
            if found is None:
                not_measured += 1
                continue
            store.confirmations.add(
                series_id,
                (target.before_idx, target.after_idx),
                loop.first_repetitions(),
                held=all(a.held for a in found.values()),
                metrics=loop.metrics_json(found, confidence),
                measured_at=clock(),
                outcome=_outcome(found),
                final=all(a.final for a in found.values()),
                rounds=loop.rounds,
                waits=[*loop.waits, waited.record(clock())],
            )
            done.append(loop.remeasured(found, waited))
    counted = _counted(store, config, series_id, done, not_measured=not_measured, left=left)
    stopped = left or any(r.stopped for r in done)
    return replace(counted, spent=budget.what if stopped else "")


def _wait(
    again: Remeasure, watch: MachineWatch, at: PlannedCheckout, bound: float, budget: Budget
) -> Waited:
    """Wait for a quiet machine before a change's re-measure, up to ``bound`` seconds
    and no longer than the budget's time; the progress tells why it waits."""

    def told(why: str) -> None:
        again.progress.report(at.checkout, f"waiting for a quiet machine: {why}")

    seconds = budget.seconds_left()
    return wait_quiet(watch, bound if seconds is None else min(bound, seconds), told)


def _outcome(found: Mapping[tuple[str, str], Again]) -> str:
    """The change's: held when every metric held; not held when every metric is
    decided and one did not; undecided otherwise."""
    outcomes = [a.outcome for a in found.values()]
    if outcomes and all(o == HELD for o in outcomes):
        return HELD
    if all(a.final for a in found.values()) and NOT_HELD in outcomes:
        return NOT_HELD
    return UNDECIDED


def _counted(
    store: Store,
    config: Config,
    series_id: int,
    done: Sequence[Remeasured],
    *,
    not_measured: int,
    left: int,
) -> Confirmed:
    """The walk's changes counted by what their re-measures found."""
    rows = store.confirmations.of_series(series_id)
    counts = {HELD: 0, NOT_HELD: 0, UNDECIDED: 0}
    for event in find_changes(store, config, [series_id]):
        row = rows.get((event.before.idx, event.after.idx))
        if row is not None:
            outcome = row.outcome or (HELD if row.held else NOT_HELD)
            counts[outcome] += 1
    return Confirmed(
        confirmed=counts[HELD],
        not_confirmed=counts[NOT_HELD],
        not_measured=not_measured,
        undecided=counts[UNDECIDED],
        left=left,
        remeasured=tuple(done),
    )


@dataclass
class _ChangeLoop:
    """The re-measure of one change: its two checkouts in turns, a look after every
    pair; started anew, or measured on from its stored row."""

    again: Remeasure
    target: Target
    sides: tuple[PlannedCheckout, PlannedCheckout]  # before, after
    row: ConfirmationRow | None
    rounds: list[dict[str, Any]] = field(default_factory=list)
    waits: list[dict[str, Any]] = field(default_factory=list)
    values: dict[tuple[str, str], tuple[list[float], list[float]]] = field(default_factory=dict)
    added: int = 0
    stopped: str = ""  # why it stopped before a decision ("": it did not)

    def __post_init__(self) -> None:
        row = self.row
        if row is not None and not row.final and row.outcome is not None:
            self.rounds, self.waits = [dict(r) for r in row.rounds], [dict(w) for w in row.waits]
        for metric in self.target.metrics:
            stored = row.metric(metric.test, metric.name) if self.rounds and row else None
            self.values[(metric.test, metric.name)] = (
                list(numbers_in(stored.get("values_before"))) if stored else [],
                list(numbers_in(stored.get("values_after"))) if stored else [],
            )

    def run(
        self, budget: Budget, *, most: int, confidence: float
    ) -> dict[tuple[str, str], Again] | None:
        """Measure pairs (the first one taken from ``budget`` already) until every metric
        is decided, its most repetitions per side are reached or ``budget`` is spent;
        what each metric's re-measure found (None: a checkout did not build)."""
        pairs = len(self.rounds) // 2
        taken = True
        while True:
            if not taken and not budget.take(2):
                self.stopped = f"the budget ({budget.what}) is spent"
                break
            taken = False
            for _turn in range(2):
                one = self.again.once(self.sides[0 if side(len(self.rounds)) == "A" else 1])
                if one is None:
                    return None
                self._add(one)
            pairs += 1
            found = self._decide(most, confidence, pairs)
            if all(a.final for a in found.values()):
                return found
        return self._decide(most, confidence, pairs)

    def _add(self, one: OneMore) -> None:
        before = one.checkout == self.target.measured[0]
        self.added += 1
        self.rounds.append(
            {
                "side": "before" if before else "after",
                "checkout": one.checkout,
                "rep": one.rep,
                "loaded": repetition_loaded(one.states),
                "hosts": {host: _load(state) for host, state in sorted(one.states.items())},
            }
        )
        for metric in self.target.metrics:
            value = one_value(_values(one.results, metric))
            if value is not None:
                self.values[(metric.test, metric.name)][0 if before else 1].append(value)

    def _decide(self, most: int, confidence: float, pairs: int) -> dict[tuple[str, str], Again]:
        found = {}
        for metric in self.target.metrics:
            before, after = self.values[(metric.test, metric.name)]
            again = decide_again(
                before,
                after,
                levels=(metric.before, metric.after),
                higher_is_better=metric.higher_is_better,
                confidence=confidence,
                min_change=metric.min_change,
                most=most,
            )
            if pairs >= most and not again.final:  # a side lost values to failed tests
                again = _finished(again, f"no decision after the most of {most} per side")
            found[(metric.test, metric.name)] = again
        return found

    def first_repetitions(self) -> tuple[int, int]:
        """The first repetition measured again at each checkout."""
        first = {"before": -1, "after": -1}
        for entry in self.rounds:
            if first[entry["side"]] < 0:
                first[entry["side"]] = int(entry["rep"])
        return first["before"], first["after"]

    def metrics_json(
        self, found: Mapping[tuple[str, str], Again], confidence: float
    ) -> list[dict[str, Any]]:
        """Per metric, as the store keeps it."""
        out = []
        for metric in self.target.metrics:
            before, after = self.values[(metric.test, metric.name)]
            again = found[(metric.test, metric.name)]
            out.append(
                {
                    "test": metric.test,
                    "name": metric.name,
                    "before": metric.before,
                    "after": metric.after,
                    "measured_before": one_value(before),
                    "measured_after": one_value(after),
                    "held": again.held,
                    "values_before": before,
                    "values_after": after,
                    "outcome": again.outcome,
                    "final": again.final,
                    "change": finite_or_none(again.change),
                    "low": finite_or_none(again.low),
                    "high": finite_or_none(again.high),
                    "p_value": finite_or_none(again.p_value),
                    "level": finite_or_none(again.level),
                    "confidence": confidence,
                    "reason": again.reason,
                }
            )
        return out

    def remeasured(self, found: Mapping[tuple[str, str], Again], waited: Waited) -> Remeasured:
        counts = [sum(1 for r in self.rounds if r["side"] == s) for s in ("before", "after")]
        reasons = "; ".join(f"{test}.{name}: {a.reason}" for (test, name), a in found.items())
        final = all(a.final for a in found.values())
        if self.stopped and not final:
            reasons = f"{self.stopped}: the next walk or watch cycle measures on; {reasons}"
        return Remeasured(
            id=self.target.id,
            outcome=_outcome(found),
            final=final,
            counts=(counts[0], counts[1]),
            added=self.added,
            reason=reasons,
            waited=waited,
            stopped=bool(self.stopped) and not final,
            step=self.target.step,
        )


def _finished(again: Again, why: str) -> Again:
    return replace(again, final=True, reason=f"{why}: {again.reason}")


def _values(results: tuple[NewResult, ...], metric: Expected) -> list[float]:
    """The values of ``metric`` in one repetition's results (PASS only, finite)."""
    return [
        value.value
        for result in results
        if result.test == metric.test and result.status is Status.PASS
        for value, _direction in result.values
        if value.name == metric.name and math.isfinite(value.value)
    ]


def _load(state: MachineState) -> dict[str, Any]:
    """A host's load over one repetition, as a re-measure's round keeps it."""
    return {
        "load1": state.load1,
        "cores": state.cores,
        "others": None if state.others_cpu is None else round(state.others_cpu, 3),
        "runnable": state.runnable,
    }
