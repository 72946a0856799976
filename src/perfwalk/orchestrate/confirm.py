"""Confirm before telling (``[run] confirm``): at the end of a walk, each change it
found and has not measured again yet is measured again, once, in a new round of
both its checkouts (:meth:`perfwalk.orchestrate.walk.Walk.measure_again`), and the
store keeps whether it held (:mod:`perfwalk.store.confirmations`, by the rule of
:mod:`perfwalk.analysis.confirmation`).

A change made by time (the machine got slower while the walk went from one
checkout to the next) does not hold: measured again side by side, its checkouts
no longer differ. A change made by a commit does. ``perfwalk changes`` and the site
then show the first as "not confirmed by a re-measure" (not to act on).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from perfwalk.analysis.confirmation import held, one_value
from perfwalk.config.model import Config
from perfwalk.model import Status
from perfwalk.orchestrate.changes import MetricChange, find_changes
from perfwalk.orchestrate.plan import WalkPlan
from perfwalk.orchestrate.remeasure import Remeasured
from perfwalk.orchestrate.walk import Walk
from perfwalk.store import Store
from perfwalk.store.records import NewResult


@dataclass(frozen=True)
class Confirmed:
    """The changes of a walk after its re-measures: how many held, how many did not,
    how many could not be measured again (a checkout that no longer builds)."""

    confirmed: int = 0
    not_confirmed: int = 0
    not_measured: int = 0


def confirm_changes(
    walk: Walk, store: Store, config: Config, plan: WalkPlan, clock: Callable[[], datetime]
) -> Confirmed:
    """Measure again every change of the walk's series not measured again yet, and
    store what each re-measure found; count the changes the walk then reports."""
    series_id = walk.series_id
    done = store.confirmations.of_series(series_id)
    planned = {p.checkout.index: p for p in plan.checkouts}
    todo = [
        event
        for event in find_changes(store, config, [series_id])
        if (event.before.idx, event.after.idx) not in done
        and event.before.idx in planned
        and event.after.idx in planned
    ]
    pairs = [(planned[e.before.idx], planned[e.after.idx]) for e in todo]
    not_measured = 0
    for event, again in zip(todo, walk.measure_again(pairs), strict=True):
        if again is None:
            not_measured += 1
            continue
        metrics = [_metric(m, again) for m in event.metrics]
        store.confirmations.add(
            series_id,
            (event.before.idx, event.after.idx),
            (again.before_rep, again.after_rep),
            held=all(m["held"] for m in metrics),
            metrics=metrics,
            measured_at=clock(),
        )
    events = find_changes(store, config, [series_id])
    return Confirmed(
        confirmed=sum(1 for e in events if e.confirmed is True),
        not_confirmed=sum(1 for e in events if e.confirmed is False),
        not_measured=not_measured,
    )


def _metric(change: MetricChange, again: Remeasured) -> dict[str, Any]:
    before = one_value(_values(again.before, change))
    after = one_value(_values(again.after, change))
    return {
        "test": change.test,
        "name": change.name,
        "before": change.before,
        "after": change.after,
        "measured_before": before,
        "measured_after": after,
        "held": (
            before is not None
            and after is not None
            and held(change.before, change.after, before, after)
        ),
    }


def _values(results: tuple[NewResult, ...], change: MetricChange) -> list[float]:
    return [
        value.value
        for result in results
        if result.test == change.test and result.status is Status.PASS
        for value, _direction in result.values
        if value.name == change.name
    ]
