"""Which steps of a walk the re-measure loop measures again (``[run] confirm``,
``[watch] confirm``), most doubtful first, and where each checkout is on the walked
line.

A change is measured again (:func:`wanted`) until a re-measure decided it (held, not
held, or undecided at its most repetitions: a stored row that is ``final``), never
after; before that, while it is in doubt (:func:`doubtful`): when its verdict is
suspect (the machine's state explains it) or undecided (at the edge of its series, or
found below the clear confidence), or when only its walk confirmed it and no drill
answered it (a drill's culprit, range or NO-CHANGE answers it). A change whose
re-measure the budget stopped undecided is measured on.

A metric the walk could not judge (too noisy to see a change of its ``min_change``:
:attr:`perfwalk.analysis.floor.Sight.undecided`) has its most likely step measured
again (:func:`most_likely_steps`), after the doubtful changes and before the changes
only their walk confirmed: held (its two sides differ its way by more than its
``min_change``), it is a change of its own (:mod:`perfwalk.orchestrate.findings.metric_search`);
not held or left undecided, the metric stays undecided and says what it found.

A :class:`Target` is a change to measure again: its two checkouts and the levels each
metric moved between; its re-measure is stored and read back by its two checkouts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from perfwalk.analysis.levels import MetricPoints
from perfwalk.analysis.scaled import median
from perfwalk.analysis.verdict import CLEAR, State
from perfwalk.change_ids import change_id
from perfwalk.config.model import Config
from perfwalk.drill import Verdict
from perfwalk.model import Checkout, Direction
from perfwalk.orchestrate.findings.change_events import ChangeEvent, naming_digits
from perfwalk.orchestrate.findings.changes import find_all
from perfwalk.orchestrate.walk.plan import PlannedCheckout, WalkPlan
from perfwalk.quantities import format_size
from perfwalk.store import Store
from perfwalk.store.confirmations import ConfirmationRow

#: the drill verdicts that answer a change (an undecided drill does not)
ANSWERED = frozenset({Verdict.CULPRIT.value, Verdict.RANGE.value, Verdict.NO_CHANGE.value})


#: how many checkouts out from a change's own two its re-measure measures, on each side,
#: within its levels: a detector may place a step a checkout or two away from where it
#: is (the tolerance bench/changepoints.py grants), and two checkouts of the same code
#: side by side would show no change and refute a real one
AROUND = 2


@dataclass(frozen=True)
class Expected:
    """A metric's step as the walk saw it: its levels before and after, which way is
    better and the smallest change that counts."""

    test: str
    name: str
    before: float
    after: float
    higher_is_better: bool
    min_change: float


@dataclass(frozen=True)
class Target:
    """A step to measure again between two checkouts of a walk: a change it found
    (its id, as ``perfwalk changes`` names it), and the metrics that moved there."""

    id: str
    before_idx: int
    after_idx: int
    metrics: tuple[Expected, ...]
    why: str  # suspect, undecided, at the edge, most likely step, not measured again yet, …
    #: the two checkouts measured again: up to :data:`AROUND` checkouts out from the
    #: change's own, within its two levels (its key stays the change's two checkouts)
    measured: tuple[int, int] = (0, 0)
    #: a metric's most likely step, not a change the walk found: what it is, in words
    step: str = ""
    #: the least confidence (%) its re-measure decides at (``[try] confidence`` if more)
    confidence: float = 0.0


def wanted(event: ChangeEvent, row: ConfirmationRow | None) -> str:
    """Why ``event`` is to be measured again ("" when it is not): ``row`` is its stored
    re-measure (a final one decided it: never again; one the budget stopped: measured
    on)."""
    if row is not None:
        return "" if row.final else "measured on"
    return doubtful(event)


def doubtful(event: ChangeEvent) -> str:
    """Why a change no re-measure measured yet is still in doubt ("" when it is not):
    its verdict (:mod:`perfwalk.analysis.verdict`) is suspect or undecided (at the edge
    of its series, or found below the clear confidence), or it is confirmed by its walk
    alone and no drill answered it. The one place that says which changes the loop
    measures again; a refuted change never is."""
    state = event.verdict.state
    if state is State.SUSPECT:
        return "suspect"
    if state is State.UNDECIDED:
        return "at the edge" if any(m.edge for m in event.metrics) else "undecided"
    answered = any(m.drilled is not None and m.drilled.answer in ANSWERED for m in event.metrics)
    if state is State.CONFIRMED and not answered:
        return "not measured again yet"
    return ""


#: the order the loop measures its targets in, by why
ORDER = (
    "measured on",
    "suspect",
    "undecided",
    "at the edge",
    "most likely step",
    "not measured again yet",
)


def remeasure_targets(store: Store, config: Config, series_id: int) -> list[Target]:
    """The steps of walk ``series_id`` to measure again, in the order to measure them
    (:data:`ORDER`): those measured on first, then the suspect changes, the undecided,
    those at the edge, the most likely steps of the metrics the walk could not judge,
    the rest; the larger first within each."""
    from perfwalk.config.policy import metric_policy  # the configuration, imported by a store user

    rows = store.confirmations.of_series(series_id)
    checkouts = store.checkouts(series_id)
    order_of = [row.idx for row in checkouts]
    found: list[tuple[int, float, Target]] = []
    findings = find_all(store, config, [series_id])
    for event in findings.changes:
        why = wanted(event, rows.get((event.before.idx, event.after.idx)))
        if not why:
            continue
        metrics = tuple(
            Expected(
                m.test,
                m.name,
                m.before,
                m.after,
                m.direction is Direction.HIGHER,
                metric_policy(config, m.test, m.name, m.unit, m.direction).min_change,
            )
            for m in event.metrics
        )
        size = max(abs(m.size) for m in event.metrics)
        out = min(AROUND, *(min(m.checkouts_before, m.checkouts_after) - 1 for m in event.metrics))
        measured = around(order_of, event.before.idx, event.after.idx, max(0, out))
        target = Target(event.id, event.before.idx, event.after.idx, metrics, why, measured)
        found.append((ORDER.index(why), -size, target))
    taken = {(target.before_idx, target.after_idx) for _rank, _size, target in found}
    named = naming_digits(store.series(series_id), checkouts)
    sha = {c.idx: c.sha for c in checkouts}

    def name(idx: int) -> str:  # as perfwalk changes will name the change it holds
        return change_id(series_id, idx, sha[idx], digits=named.get(sha[idx]))

    points = findings.points.get(series_id, [])
    for size, step in most_likely_steps(points, rows, order_of, name):
        if (step.before_idx, step.after_idx) not in taken:  # else a change's re-measure's
            taken.add((step.before_idx, step.after_idx))
            found.append((ORDER.index(step.why), -size, step))
    found.sort(key=lambda item: item[:2])
    return [target for _rank, _size, target in found]


def most_likely_steps(
    points: Sequence[MetricPoints],
    rows: Mapping[tuple[int, int], ConfirmationRow],
    order: Sequence[int],
    name: Callable[[int], str],
) -> list[tuple[float, Target]]:
    """The most likely step of each metric the walk could not judge (``points``: the
    series' searched metrics), that no re-measure decided yet (``rows``: the series'
    re-measures, by their two checkouts): its two checkouts, and up to :data:`AROUND`
    more on each side (``order``: the walk's checkout indexes). Its levels are the
    level before it and one ``min_change`` away, its way: the re-measure asks whether
    the metric changed there by more than its ``min_change`` (any change that
    matters), not by the size the noise lent the step; and as nothing else says the step
    is there, it must hold at the confidence a walk's detection needs to confirm a
    change by itself (:data:`perfwalk.analysis.verdict.CLEAR`), whatever ``[try]
    confidence`` says. Each with its size (the walk's guess), named by ``name`` of its
    checkout after, as its change would be."""
    out = []
    for metric in points:
        sight = metric.sight
        if sight is None or not sight.undecided or (step := sight.floor.candidate) is None:
            continue
        row = rows.get((step.previous, step.index))
        if row is not None and (row.final or row.metric(sight.test, sight.name) is None):
            continue  # decided, or a change's re-measure measured other metrics there
        level = [v for i, v in zip(metric.idxs, metric.points, strict=True) if i <= step.previous]
        before = median(level) if level else math.nan
        if not math.isfinite(before) or before == 0:
            continue
        expected = Expected(
            sight.test,
            sight.name,
            before,
            before * (1 + math.copysign(sight.min_change, step.relative)),
            metric.direction == Direction.HIGHER.value,
            sight.min_change,
        )
        words = (
            f"the most likely step of {sight.metric}, {format_size(step.relative)}, "
            "below the walk's bar"
        )
        measured = around(order, step.previous, step.index, AROUND)
        why = "measured on" if row is not None else "most likely step"
        target = Target(
            name(step.index),
            step.previous,
            step.index,
            (expected,),
            why,
            measured,
            words,
            confidence=100 * CLEAR,
        )
        out.append((abs(step.relative), target))
    return out


def around(order: Sequence[int], before: int, after: int, out: int) -> tuple[int, int]:
    """The checkouts ``out`` places before ``before`` and after ``after`` in the walk's
    ``order`` of checkout indexes (as far as it goes); the two themselves when either
    is not in it."""
    if before not in order or after not in order:
        return before, after
    first, last = order.index(before) - out, order.index(after) + out
    return order[max(first, 0)], order[min(last, len(order) - 1)]


def planned_checkouts(
    store: Store, plan: WalkPlan, series_id: int, indexes: Sequence[int]
) -> Mapping[int, PlannedCheckout]:
    """The checkouts of ``indexes`` as a walk builds them: those of the plan as planned,
    the others (a named walk's earlier checkouts) placed on the line the plan walks;
    a checkout whose commit is not on it any more is left out."""
    found = {p.checkout.index: p for p in plan.checkouts if p.checkout.index in indexes}
    missing = [i for i in indexes if i not in found]
    if not missing or not plan.checkouts:
        return found
    history = plan.repo.first_parent(plan.checkouts[-1].checkout.commit)
    where = {commit: position for position, (commit, _date) in enumerate(history)}
    for row in store.checkouts(series_id):
        if row.idx in missing and row.sha in where:
            checkout = Checkout(row.idx, row.sha, row.date, quirks=row.quirks)
            found[row.idx] = PlannedCheckout(checkout, where[row.sha])
    return found
