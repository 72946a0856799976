"""The levels of one metric: its per-checkout summaries cut at the detected changes,
each piece described on its own.

Statistics over a whole history mean little once the metric has stepped: the mean of
two levels is neither, and their spread is the step, not the noise. A level is the
run of checkouts between two changes (or an end); its figures are those of its
checkouts' summaries only: how many, their median (the level, robust to a single
spike that is not a change), mean, minimum, maximum, sample and relative deviation,
and how far the level moved from the one before it.

Pure: numbers in, frozen results out.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from perfwalk.analysis.confirmation import moved
from perfwalk.analysis.floor import Sight
from perfwalk.analysis.summary import moments, relative_sd


@dataclass(frozen=True)
class Level:
    """One level: the points ``first`` … ``last`` (positions in the input, both with a
    value) and the figures of their ``n`` values. ``change`` is the relative move of
    the median from the previous level's, ``(median - previous) / |previous|``: None
    for the first level or from a median of 0."""

    first: int
    last: int
    n: int
    median: float
    mean: float
    min: float
    max: float
    sd: float
    rsd: float
    change: float | None


def levels(points: Sequence[float], starts: Iterable[int]) -> tuple[Level, ...]:
    """The levels of ``points`` (one per checkout, in order; NaN or infinite where a
    checkout has no summary) with a new level beginning at each position of
    ``starts`` (the first checkout after each change; out of range or repeated
    positions are ignored). A piece without any value is no level; a series without
    a change is one level; no value at all, no level."""
    bounds = sorted({s for s in starts if 0 < s < len(points)})
    found: list[Level] = []
    for lo, hi in zip([0, *bounds], [*bounds, len(points)], strict=True):
        at = [i for i in range(lo, hi) if math.isfinite(points[i])]
        figures = moments([points[i] for i in at])
        if figures is None:
            continue
        n, mean, median, low, high, sd = figures
        change = None
        if found and found[-1].median:
            before = found[-1].median
            change = (median - before) / abs(before)
        found.append(
            Level(at[0], at[-1], n, median, mean, low, high, sd, relative_sd(mean, sd), change)
        )
    return tuple(found)


@dataclass(frozen=True)
class MetricPoints:
    """One metric of a series as change detection read it: the checkouts (indexes)
    where it has a summary, in order, and that summary at each (by the metric's
    ``summary`` policy, over the values detection weighed); ``sight``: what the walk
    could see in it (None when not judged)."""

    test: str
    name: str
    unit: str
    direction: str
    idxs: tuple[int, ...]
    points: tuple[float, ...]
    sight: Sight | None = None

    @property
    def floor(self) -> float:
        """The smallest relative change the walk could have seen in it that matters:
        its floor, at least its ``min_change`` (a count that never varies sees any
        change, and one below its min_change is none); inf: none."""
        if self.sight is None:
            return math.inf
        return max(self.sight.floor.relative, self.sight.min_change)

    def moved(self, before: int, after: int, points_before: int, points_after: int) -> float | None:
        """How it moved between the medians of its last ``points_before`` summaries up
        to checkout ``before`` and its first ``points_after`` from checkout ``after``
        (None: no summary on a side)."""
        pairs = list(zip(self.idxs, self.points, strict=True))
        old = [v for i, v in pairs if i <= before][-points_before:]
        new = [v for i, v in pairs if i >= after][:points_after]
        if not old or not new:
            return None
        return moved(statistics.median(old), statistics.median(new))
