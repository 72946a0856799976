"""Last night: when the last walk run or watch cycle ran, what it added (checkouts per
walk), the new regressions and builds broken (by alert group: one per culprit) and
tests newly failing among its checkouts, and when the site was published. The index
shows it as a strip on top (:mod:`perfwalk.report.pages.last_night`), red when the
last run ended longer ago than ``[watch] stale_after`` (twice the schedule unless
set): a cron that stopped then reads as stopped, not as a quiet night. ``perfwalk
status`` without a series says the same in one paragraph (:meth:`LastNight.said`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from perfwalk.analysis.breaks import BUILD, TEST
from perfwalk.quantities import many
from perfwalk.report.change_groups import grouped
from perfwalk.report.change_list import ListedChange
from perfwalk.report.times import SiteTimes, as_utc
from perfwalk.store import Store
from perfwalk.store.run_records import WATCH, RunRecord


@dataclass(frozen=True)
class WalkAdded:
    """A walk of the last run: its name ("" for a walk not named), its series and the
    checkouts it added."""

    name: str
    series_id: int | None
    checkouts: int

    @property
    def label(self) -> str:
        return self.name or f"series {self.series_id}"


@dataclass(frozen=True)
class LastNight:
    """The last run (``kind`` walk or watch, from ``started_at`` to ``finished_at``), its
    walks, what their new checkouts brought, when the site was published (None: not
    known) and after how many seconds without a run the runs count as stopped."""

    kind: str
    started_at: datetime
    finished_at: datetime
    walks: tuple[WalkAdded, ...]
    regressions: int
    builds_broken: int
    tests_failing: int
    stale_after: float
    published_at: datetime | None = None

    def age(self, now: datetime) -> float:
        """Seconds since the last run ended."""
        return (as_utc(now) - as_utc(self.finished_at)).total_seconds()

    def stale(self, now: datetime) -> bool:
        """Whether the last run ended longer ago than ``stale_after``."""
        return self.age(now) > self.stale_after

    def title(self) -> str:
        return "last watch cycle" if self.kind == WATCH else "last walk"

    def ran(self, times: SiteTimes) -> str:
        """``2026-11-28 03:00–03:42`` (the end's day written when it is another)."""
        start, end = times.minute(self.started_at), times.minute(self.finished_at)
        same_day = start[:10] == end[:10]
        return f"{start}–{end[11:] if same_day else end}"

    def added(self) -> str:
        """``nightly +3 checkouts, per-commit +0``, or ``no walk``."""
        told = [f"{w.label} +{many(w.checkouts, 'checkout')}" for w in self.walks]
        return ", ".join(told) or "no walk"

    def found(self) -> str:
        """``1 new regression, 0 builds broken, 2 tests newly failing``"""
        return (
            f"{many(self.regressions, 'new regression')}, "
            f"{self.builds_broken} build{'' if self.builds_broken == 1 else 's'} broken, "
            f"{self.tests_failing} test{'' if self.tests_failing == 1 else 's'} newly failing"
        )

    def stale_text(self, now: datetime) -> str:
        """What the strip and ``status`` add when the runs look stopped."""
        return (
            f"stale: no run for {span(self.age(now))}, "
            f"more than {span(self.stale_after)} ([watch] stale_after)"
        )

    def said(self, times: SiteTimes, now: datetime) -> str:
        """The one paragraph of ``perfwalk status`` without a series."""
        text = (
            f"The {self.title()} ran {self.ran(times)} ({times.said()}, "
            f"ended {span(self.age(now))} ago): {self.added()}; {self.found()}"
        )
        if self.published_at is not None:
            text += f"; site published {times.minute(self.published_at)}"
        text += "."
        if self.stale(now):
            text += f" Stale: {self.stale_text(now).removeprefix('stale: ')}."
        return text


def span(seconds: float) -> str:
    """``45 seconds``, ``12 minutes``, ``5 hours``, ``3 days`` (rounded down)."""
    seconds = max(0.0, seconds)
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            return many(int(seconds // size), unit)
    return many(int(seconds), "second")


def last_night(
    store: Store,
    changes: Sequence[ListedChange],
    *,
    stale_after: float,
    published_at: datetime | None = None,
) -> LastNight | None:
    """The last run of ``store`` (None: no run ended yet) and what its walks' new
    checkouts brought among ``changes`` whose step ends at one of them (a refuted one
    is not counted): the regressions and builds broken counted by alert group (a
    culprit that slowed 100 metrics is one new regression), the tests newly failing
    by test."""
    last = store.runs.last()
    if last is None:
        return None
    walks = store.runs.walks_of(last)
    new = [
        c
        for walk in walks
        if walk.series_id is not None and walk.first_idx is not None
        for c in changes
        if c.series_id == walk.series_id and c.after_idx >= walk.first_idx and not c.refuted
    ]
    return LastNight(
        kind=last.kind,
        started_at=last.started_at,
        finished_at=last.finished_at,
        walks=tuple(_added(w) for w in walks),
        regressions=len(grouped(c for c in new if c.regression and not c.broke)),
        builds_broken=len(grouped(c for c in new if c.broke == BUILD)),
        tests_failing=len({c.test for c in new if c.broke == TEST}),
        stale_after=stale_after,
        published_at=published_at,
    )


def _added(record: RunRecord) -> WalkAdded:
    return WalkAdded(record.name, record.series_id, record.checkouts)
