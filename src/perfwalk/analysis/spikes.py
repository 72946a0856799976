"""The noise scale of a series, from its neighbour differences, and its spikes:
points between two near jumps that come back, replaced by the level around them
(steps 1 and 2 of :mod:`perfwalk.analysis.segmentation`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from operator import mul, sub

import numpy as np

from perfwalk.analysis.float_arrays import numbers

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
    if not jumps:
        return 0.0
    sample = sorted(jumps[:: max(1, len(jumps) // 10_000)])
    kept = max(1, int(len(sample) * _KEPT))
    mean_square = math.fsum(map(mul, sample[:kept], sample[:kept])) / kept
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
    units at most 4 points apart that come back (:func:`_comes_back`), and a first or
    last point beyond such a jump that carries it (:func:`_carried`), are replaced by
    the median of their 13 neighbours when they lie more than ``clip`` local noise
    units from it (``squares[i] = (x[i+1] - x[i])²``, ``variances`` the local noise
    variance of each point). A lone step has one jump and is left alone, and so is a
    step followed by a smaller wobble at its new level; a spike whose own neighbours
    (the two points on each side of it, the three next to an end) hold a level farther
    from that median than the spike is from them is replaced by their level: just
    after a step, most of its 13 neighbours are still at the old one."""
    n = len(x)
    y = list(x)
    jumps = numbers(squares)
    at: list[int] = np.flatnonzero(
        jumps > numbers(variances)[: len(jumps)] * (_JUMP * _JUMP)
    ).tolist()
    marked: dict[int, float] = {}  # a spike's index → the level around it
    for i, k in pairwise([*at, n + _NEIGHBOURS]):  # each jump and the next one
        if k - i <= _NEIGHBOURS and _comes_back(x, i, k):
            level = median_in_place([x[m] for m in (i - 1, i, k + 1, k + 2) if 0 <= m < n])
            marked.update(dict.fromkeys(range(i + 1, k + 1), level))
        if i in (0, n - 2):  # a spike at either end has a jump on one side only
            end, inner = (0, range(1, 4)) if i == 0 else (n - 1, range(n - 4, n - 1))
            level = median_in_place([x[m] for m in inner if 0 <= m < n])
            if _carried(x[end], x[1 if end == 0 else n - 2], level):
                marked[end] = level
    replaced = []
    limit = clip * clip
    for i, level in sorted(marked.items()):
        around = range(max(0, i - REFERENCE), min(n, i + REFERENCE + 1))
        if sum(map(marked.__contains__, around)) * _DENSE > len(around):
            continue  # jumps everywhere around it: noise of two modes, not a spike
        ref = median_in_place(x[around.start : around.stop])
        if abs(level - ref) > abs(x[i] - level):  # its neighbours are at a new level
            ref = level
        if (x[i] - ref) ** 2 > limit * variances[i]:
            y[i] = ref
            replaced.append(i)
    return y, replaced


def _carried(end: float, inner: float, level: float) -> bool:
    """Whether the jump from its neighbour ``inner`` carries the end point ``end`` at
    least half of its way from the ``level`` next to it: the last point of a step
    that began just before, a little off its new level, is no spike."""
    return abs(end - inner) >= abs(end - level) / 2


def _comes_back(x: list[float], first: int, second: int) -> bool:
    """Whether the points between the jumps after ``first`` and after ``second`` are
    an excursion: the point after them lies nearer the point before them than they do
    (a step followed by a smaller wobble at its new level is no spike)."""
    before, after = x[first], x[second + 1]
    away = max(abs(v - before) for v in x[first + 1 : second + 1])
    return abs(after - before) < away / 2
