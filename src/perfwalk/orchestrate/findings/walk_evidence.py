"""What the walk itself knows of a change besides its step: what the re-measure of
its two checkouts found (``[run] confirm``, :mod:`perfwalk.store.confirmations`), and
what its test's instruments did across it (the witnesses of its verdict).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from perfwalk.analysis.levels import MetricPoints
from perfwalk.analysis.verdict import Witness
from perfwalk.config.instruments import counts_work, load_immune
from perfwalk.numbers import number_in, numbers_in
from perfwalk.orchestrate.findings.change_events import ChangeEvent, MetricChange, Remeasure
from perfwalk.store.confirmations import ConfirmationRow

#: an instrument's change this many checkouts from a metric's own is the same one
#: (a detector may place a step a checkout or two away)
WITNESS_NEAR = 2


def witnessed(
    change: MetricChange,
    points: Sequence[MetricPoints],
    moved: Mapping[tuple[str, str, int], MetricChange],
    position: Mapping[int, int],
) -> MetricChange:
    """``change`` (of a metric that is no instrument's) with what each instrument of
    its test that counts the code's work (:func:`perfwalk.config.instruments.counts_work`)
    did across it (:class:`perfwalk.analysis.verdict.Witness`): its own change
    there (``moved``: every change of the series by test, metric and the position of its
    first checkout; within :data:`WITNESS_NEAR` checkouts), else its move between the
    medians of the change's two levels, and the smallest change it could have seen."""
    if load_immune(change.name):
        return change
    at = position[change.after_idx]
    witnesses = []
    for metric in points:
        if metric.test != change.test or not counts_work(metric.name):
            continue
        near = [
            moved[key]
            for shift in sorted(range(-WITNESS_NEAR, WITNESS_NEAR + 1), key=abs)
            if (key := (metric.test, metric.name, at + shift)) in moved
        ]
        if near:
            witnesses.append(Witness(metric.name, near[0].size, found=True))
            continue
        size = metric.moved(
            change.before_idx, change.after_idx, change.checkouts_before, change.checkouts_after
        )
        witnesses.append(Witness(metric.name, size, found=False, floor=metric.floor))
    return replace(change, witnesses=tuple(witnesses)) if witnesses else change


def remeasured_event(event: ChangeEvent, row: ConfirmationRow | None) -> ChangeEvent:
    """``event`` with what the re-measure of its two checkouts found for each metric."""
    if row is None:
        return event
    metrics = [
        replace(metric, remeasured=stored_remeasure(row, metric.test, metric.name))
        for metric in event.metrics
    ]
    return replace(event, metrics=tuple(metrics))


def stored_remeasure(row: ConfirmationRow, test: str, name: str) -> Remeasure | None:
    """What the re-measure ``row`` found for the metric ``test.name`` (None: it did not
    measure that metric)."""
    found = row.metric(test, name)
    if found is None:
        return None
    return Remeasure(
        number_in(found.get("measured_before")),
        number_in(found.get("measured_after")),
        bool(found.get("held")),
        outcome=str(found.get("outcome") or row.outcome or ""),
        final=bool(found.get("final", row.final)),
        values_before=numbers_in(found.get("values_before")),
        values_after=numbers_in(found.get("values_after")),
        change=number_in(found.get("change")),
        low=number_in(found.get("low")),
        high=number_in(found.get("high")),
        p_value=number_in(found.get("p_value")),
        confidence=number_in(found.get("confidence")),
        reason=str(found.get("reason") or ""),
        rounds=row.rounds,
    )
