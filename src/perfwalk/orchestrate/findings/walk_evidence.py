"""What the walk itself knows of a change besides its step: what the re-measure of
its two checkouts found (``[run] confirm``, :mod:`perfwalk.store.confirmations`),
what its test's instruments did across it (the witnesses of its verdict), and the
``[[snapshot]]`` counters around its tests that moved with it, per unit of work
(:mod:`perfwalk.analysis.counter_moves`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from perfwalk.analysis.counter_moves import PER_SECOND, CounterRates, moved_with
from perfwalk.analysis.levels import MetricPoints
from perfwalk.analysis.verdict import Witness
from perfwalk.config.instruments import counts_work, load_immune
from perfwalk.config.model import Config
from perfwalk.numbers import number_in, numbers_in
from perfwalk.orchestrate.findings.change_events import ChangeEvent, MetricChange, Remeasure
from perfwalk.store.confirmations import ConfirmationRow
from perfwalk.store.records import PassedValue, SnapshotSpan

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


def with_counters(
    events: list[ChangeEvent],
    spans: Sequence[SnapshotSpan],
    rows: Sequence[PassedValue],
    position: Mapping[int, int],
    config: Config | None,
) -> list[ChangeEvent]:
    """``events`` (the changes of one series) each with the snapshot counters around its
    tests that moved with it (:func:`perfwalk.analysis.counter_moves.moved_with`): each
    counter's difference per unit of the work its ``[[snapshot]]`` names for the test
    (``per``), else per second between the two snapshots."""
    if not spans or not events:
        return events
    rates = counter_rates(spans, rows, position, config)
    changes = [(position[e.before_idx], position[e.after_idx]) for e in events]
    found = []
    for event in events:
        tests = {m.test for m in event.metrics}
        moved = moved_with(
            [c for c in rates if c.test in tests],
            before=position[event.before_idx],
            after=position[event.after_idx],
            checkouts_before=min(m.checkouts_before for m in event.metrics),
            checkouts_after=min(m.checkouts_after for m in event.metrics),
            changes=changes,
        )
        found.append(replace(event, counters=moved) if moved else event)
    return found


def counter_rates(
    spans: Sequence[SnapshotSpan],
    rows: Sequence[PassedValue],
    position: Mapping[int, int],
    config: Config | None,
) -> list[CounterRates]:
    """Each counter's rate in every repetition, by checkout position: its difference
    divided by the test's metric of work in that repetition (a repetition without it
    or with 0 gives none), or by the seconds between the two snapshots."""
    work = {(c, r, f"{test}.{name}"): value for c, r, test, name, _u, value, _d in rows}
    configs = {} if config is None else {s.name: s for s in config.snapshots}
    found: dict[tuple[str, str, str, str, str], list[list[float]]] = {}
    for span in spans:
        at = position.get(span.checkout_idx)
        if at is None:
            continue
        snapshot = configs.get(span.name)
        per = snapshot.work(span.test) if snapshot is not None else ""
        if per:
            unit = work.get((span.checkout_idx, span.repetition_idx, per), math.nan)
        else:
            unit = span.seconds if span.seconds is not None else math.nan
        if not unit or not math.isfinite(unit):
            continue
        for name, after in span.after.items():
            before = span.before.get(name)
            if before is None:
                continue
            key = (span.name, span.role, span.test, name, per or PER_SECOND)
            if key not in found:
                found[key] = [[] for _ in position]
            found[key][at].append((after - before) / unit)
    return [
        CounterRates(snapshot, role, test, counter, per, rates)
        for (snapshot, role, test, counter, per), rates in found.items()
    ]
