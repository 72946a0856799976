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

A :class:`Target` is a change to measure again: its two checkouts and the levels each
metric moved between; its re-measure is stored and read back by its two checkouts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfwalk.analysis.verdict import State
from perfwalk.config.model import Config
from perfwalk.drill.schedule import Verdict
from perfwalk.model import Checkout, Direction
from perfwalk.orchestrate.changes import ChangeEvent, find_changes
from perfwalk.orchestrate.plan import PlannedCheckout, WalkPlan
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
    why: str  # suspect, undecided, at the edge, not measured again yet, measured on
    #: the two checkouts measured again: up to :data:`AROUND` checkouts out from the
    #: change's own, within its two levels (its key stays the change's two checkouts)
    measured: tuple[int, int] = (0, 0)


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


def remeasure_targets(store: Store, config: Config, series_id: int) -> list[Target]:
    """The steps of walk ``series_id`` to measure again, in the order to measure them:
    those measured on first, then the suspect ones, the undecided, those at the edge, the rest;
    the larger first within each."""
    from perfwalk.config.policy import metric_policy  # the configuration, imported by a store user

    rows = store.confirmations.of_series(series_id)
    order_of = [row.idx for row in store.checkouts(series_id)]
    found: list[tuple[int, float, Target]] = []
    order = ("measured on", "suspect", "undecided", "at the edge", "not measured again yet")
    for event in find_changes(store, config, [series_id]):
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
        found.append((order.index(why), -size, target))
    found.sort(key=lambda item: item[:2])
    return [target for _rank, _size, target in found]


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
