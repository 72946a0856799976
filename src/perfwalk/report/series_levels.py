"""The levels of a series' metrics over its whole history, as every page of it shows
them: the series page lists them all, and each table page gives, per row, the level
that the row's last checkout on the page belongs to.

A metric's points are its per-checkout summaries as the publish's change detection
read them (:class:`~perfwalk.analysis.levels.MetricPoints`: no second read of the
store); its levels begin where :meth:`SeriesContext.level_starts
<perfwalk.report.context.SeriesContext.level_starts>` says (after each detected
change, a drill's answer), so the series page and its table pages cut them at the
same checkouts and give the same figures.

The last level is still growing while the walk goes on: an older table page gives it
as far as that page goes (its figures then change only when a change is detected or
a checkout of it measured again, and a new checkout rewrites no older page); a level
that a later change closed is given whole on every page.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass

from perfwalk.analysis.floor import Sight
from perfwalk.analysis.levels import Level, MetricPoints, levels


@dataclass(frozen=True)
class Shown:
    """A level as a page gives it: its first and last checkouts (indexes) and its
    figures; ``whole`` is False when the page cuts the still growing last level at
    its own end (``last``)."""

    first: int
    last: int
    level: Level
    whole: bool


@dataclass(frozen=True)
class MetricLevels:
    """The levels of one metric of a series: its checkouts with a summary (``idxs``,
    ``points``: finite values only), its levels (positions in them) and the running
    sums of the points (to tell cheaply whether a page's figures changed)."""

    test: str
    name: str
    unit: str
    direction: str
    idxs: tuple[int, ...]
    points: tuple[float, ...]
    levels: tuple[Level, ...]
    sums: tuple[float, ...] = ()
    sight: Sight | None = None  # what the walk could see in it (its floor)

    @classmethod
    def of(cls, found: MetricPoints, starts: Iterable[int]) -> MetricLevels:
        """The levels of ``found`` beginning anew at the checkouts ``starts`` (a start
        at a checkout without a summary begins at the next one that has one)."""
        kept = [(i, v) for i, v in zip(found.idxs, found.points, strict=True) if math.isfinite(v)]
        idxs = tuple(i for i, _v in kept)
        points = tuple(v for _i, v in kept)
        begins = [bisect.bisect_left(idxs, s) for s in starts]
        found_levels = levels(points, begins)
        return cls(
            found.test,
            found.name,
            found.unit,
            found.direction,
            idxs,
            points,
            found_levels,
            tuple(itertools.accumulate(points, initial=0.0)),
            found.sight,
        )

    def whole(self, level: Level) -> Shown:
        return Shown(self.idxs[level.first], self.idxs[level.last], level, whole=True)

    def _span(self, first: int, last: int) -> tuple[int, int] | None:
        """(level number, position of the page's last checkout with a summary) for the
        page of checkouts ``first`` … ``last``; None when it has no summary there."""
        end = bisect.bisect_right(self.idxs, last)
        if end == 0 or self.idxs[end - 1] < first or not self.levels:
            return None
        at = end - 1
        number = bisect.bisect_right([x.first for x in self.levels], at) - 1
        return None if number < 0 else (number, at)

    def _cut(self, number: int, at: int) -> bool:
        """Whether the page whose last summary is at ``at`` cuts level ``number``: the
        last level, going on after the page."""
        return number + 1 == len(self.levels) and at < self.levels[number].last

    def shown(self, first: int, last: int) -> Shown | None:
        """The level a table page of checkouts ``first`` … ``last`` (indexes) gives:
        that of its last checkout with a summary; the last level cut at the page's
        end when it goes on after it. None when no checkout of the page has a summary."""
        span = self._span(first, last)
        if span is None:
            return None
        number, at = span
        level = self.levels[number]
        if not self._cut(number, at):
            return self.whole(level)
        (cut,) = levels(self.points[level.first : at + 1], ())
        before = self.levels[number - 1].median if number else None
        change = (cut.median - before) / abs(before) if before else None
        moved = dataclasses.replace(cut, first=level.first, last=at, change=change)
        return Shown(self.idxs[level.first], self.idxs[at], moved, whole=False)

    def page_key(self, first: int, last: int) -> list[object] | None:
        """What :meth:`shown` depends on, cheaply (no figure computed): the level's ends
        and the sums of its points (a value measured again changes them)."""
        span = self._span(first, last)
        if span is None:
            return None
        number, at = span
        level = self.levels[number]
        end = at if self._cut(number, at) else level.last
        total = self.sums[end + 1] - self.sums[level.first]
        before = self.levels[number - 1].median if number else None
        return [self.idxs[level.first], self.idxs[end], repr(total), repr(before)]
