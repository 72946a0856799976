"""The noise scale of a series, from its neighbour differences, and its spikes:
points between two near jumps that come back, replaced by the level around them
(steps 1 and 2 of :mod:`perfwalk.analysis.segmentation`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import sub

import numpy as np
from numpy.typing import NDArray

from perfwalk.analysis.float_arrays import Floats, numbers

#: Fraction of the neighbour differences kept by the noise scale.
_KEPT = 0.8
#: A jump larger than this (noise units) between neighbours may border a spike.
_JUMP = 4.0
#: Jumps at most this many points apart enclose a run of spikes.
_NEIGHBOURS = 4
#: Half-width of the median a marked point is compared with.
REFERENCE = 6
#: a point is no spike when more than 1 / _DENSE of the points around it are marked
_DENSE = 2


def noise_scale(x: Sequence[float]) -> float:
    """Trimmed root mean square of neighbour differences, as a standard deviation."""
    return jump_scale(list(map(abs, map(sub, x[1:], x[:-1]))))


def jump_scale(jumps: Sequence[float]) -> float:
    """The noise scale from the absolute neighbour differences (a sample of about
    10 000 of them for long series)."""
    if not len(jumps):
        return 0.0
    sample = np.sort(numbers(jumps)[:: max(1, len(jumps) // 10_000)])
    kept = max(1, int(len(sample) * _KEPT))
    mean_square = math.fsum((sample[:kept] * sample[:kept]).tolist()) / kept
    return math.sqrt(mean_square / _trimmed_variance(kept / len(sample)) / 2)


def _trimmed_variance(fraction: float) -> float:
    """E[Z² | |Z| ≤ q] for the central ``fraction`` of a standard normal Z."""
    if fraction >= 1.0:
        return 1.0
    q = _normal_quantile(0.5 + fraction / 2)
    density = math.exp(-q * q / 2) / math.sqrt(2 * math.pi)
    return 1 - 2 * q * density / fraction


def _normal_quantile(p: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


def median_in_place(values: list[float]) -> float:
    """The median of ``values``, sorted in place."""
    values.sort()
    m = len(values)
    return values[m // 2] if m % 2 else 0.5 * (values[m // 2 - 1] + values[m // 2])


def despike(
    x: list[float], squares: Sequence[float], variances: Sequence[float], clip: float
) -> tuple[list[float], list[int]]:
    """``x`` without its spikes: the points between two jumps larger than 4 local noise
    units at most 4 points apart that come back (the point after them lies nearer the
    point before them than they do), and a first or last point beyond such a jump
    that carries it (:func:`_carried`), are replaced by
    the median of their 13 neighbours when they lie more than ``clip`` local noise
    units from it (``squares[i] = (x[i+1] - x[i])²``, ``variances`` the local noise
    variance of each point). A lone step has one jump and is left alone, and so is a
    step followed by a smaller wobble at its new level; a spike whose own neighbours
    (the two points on each side of it, the three next to an end) hold a level farther
    from that median than the spike is from them is replaced by their level: just
    after a step, most of its 13 neighbours are still at the old one."""
    replaced, levels = spikes(numbers(x), numbers(squares), variances, clip)
    y = list(x)
    for i, level in zip(replaced, levels, strict=True):
        y[i] = level
    return y, replaced


def spikes(
    x: Floats, squares: Floats, variances: Sequence[float], clip: float
) -> tuple[list[int], list[float]]:
    """The points :func:`despike` replaces, ascending, and what it replaces them with."""
    n = len(x)
    at = np.flatnonzero(squares > numbers(variances)[: len(squares)] * (_JUMP * _JUMP))
    marked, levels = _runs(x, at)
    outer = {*at[:1].tolist(), *at[-1:].tolist()}  # the first and the last jump
    for i in sorted({0, n - 2} & outer):  # a spike at either end has a jump on one side only
        end, inner = (0, range(1, 4)) if i == 0 else (n - 1, range(n - 4, n - 1))
        level = median_in_place([float(x[m]) for m in inner if 0 <= m < n])
        if _carried(float(x[end]), float(x[1 if end == 0 else n - 2]), level):
            at_end = np.array([end])
            marked = np.concatenate((at_end, marked) if end == 0 else (marked, at_end))
            levels = np.concatenate(([level], levels) if end == 0 else (levels, [level]))
    # jumps everywhere around a point: noise of two modes, not a spike
    lo, hi = np.maximum(marked - REFERENCE, 0), np.minimum(marked + REFERENCE + 1, n)
    counted = np.zeros(n + 1, dtype=np.int64)
    counted[marked + 1] = 1
    counted = np.cumsum(counted)
    alone = (counted[hi] - counted[lo]) * _DENSE <= hi - lo
    marked, levels, lo, hi = marked[alone], levels[alone], lo[alone], hi[alone]
    refs = _medians_around(x, marked, lo, hi)
    limit = clip * clip
    replaced, by = [], []
    values, noise = x[marked].tolist(), numbers(variances)[marked].tolist()
    for i, level, ref, value, variance in zip(
        marked.tolist(), levels.tolist(), refs, values, noise, strict=True
    ):
        # its neighbours are at a new level: their level, not the median
        by_now = level if abs(level - ref) > abs(value - level) else ref
        if (value - by_now) ** 2 > limit * variance:
            replaced.append(i)
            by.append(by_now)
    return replaced, by


def _runs(x: Floats, at: NDArray[np.intp]) -> tuple[NDArray[np.intp], Floats]:
    """The points between two jumps at most ``_NEIGHBOURS`` apart (``at``: after which
    points the jumps are) that come back (:func:`despike`), ascending, and the level of
    their neighbours (the median of the two points on each side of the run)."""
    n = len(x)
    first, second = at[:-1], at[1:]
    near = second - first <= _NEIGHBOURS
    first, second = first[near], second[near]
    before = x[first]
    inside = first[:, None] + np.arange(1, _NEIGHBOURS + 1)
    away = np.where(
        inside <= second[:, None], np.abs(x[np.minimum(inside, n - 1)] - before[:, None]), 0.0
    ).max(axis=1, initial=0.0)
    back = np.abs(x[second + 1] - before) < away / 2
    first, second = first[back], second[back]
    around = np.stack((first - 1, first, second + 1, second + 2), axis=1)
    four = np.sort(x[np.clip(around, 0, n - 1)], axis=1)
    levels = 0.5 * (four[:, 1] + four[:, 2])
    for j in np.flatnonzero((first == 0) | (second + 2 >= n)).tolist():  # at an end: fewer
        levels[j] = median_in_place([float(x[m]) for m in around[j].tolist() if 0 <= m < n])
    counts = second - first
    starts = np.repeat(first + 1 - np.cumsum(counts) + counts, counts)
    return np.arange(len(starts)) + starts, np.repeat(levels, counts)


def _medians_around(
    x: Floats, at: NDArray[np.intp], lo: NDArray[np.intp], hi: NDArray[np.intp]
) -> list[float]:
    """The median of points ``lo`` … ``hi - 1`` around each point ``at`` (``REFERENCE``
    on each side, fewer near the ends)."""
    width = 2 * REFERENCE + 1
    whole = hi - lo == width
    out = np.empty(len(at))
    windows = x[lo[whole][:, None] + np.arange(width)]
    out[whole] = np.sort(windows, axis=1)[:, REFERENCE]
    medians = out.tolist()
    for j in np.flatnonzero(~whole).tolist():
        medians[j] = median_in_place(x[lo[j] : hi[j]].tolist())
    return medians


def _carried(end: float, inner: float, level: float) -> bool:
    """Whether the jump from its neighbour ``inner`` carries the end point ``end`` at
    least half of its way from the ``level`` next to it: the last point of a step
    that began just before, a little off its new level, is no spike."""
    return abs(end - inner) >= abs(end - level) / 2
