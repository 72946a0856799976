"""How busy each host was, day by day, over the last weeks: what the host-use page shows.

From the busy spans the store recorded (:mod:`perfwalk.store.host_use`, one per
repetition and host), per host: the share of each day (a calendar day in the site's
time zone) it was busy, spans that overlap counted once; the hours busy and idle in
the window; and the walks it ran, with their repetitions, first and last, and the
queue's jobs that walked them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from perfwalk.report.times import SiteTimes, as_utc
from perfwalk.store.host_use import BusySpan

#: the days the page looks back over
DAYS = 28


@dataclass(frozen=True)
class HostWalk:
    """One walk (series) a host ran in the window."""

    series_id: int
    name: str
    repetitions: int
    first: datetime
    last: datetime
    jobs: tuple[int, ...]


@dataclass(frozen=True)
class HostDays:
    """One host over the window: its busy share per day (oldest first), its busy
    seconds, and its walks (newest first)."""

    host: str
    shares: tuple[float, ...]
    busy: float
    walks: tuple[HostWalk, ...]


def window(now: datetime, times: SiteTimes, days: int = DAYS) -> list[tuple[datetime, datetime]]:
    """The ``days`` calendar days (in the site's zone) up to the one of ``now``: each
    its start and end, in UTC, oldest first; the last ends at ``now``."""
    today = times.local(now).replace(hour=0, minute=0, second=0, microsecond=0)
    starts = [today - timedelta(days=back) for back in range(days - 1, -1, -1)]
    ends = [*starts[1:], times.local(now)]
    return [(as_utc(s), as_utc(e)) for s, e in zip(starts, ends, strict=True)]


def host_days(
    spans: Sequence[BusySpan],
    jobs: Mapping[int, Sequence[int]],
    now: datetime,
    times: SiteTimes,
    days: int = DAYS,
) -> list[HostDays]:
    """Every host with a span in the window, by name."""
    cells = window(now, times, days)
    begin = cells[0][0]
    by_host: dict[str, list[BusySpan]] = {}
    for span in spans:
        if as_utc(span.finished_at) >= begin:
            by_host.setdefault(span.host, []).append(span)
    found = []
    for host, own in sorted(by_host.items()):
        merged = _merged([(as_utc(s.started_at), as_utc(s.finished_at)) for s in own])
        shares = tuple(_share(merged, start, end) for start, end in cells)
        busy = sum(_overlap(merged, begin, cells[-1][1]))
        found.append(HostDays(host, shares, busy, _walks(own, jobs)))
    return found


def _walks(spans: Sequence[BusySpan], jobs: Mapping[int, Sequence[int]]) -> tuple[HostWalk, ...]:
    grouped: dict[int, list[BusySpan]] = {}
    for span in spans:
        grouped.setdefault(span.series_id, []).append(span)
    walks = [
        HostWalk(
            series_id=sid,
            name=own[0].series_name,
            repetitions=len(own),
            first=min(s.started_at for s in own),
            last=max(s.finished_at for s in own),
            jobs=tuple(jobs.get(sid, ())),
        )
        for sid, own in grouped.items()
    ]
    return tuple(sorted(walks, key=lambda w: (as_utc(w.last), w.series_id), reverse=True))


def _merged(spans: Sequence[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    """``spans`` with those that overlap joined, in order."""
    merged: list[tuple[datetime, datetime]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _overlap(
    merged: Sequence[tuple[datetime, datetime]], start: datetime, end: datetime
) -> list[float]:
    """The seconds of each span within ``start`` … ``end``."""
    return [
        max(0.0, (min(e, end) - max(s, start)).total_seconds())
        for s, e in merged
        if s < end and e > start
    ]


def _share(merged: Sequence[tuple[datetime, datetime]], start: datetime, end: datetime) -> float:
    length = (end - start).total_seconds()
    return 0.0 if length <= 0 else min(1.0, sum(_overlap(merged, start, end)) / length)
