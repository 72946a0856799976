"""The candidate breaks of the search (:mod:`perfwalk.analysis.segmentation`, step 3):
moving sums over windows of 5, 10, 20, … points on each side of every position
(MOSUM); the local peaks of their difference above 2.5 local standard errors (more
for the smallest windows). Numbers in, positions out."""

from __future__ import annotations

import math
from bisect import bisect_left, insort

import numpy as np
from numpy.typing import NDArray

from perfwalk.analysis.break_test import BreakTest
from perfwalk.analysis.float_arrays import Floats, numbers, per_point

#: The smallest moving-sum window.
_FIRST_WINDOW = 5
#: Positions apart at which the smallest windows are evaluated.
_FIRST_STRIDE = 1
#: Small windows see more noise peaks: their candidate threshold is × (1 + this / w).
_SMALL_WINDOW = 2.0


def candidates(test: BreakTest, radius: dict[int, int]) -> list[int]:
    """Peaks of moving-sum differences over windows of 5, 10, 20, … points, each
    against the local noise where the windows meet, ascending; how far each may move
    is written in ``radius``."""
    n, ml = test.n, test.tuning.min_size
    S = numbers(test.S)
    sd = per_point(test.size, [math.sqrt(v) for v in test.blocks], n)
    S2 = S + S
    accepted: list[int] = []
    w = _FIRST_WINDOW
    while 2 * w <= n:
        stride = max(_FIRST_STRIDE, w // 4)
        diff = np.abs(S[2 * w :: stride] + S[: n - 2 * w + 1 : stride] - S2[w : n - w + 1 : stride])
        bar = test.tuning.candidate_threshold * (1 + _SMALL_WINDOW / w) * math.sqrt(2 * w)
        hits = np.flatnonzero(diff > sd[w : n - w + 1 : stride] * bar)
        spacing = max(ml, w // 2)
        for i in _peaks(diff, hits, max(1, (w // 2) // stride)):
            k = w + i * stride
            j = bisect_left(accepted, k)
            near = (j < len(accepted) and accepted[j] - k < spacing) or (
                j > 0 and k - accepted[j - 1] < spacing
            )
            if not near and 0 < k < n:
                insort(accepted, k)
                radius[k] = max(2, stride * 2)
        w *= 2
    return _to_the_ends(test, radius, accepted)


def _to_the_ends(test: BreakTest, radius: dict[int, int], accepted: list[int]) -> list[int]:
    """The candidates at the reach of the smallest window (``_FIRST_WINDOW`` points
    from an end), each at its best place between its neighbours and the end it
    faces: a step nearer an end than the window reaches peaks there, one point or
    more from where it is, and tested there it fails where it is tested in place
    (two steps of +25 % four points from each end of 16 points were both lost)."""
    n, ml, reach = test.n, test.tuning.min_size, _FIRST_WINDOW
    out = list(accepted)
    for i, k in enumerate(out):
        a = out[i - 1] if i else 0
        b = out[i + 1] if i + 1 < len(out) else n
        if k <= reach and a + ml < k:
            moved = test.best_split(a, b, a + ml, k)
        elif k >= n - reach and k < b - ml:
            moved = test.best_split(a, b, k, b - ml)
        else:
            continue
        radius[moved] = radius.pop(k)
        out[i] = moved
    return out


def _peaks(values: Floats, hits: NDArray[np.intp], radius: int) -> list[int]:
    """Indexes in ``hits`` that are the largest value within ``radius`` of themselves
    (ties: the first); ``hits`` ascending. The first and the last index, where the
    windows stop short of the series' ends, are peaks when they rise above their one
    neighbour: the peak they are the flank of lies beyond, nearer the end."""
    last = len(values) - 1
    v = values[hits]
    rises = ~((hits > 0) & (values[np.maximum(hits - 1, 0)] >= v))
    rises &= ~((hits < last) & (values[np.minimum(hits + 1, last)] > v))
    at_end = (hits == 0) | (hits == last) if last > 0 else np.zeros(len(hits), dtype=bool)
    around = np.clip(hits[:, None] + np.arange(-radius, radius + 1), 0, last)
    highest = values[around].max(axis=1, initial=-np.inf) <= v
    peaks: list[int] = hits[rises & (at_end | highest)].tolist()
    return peaks
