"""Change points of one metric: where its level moved, by how much, how surely.

The input is one set of repetitions per point (a checkout of a walk, or one line
of a file): ``[[48.1, 49.3, 48.1], [], [49.2], …]``. A set of one value is
allowed, an empty set (nothing measured there) is skipped. Each set becomes one
point, its median by default (the metric's summary when the caller gives one):
a checkout with five values is a steadier point than a checkout with one, so the
same step is found with fewer checkouts and a higher confidence. The search
itself is :func:`perfwalk.analysis.segmentation.segment`.

When every point is positive (times, rates, sizes), the search runs on their
logarithms: noise that grows with the level (a few per cent of it) is the same
everywhere, a step is a ratio, and a time and its rate (its inverse) change at
the same points by the same ratio. Levels are then geometric means.

Pure: numbers in, frozen results out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from perfwalk.analysis.float_arrays import floats
from perfwalk.analysis.noise import WHITE, Correlation
from perfwalk.analysis.scaled import exponent, median, ratio_change, scale, scaled
from perfwalk.analysis.segmentation import segment_in_range
from perfwalk.analysis.segments import DEFAULT_TUNING, Break, Drift, Excursion, Tuning

#: Two-sided coverage of the confidence intervals given with each change.
INTERVAL = 0.95
_Z_INTERVAL = NormalDist().inv_cdf(0.5 + INTERVAL / 2)

Reduce = Callable[[Sequence[float]], float]


@dataclass(frozen=True)
class ChangePoint:
    """A change of level; indexes are positions in the input sets.

    ``index`` is the first point of the new level, ``previous`` the last point of
    the old one (they differ when sets in between are empty). ``before``/``after``
    are the two levels: means of the points (geometric means when all points are
    positive), spikes replaced by their neighbours' median. ``relative`` is the
    change ``(after - before) / |before|`` with its confidence interval ``low`` …
    ``high`` (95 %); ``None`` when ``before`` is 0. ``z`` is the difference over its
    standard error (autocorrelation included); ``confidence`` is ``1 - p`` of that
    z, two-sided, not adjusted for the search: the detector only reports changes
    well above the noise (see ``docs/analysis.md`` for the false-alarm rate).
    """

    index: int
    previous: int
    before: float
    after: float
    difference: float
    difference_low: float
    difference_high: float
    relative: float | None
    low: float | None
    high: float | None
    z: float
    confidence: float
    points_before: int
    points_after: int
    edge: bool = False

    @property
    def rising(self) -> bool:
        return self.after > self.before


#: What an edge change says (``ChangePoint.edge``).
EDGE_NOTE = "at the edge: confirm with more checkouts"


@dataclass(frozen=True)
class Episode:
    """Something the series did that is not a step; indexes are positions in the input
    sets, ``end`` the first position after it.

    ``kind`` is ``"excursion"`` (points ``start`` … ``end - 1`` went away from the
    level ``before`` and came back to it: ``after`` is their level) or ``"drift"``
    (the level moved slowly from ``before`` at ``start`` to ``after`` at ``end - 1``,
    without a step). ``relative`` is ``(after - before) / |before|`` (None when
    ``before`` is 0), ``z`` the move over its standard error.
    """

    kind: str
    start: int
    end: int
    before: float
    after: float
    relative: float | None
    z: float
    confidence: float


@dataclass(frozen=True)
class Detection:
    """The changes of one series, oldest first, and what the search measured."""

    changes: tuple[ChangePoint, ...]
    points: int  # non-empty sets
    noise: float  # point-to-point noise (standard deviation), in the units of the data
    autocorrelation: float  # of the noise around the levels; 0 when none
    #: steps that leave fewer than ``min_size`` points at an end (``edge`` set)
    edges: tuple[ChangePoint, ...] = ()
    excursions: tuple[Episode, ...] = ()
    drifts: tuple[Episode, ...] = ()
    #: the noise's correlation and its factor for noise that is not Gaussian, as the
    #: test of a change weighed them (what :mod:`perfwalk.analysis.floor` needs)
    correlation: Correlation = WHITE
    noise_factor: float = 1.0


def find_change_points(
    sets: Sequence[Sequence[float]],
    *,
    tuning: Tuning = DEFAULT_TUNING,
    reduce: Reduce = median,
) -> Detection:
    """The level changes of a series of repetition sets (oldest first).

    Non-finite values are ignored; a set left empty is skipped. Raises
    ``ValueError`` for a ``reduce`` that returns a non-finite number.
    """
    positions, points = set_points(sets, reduce)
    ratios = bool(points) and min(points) > 0
    # points far from 1 are searched divided by 2**k (exact): no sum overflows, as no
    # sum of logarithms does
    k = 0 if ratios else exponent(points)
    if ratios:
        x: Sequence[float] = floats(np.fromiter(map(math.log, points), np.float64, len(points)))
    else:
        x = scaled(points, k)
    found = segment_in_range(x, tuning, logarithms=ratios)
    changes = tuple(_change(brk, positions, ratios, k) for brk in found.breaks)
    noise = found.noise * math.exp(found.center) if ratios else scale(found.noise, k)
    return Detection(
        changes,
        len(points),
        noise,
        found.autocorrelation,
        edges=tuple(_change(brk, positions, ratios, k, edge=True) for brk in found.edges),
        excursions=tuple(_episode(e, positions, ratios, k) for e in found.excursions),
        drifts=tuple(_episode(d, positions, ratios, k) for d in found.drifts),
        correlation=found.correlation,
        noise_factor=found.factor,
    )


def _episode(found: Excursion | Drift, positions: Sequence[int], ratios: bool, k: int) -> Episode:
    if isinstance(found, Excursion):
        kind, before, after = "excursion", found.base, found.level
    else:
        kind, before, after = "drift", found.first, found.last
    if ratios:
        relative: float | None = ratio_change(after - before)
        before, after = math.exp(before), math.exp(after)
    else:
        relative = (after - before) / abs(before) if before else None
        before, after = scale(before, k), scale(after, k)
    return Episode(
        kind=kind,
        start=positions[found.start],
        end=positions[found.end - 1] + 1,
        before=before,
        after=after,
        relative=relative,
        z=found.t,
        confidence=_confidence(found.t),
    )


def _change(
    brk: Break, positions: Sequence[int], ratios: bool, k: int, *, edge: bool = False
) -> ChangePoint:
    """A break of the search in the units of the data (of their logarithms when
    ``ratios``: levels are then geometric means and steps ratios; divided by
    ``2**k`` otherwise)."""
    half = _Z_INTERVAL * brk.stderr
    relative: tuple[float, float, float] | None
    if ratios:
        before, after = math.exp(brk.before), math.exp(brk.after)
        step = brk.after - brk.before
        relative = (ratio_change(step), ratio_change(step - half), ratio_change(step + half))
        diff_low, diff_high = before * relative[1], before * relative[2]
        difference = after - before
    else:
        step = brk.after - brk.before
        before, after = scale(brk.before, k), scale(brk.after, k)
        diff_low, diff_high = scale(step - half, k), scale(step + half, k)
        difference = scale(step, k)
        base = abs(brk.before)
        relative = (step / base, (step - half) / base, (step + half) / base) if base else None
    size, low, high = relative or (None, None, None)
    return ChangePoint(
        index=positions[brk.index],
        previous=positions[brk.index - 1],
        before=before,
        after=after,
        difference=difference,
        difference_low=diff_low,
        difference_high=diff_high,
        relative=size,
        low=low,
        high=high,
        z=brk.t,
        confidence=_confidence(brk.t),
        points_before=brk.size_before,
        points_after=brk.size_after,
        edge=edge,
    )


def set_points(
    sets: Sequence[Sequence[float]], reduce: Reduce
) -> tuple[Sequence[int], list[float]]:
    """The positions of the non-empty sets (non-finite values ignored) and their
    summaries, as the search reads them."""
    try:  # one value per point: the fast way
        flat = [value for (value,) in sets]
    except ValueError:  # a set of more or fewer values
        flat = []
    if flat and _all_finite(flat):
        return range(len(flat)), flat
    positions: list[int] = []
    points: list[float] = []
    for position, values in enumerate(sets):
        kept = [float(v) for v in values if math.isfinite(v)]
        if kept:
            point = float(reduce(kept))
            if not math.isfinite(point):
                raise ValueError(f"the summary of set {position} is not a finite number")
            positions.append(position)
            points.append(point)
    return positions, points


def _all_finite(values: list[float]) -> bool:
    """Whether every value is finite: their sum is then (one quick pass), unless it
    overflows."""
    try:
        if math.isfinite(sum(values)):
            return True
    except OverflowError:  # integers beyond the float range
        pass
    return all(map(math.isfinite, values))


def _confidence(z: float) -> float:
    """1 - two-sided normal p-value of ``z``."""
    return math.erf(abs(z) / math.sqrt(2))
