"""What perfwalk knows of each change besides its walk, gathered for its verdict
(:mod:`perfwalk.analysis.verdict`): the newest drill across its commits, the newest
try of them (or of the culprit a drill named and its parent), and the same change
found by another machine's walk of the same project among the series analysed
together. The re-measures (``[run] confirm``) are read with each series
(:mod:`perfwalk.orchestrate.findings.walk_evidence`).

A drill and a try measure the plain checkout: a variant's change gets neither.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from perfwalk.analysis.verdict import CLEAR, Drilled, Elsewhere, Tried
from perfwalk.numbers import number_in
from perfwalk.orchestrate.findings.change_events import ChangeEvent, MetricChange
from perfwalk.store import Store
from perfwalk.store.drills import DrillRow
from perfwalk.store.records import SeriesRow
from perfwalk.store.tries import TryRow

#: the kinds of series whose changes another machine's walk may confirm (or be)
_MEASURED_KINDS = ("walk", "push")


@dataclass(frozen=True)
class _Drills:
    """The newest finished drill across two commits, by (before, after, test, name) and
    by (before, after)."""

    by_metric: dict[tuple[str, str, str, str], DrillRow]
    by_ends: dict[tuple[str, str], DrillRow]


def with_evidence(
    store: Store, series: Sequence[SeriesRow], events: Sequence[ChangeEvent]
) -> list[ChangeEvent]:
    """``events`` (of ``series``), each metric with its drill, try and other machines'
    evidence, and each event ruled out by the newest drill across it when that drill
    answered NO-CHANGE."""
    drills = _drills(store.drills.all())
    tries = _tries(store.tries.all())
    by_id = {s.id: s for s in series}
    others = _elsewhere_index(events, by_id)
    judged = []
    for event in events:
        ends = (event.before.sha, event.after.sha)
        newest = drills.by_ends.get(ends) if event.variant is None else None
        metrics = tuple(
            _metric_evidence(event, m, drills=drills, tries=tries, others=others, series=by_id)
            for m in event.metrics
        )
        ruled_out = newest.series_id if newest and newest.verdict == "no-change" else None
        judged.append(replace(event, metrics=metrics, ruled_out_by=ruled_out))
    return judged


def _metric_evidence(
    event: ChangeEvent,
    metric: MetricChange,
    *,
    drills: _Drills,
    tries: Mapping[tuple[str, str], TryRow],
    others: Mapping[tuple[str, str, bool], list[tuple[ChangeEvent, MetricChange]]],
    series: Mapping[int, SeriesRow],
) -> MetricChange:
    ends = (event.before.sha, event.after.sha)
    drilled = tried = None
    if event.variant is None:  # a drill and a try measure the plain checkout
        row = drills.by_metric.get((*ends, metric.test, metric.name)) or drills.by_ends.get(ends)
        if row is not None:
            drilled = _drilled(row, metric)
        tried = _tried(tries, ends, metric)
        if row is not None and row.verdict == "culprit" and tried is None:
            answer = row.answer or {}
            lo, culprit = answer.get("lo"), answer.get("culprit")
            if isinstance(lo, str) and isinstance(culprit, str):
                found = _tried(tries, (lo, culprit), metric)
                tried = None if found is None else replace(found, culprit=True)
    elsewhere = _elsewhere(event, metric, others, series)
    return replace(metric, drilled=drilled, tried=tried, elsewhere=elsewhere)


def _drills(rows: Iterable[DrillRow]) -> _Drills:
    """In one pass over the drills, oldest first (the newest wins)."""
    found = _Drills({}, {})
    for row in rows:
        before, after = row.change.get("before_sha"), row.change.get("after_sha")
        if row.verdict is None or not (isinstance(before, str) and isinstance(after, str)):
            continue
        found.by_metric[(before, after, row.test, row.name)] = row
        found.by_ends[(before, after)] = row
    return found


def _drilled(row: DrillRow, metric: MetricChange) -> Drilled:
    answer = row.answer or {}
    culprit = answer.get("culprit")
    same = (row.test, row.name) == (metric.test, metric.name)
    return Drilled(
        drill=row.series_id,
        answer=row.verdict or "",
        culprit=culprit if isinstance(culprit, str) else None,
        lo=str(answer.get("lo") or ""),
        hi=str(answer.get("hi") or ""),
        confidence=number_in(answer.get("confidence")),
        # another metric's size is not this one's
        size=number_in(answer.get("relative")) if same else None,
        reason=str(answer.get("reason") or ""),
        metric="" if same else f"{row.test}.{row.name}",
    )


def _tries(rows: Iterable[TryRow]) -> dict[tuple[str, str], TryRow]:
    """The newest finished try of each two commits (plain: no patch, no variant)."""
    found: dict[tuple[str, str], TryRow] = {}
    for row in rows:  # newest first
        if row.stopped and not row.patches and row.variant is None:
            found.setdefault((row.base_sha, row.head_sha), row)
    return found


def _tried(
    tries: Mapping[tuple[str, str], TryRow], ends: tuple[str, str], metric: MetricChange
) -> Tried | None:
    row = tries.get(ends)
    if row is None:
        return None
    for said in row.verdicts:
        if (said.get("test"), said.get("name")) == (metric.test, metric.name):
            p = number_in(said.get("mann_whitney_p"))
            return Tried(
                series=row.series_id,
                answer=str(said.get("verdict") or ""),
                size=number_in(said.get("change")),
                confidence=None if p is None else 1 - p,
            )
    return None


def _machine(series: SeriesRow) -> str:
    """The machine a series was measured on: its fingerprint's host name, else its host."""
    name = series.fingerprint.get("hostname")
    return name if isinstance(name, str) and name else series.host


def _elsewhere_index(
    events: Sequence[ChangeEvent], series: Mapping[int, SeriesRow]
) -> dict[tuple[str, str, bool], list[tuple[ChangeEvent, MetricChange]]]:
    """The metric changes of plain walks (and pushes) by test, name and way."""
    found: dict[tuple[str, str, bool], list[tuple[ChangeEvent, MetricChange]]] = {}
    for event in events:
        row = series.get(event.series_id)
        if row is None or row.kind not in _MEASURED_KINDS or event.variant is not None:
            continue
        for metric in event.metrics:
            found.setdefault((metric.test, metric.name, metric.regression), []).append(
                (event, metric)
            )
    return found


def _elsewhere(
    event: ChangeEvent,
    metric: MetricChange,
    others: Mapping[tuple[str, str, bool], list[tuple[ChangeEvent, MetricChange]]],
    series: Mapping[int, SeriesRow],
) -> tuple[Elsewhere, ...]:
    """The same change (metric, way, a commit in common) in another machine's walk of
    the same project."""
    own = series.get(event.series_id)
    if own is None or own.kind not in _MEASURED_KINDS or event.variant is not None:
        return ()
    commits = {c.id for c in event.commits} or {event.after.sha}
    found = []
    for other, change in others.get((metric.test, metric.name, metric.regression), ()):
        row = series[other.series_id]
        if row.project != own.project or _machine(row) == _machine(own):
            continue
        if not commits & ({c.id for c in other.commits} or {other.after.sha}):
            continue
        found.append(
            Elsewhere(
                label=change.found_in or f"series {change.series_id}",
                machine=_machine(row),
                size=change.size,
                confidence=change.confidence,
                clear=not change.edge and change.confidence >= CLEAR and not change.suspect,
            )
        )
    return tuple(found)
