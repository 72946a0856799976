"""Where a series of numbers changes level: the search behind the change detector.

Numbers in, break points out; no I/O, no clock, no randomness. The steps, each
linear or nearly so in the length of the series (pure Python, about 0.08 s of CPU
for 100 000 points):

1. **Noise scale** ``s``: the root mean square of the differences between
   neighbouring points, trimmed to the central 80 % (steps and spikes are in the
   trimmed tail), corrected to a standard deviation. Every threshold below is in
   units of ``s``, which makes the result independent of the scale of the data.
2. **Spikes**: the points between two jumps larger than 4 ``s`` at most 4 points
   apart (a spike, or a run of two or three), and a first or last point beyond
   such a jump, are replaced by the median of their 13 neighbours when they lie
   more than 2.5 ``s`` from it. A step has one jump and keeps its points.
3. **Candidates**: moving sums of 5, 10, 20, … points on each side of every
   position (MOSUM); local peaks above 2.5 standard errors (more for the smallest
   windows) are candidate breaks. Small windows find close changes (a
   staircase), large ones small changes on long levels.
4. **Backward elimination**: the weakest candidate is removed until each break
   left passes the test below against its two neighbouring levels; after each
   removal the neighbours move to their best place (least squares) near where
   they were. Then every level is searched once for a break the candidates missed.
5. **Test of a break**: the difference of the means of the two levels over its
   standard error, the noise of the two levels pooled with the series' noise (10
   points of weight) and widened for residual autocorrelation (slow drifts of the
   machine between checkouts: neighbouring residuals that agree are less
   evidence). A break stands when this reaches
   ``threshold × √(1 + (short_level / ℓ)²)``, ``ℓ`` the shorter level (a short
   level has more places to be, and the mean of few points has heavier tails: at
   12 points the bar is 8 % higher, at 5 points 41 %), when the difference is at
   least ``min_effect`` noise units and both levels hold ``min_size`` points.

The first elimination uses ``s``; the second the noise left around the levels it
found (larger when the noise is not Gaussian, e.g. bimodal) and the lag-1
autocorrelation of those residuals. Then each break moves to its best place near
where it is.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections.abc import Sequence
from dataclasses import dataclass, replace
from heapq import heapify, heappop, heappush
from itertools import accumulate, compress, count, pairwise, repeat
from operator import add, gt, mul, sub, truediv

from perfwalk.analysis.scaled import exponent, scale, scaled

#: Fraction of the neighbour differences kept by the noise scale.
_KEPT = 0.8
#: A jump larger than this (noise units) between neighbours may border a spike.
_JUMP = 4.0
#: Jumps at most this many points apart enclose a run of spikes.
_NEIGHBOURS = 4
#: Half-width of the median a marked point is compared with.
_REFERENCE = 6
#: The smallest moving-sum window.
_FIRST_WINDOW = 5
#: Positions apart at which the smallest windows are evaluated.
_FIRST_STRIDE = 1
#: How far the last pass may move a break.
_POLISH = 8
#: Long ranges are searched for the best split on a grid of about this many points first.
_GRID = 64
#: Small windows see more noise peaks: their candidate threshold is × (1 + this / w).
_SMALL_WINDOW = 2.0


@dataclass(frozen=True)
class Tuning:
    """The knobs of the search; the defaults are the measured ones (docs/analysis.md).

    ``threshold``: standard errors a break must reach on long levels; ``short_level``:
    how the bar rises for short ones; ``min_effect``: the smallest step, in noise
    units; ``min_size``: the fewest points of a level; ``candidate_threshold``: the
    moving-sum peaks worth a look; ``clip``: how far (noise units) a point between
    two jumps may lie from its neighbours' median before it is taken for a spike;
    ``prior_weight``: how many points the series' noise weighs against the local
    noise of two levels.
    """

    threshold: float = 4.2
    short_level: float = 5.0
    min_effect: float = 1.0
    min_size: int = 3
    candidate_threshold: float = 2.5
    clip: float = 2.5
    prior_weight: float = 10.0

    def __post_init__(self) -> None:
        if self.min_size < 1:
            raise ValueError("min_size must be at least 1")
        knobs = (self.threshold, self.candidate_threshold, self.clip, self.short_level)
        if not all(0 < knob < math.inf for knob in knobs):  # NaN too: it would find nothing
            raise ValueError("thresholds must be positive finite numbers")
        if not 0 <= self.min_effect < math.inf or not 0 <= self.prior_weight < math.inf:
            raise ValueError("min_effect and prior_weight must be finite and not negative")


@dataclass(frozen=True)
class Break:
    """A change of level at point ``index`` (the first point of the new level).

    Levels are means (spikes replaced) in the units of the data; ``stderr`` is the standard
    error of ``after - before`` (autocorrelation included); ``t`` the test statistic
    (``(after - before) / stderr``); ``size_before``/``size_after`` the number of
    points of each level.
    """

    index: int
    before: float
    after: float
    stderr: float
    t: float
    size_before: int
    size_after: int


@dataclass(frozen=True)
class Segmentation:
    breaks: tuple[Break, ...]
    noise: float  # the noise scale s, in the units of the data
    autocorrelation: float  # of the residuals, 0 when none or negative
    center: float  # the median of the points (of a sample of 2000 of them)


#: The measured defaults.
DEFAULT_TUNING = Tuning()


def segment(points: Sequence[float], tuning: Tuning = DEFAULT_TUNING) -> Segmentation:
    """The level changes of ``points`` (finite numbers, oldest first)."""
    x = list(points)
    if not all(map(math.isfinite, x)):
        raise ValueError("points must be finite numbers")
    return segment_finite(x, tuning)


def segment_finite(x: list[float], tuning: Tuning = DEFAULT_TUNING) -> Segmentation:
    """:func:`segment` of points known to be finite (not checked again).

    Points far from 1 (``1e308``, ``1e-300``) are searched divided by a power of two
    (exact, and the search does not depend on the scale): its sums never overflow.
    """
    k = exponent(x)
    if k:
        found = _segment(scaled(x, k), tuning)
        breaks = tuple(
            replace(
                b,
                before=scale(b.before, k),
                after=scale(b.after, k),
                stderr=scale(b.stderr, k),
            )
            for b in found.breaks
        )
        return Segmentation(
            breaks, scale(found.noise, k), found.autocorrelation, scale(found.center, k)
        )
    return _segment(x, tuning)


def _segment(x: list[float], tuning: Tuning) -> Segmentation:
    n = len(x)
    if n < 2 * tuning.min_size:
        return Segmentation((), _noise_scale(x), 0.0, _median(list(x)) if x else 0.0)
    search = _Search(x, tuning)
    return search.run()


def _noise_scale(x: Sequence[float]) -> float:
    """Trimmed root mean square of neighbour differences, as a standard deviation."""
    return _scale_of_jumps(list(map(abs, map(sub, x[1:], x[:-1]))))


def _scale_of_jumps(jumps: list[float]) -> float:
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


def _median(values: list[float]) -> float:
    values.sort()
    m = len(values)
    return values[m // 2] if m % 2 else 0.5 * (values[m // 2 - 1] + values[m // 2])


def _despike(x: list[float], jumps: list[float], limit: float, clip: float) -> list[float]:
    """``x`` without its spikes: the points between two jumps larger than ``limit``
    at most 4 points apart (``jumps[i] = |x[i+1] - x[i]|``), and a first or last point
    beyond such a jump, are replaced by the median of their 13 neighbours when they
    lie more than ``clip`` from it. A lone step has one jump and is left alone."""
    n = len(x)
    y = list(x)
    at = list(compress(count(), map(gt, jumps, repeat(limit))))
    marked: set[int] = set()
    for j, i in enumerate(at):
        if j + 1 < len(at) and at[j + 1] - i <= _NEIGHBOURS:
            marked.update(range(i + 1, at[j + 1] + 1))
        if i in (0, n - 2):  # a spike at either end has a jump on one side only
            marked.add(0 if i == 0 else n - 1)
    for i in marked:
        ref = _median(x[max(0, i - _REFERENCE) : i + _REFERENCE + 1])
        if abs(x[i] - ref) > clip:
            y[i] = ref
    return y


class _Search:
    """One run of the search; sums over the points minus their median."""

    def __init__(self, x: list[float], tuning: Tuning) -> None:
        self.tuning = tuning
        self.n = n = len(x)
        sample = x[:: max(1, n // 2001)]
        self.center = _median(list(sample))
        jumps = list(map(abs, map(sub, x[1:], x[:-1])))
        self.noise = _scale_of_jumps(jumps)
        largest = max(1e-100, *map(abs, sample))
        self.scale = max(self.noise, 1e-12 * largest)  # noise-free data
        despiked = _despike(x, jumps, _JUMP * self.scale, tuning.clip * self.scale)
        y = list(map(sub, despiked, repeat(self.center)))  # centred: exact sums
        self.y = y
        self.S = [0.0, *accumulate(y)]
        self.Q = [0.0, *accumulate(map(mul, y, y))]
        self.sigma2 = self.scale**2  # the noise variance the test uses
        self.inflation = 1.0  # autocorrelation factor on standard errors
        self.radius: dict[int, int] = {}
        self.searched: set[tuple[int, int]] = set()  # levels complete() found nothing in

    # -- the whole search -------------------------------------------------------------

    def run(self) -> Segmentation:
        found = self.complete(self.eliminate(self.candidates()))
        if found:
            self.sigma2 = max(self.sigma2, self.residual_variance(found))
        rho = min(0.9, max(0.0, self.residual_autocorrelation(found))) if found else 0.0
        self.inflation = math.sqrt((1 + rho) / (1 - rho))
        found = self.polish(self.complete(self.eliminate(found)))
        edges = [0, *found, self.n]
        if min(b - a for a, b in pairwise(edges)) < self.tuning.min_size:
            found = self.eliminate(found)  # a break polished too near another one
        return Segmentation(tuple(self.describe(found)), self.noise, rho, self.center)

    # -- candidates ------------------------------------------------------------------

    def candidates(self) -> list[int]:
        """Peaks of moving-sum differences over windows of 5, 10, 20, … points."""
        n, S, ml = self.n, self.S, self.tuning.min_size
        S2 = list(map(add, S, S))
        accepted: list[int] = []
        w = _FIRST_WINDOW
        while 2 * w <= n:
            stride = max(_FIRST_STRIDE, w // 4)
            diff = list(
                map(
                    abs,
                    map(
                        sub,
                        map(add, S[2 * w :: stride], S[: n - 2 * w + 1 : stride]),
                        S2[w : n - w + 1 : stride],
                    ),
                )
            )
            limit = (
                self.tuning.candidate_threshold
                * (1 + _SMALL_WINDOW / w)
                * math.sqrt(2 * w)
                * self.scale
            )
            hits = list(compress(count(), map(gt, diff, repeat(limit))))
            spacing = max(ml, w // 2)
            for i in _peaks(diff, hits, max(1, (w // 2) // stride)):
                k = w + i * stride
                j = bisect_left(accepted, k)
                near = (j < len(accepted) and accepted[j] - k < spacing) or (
                    j > 0 and k - accepted[j - 1] < spacing
                )
                if not near and 0 < k < n:
                    insort(accepted, k)
                    self.radius[k] = max(2, stride * 2)
            w *= 2
        return accepted

    # -- the test of one break -------------------------------------------------------

    def level(self, a: int, b: int) -> tuple[float, float]:
        """Mean (minus the centre) and sum of squared deviations of points a..b-1."""
        total = self.S[b] - self.S[a]
        mean = total / (b - a)
        return mean, max(0.0, self.Q[b] - self.Q[a] - total * mean)

    def stats(self, a: int, c: int, b: int) -> tuple[float, float]:
        """(difference of the levels, its standard error) for a break at c in a..b-1."""
        l1, l2 = c - a, b - c
        m1, ss1 = self.level(a, c)
        m2, ss2 = self.level(c, b)
        prior = self.tuning.prior_weight
        var = (ss1 + ss2 + prior * self.sigma2) / (l1 + l2 - 2 + prior)
        return m2 - m1, math.sqrt(var * (1 / l1 + 1 / l2)) * self.inflation

    def score(self, a: int, c: int, b: int) -> float:
        """How strongly a break at c stands against a..c-1 and c..b-1: keep it at ≥ threshold."""
        tuning = self.tuning
        shorter = min(c - a, b - c)
        diff, se = self.stats(a, c, b)
        t = abs(diff) / se
        if shorter < tuning.min_size:
            return -1.0 / (1.0 + t)  # below every real score: removed first, weakest first
        score = t / math.hypot(1.0, tuning.short_level / shorter)
        effect = abs(diff) / math.sqrt(self.sigma2)
        if effect < tuning.min_effect:
            score = min(score, tuning.threshold * effect / tuning.min_effect)
        return score

    # -- backward elimination ----------------------------------------------------------

    def eliminate(self, found: list[int]) -> list[int]:
        """Remove the weakest break until every one left passes; neighbours move to
        their best place after each removal."""
        if not found:
            return []
        n = self.n
        pos = [0, *found, n]  # sentinels at both ends
        last = len(pos) - 1
        prev = list(range(-1, last))
        nxt = list(range(1, last + 2))
        version = [0] * len(pos)
        heap = [(self.score(pos[j - 1], pos[j], pos[j + 1]), 0, j) for j in range(1, last)]
        heapify(heap)
        alive = [True] * len(pos)
        threshold = self.tuning.threshold

        def rescore(j: int) -> None:
            if 0 < j < last and alive[j]:
                version[j] += 1
                heappush(heap, (self.score(pos[prev[j]], pos[j], pos[nxt[j]]), version[j], j))

        while heap:
            value, ver, j = heappop(heap)
            if not alive[j] or ver != version[j]:
                continue
            if value >= threshold:
                break
            alive[j] = False
            p, q = prev[j], nxt[j]
            nxt[p], prev[q] = q, p
            for k in (p, q):
                if 0 < k < last:
                    moved = self.relocate(pos[prev[k]], pos[k], pos[nxt[k]])
                    if moved != pos[k]:
                        self.radius[moved] = self.radius.get(pos[k], 2)
                        pos[k] = moved
                        rescore(prev[k])
                        rescore(nxt[k])
                    rescore(k)
        return [pos[j] for j in range(1, last) if alive[j]]

    def relocate(self, a: int, c: int, b: int) -> int:
        """The best break between a and b within the search radius of c (possibly too
        near a or b: the test then removes it rather than move it away from its place)."""
        r = self.radius.get(c, 2)
        lo, hi = max(a + 1, c - r), min(b - 1, c + r)
        if lo > hi:
            return c
        return self.best_split(a, b, lo, hi)

    def best_split(self, a: int, b: int, lo: int, hi: int) -> int:
        """argmax over k in lo..hi of the standardised CUSUM of a..b-1 (least squares);
        over long ranges first on a grid of about 512 points, then around its best."""
        step = (hi - lo) // _GRID
        if step > 1:
            k = self._best_split(a, b, lo, hi, step)
            return self._best_split(a, b, max(lo, k - step), min(hi, k + step), 1)
        return self._best_split(a, b, lo, hi, 1)

    def _best_split(self, a: int, b: int, lo: int, hi: int, step: int) -> int:
        S = self.S
        mean = (S[b] - S[a]) / (b - a)
        if hi - lo < 24:
            best_k, best = lo, -1.0
            base = S[a]
            for k in range(lo, hi + 1):
                d = S[k] - base - (k - a) * mean
                v = d * d / ((k - a) * (b - k))
                if v > best:
                    best_k, best = k, v
            return best_k
        hi -= (hi - lo) % step
        cells = (hi - lo) // step
        line = accumulate(repeat(mean * step, cells), initial=S[a] + (lo - a) * mean)
        dev = list(map(sub, S[lo : hi + 1 : step], line))
        weight = map(mul, range(lo - a, hi - a + 1, step), range(b - lo, b - hi - 1, -step))
        values = list(map(truediv, map(mul, dev, dev), weight))
        return lo + step * values.index(max(values))

    def polish(self, found: list[int]) -> list[int]:
        """Each break at its best place between its final neighbours, near where it is."""
        out = list(found)
        for j, c in enumerate(out):
            a = out[j - 1] if j else 0
            b = out[j + 1] if j + 1 < len(out) else self.n
            self.radius[c] = max(_POLISH, self.radius.get(c, 2))
            out[j] = self.relocate(a, c, b)
        return out

    def complete(self, found: list[int]) -> list[int]:
        """Search each level once for one break the candidates missed."""
        ml = self.tuning.min_size
        threshold = self.tuning.threshold
        edges = [0, *found, self.n]
        extra = []
        for a, b in pairwise(edges):
            if b - a >= 2 * ml and (a, b) not in self.searched:
                k = self.best_split(a, b, a + 1, b - 1)  # a split too near an end is no level
                if min(k - a, b - k) >= ml and self.score(a, k, b) >= threshold:
                    extra.append(k)
                    self.radius[k] = max(2, ml)
                else:  # the test only gets stricter: no need to look again
                    self.searched.add((a, b))
        if not extra:
            return found
        return self.eliminate(sorted(found + extra))

    # -- the noise left ----------------------------------------------------------------

    def residual_variance(self, found: list[int]) -> float:
        edges = [0, *found, self.n]
        ss = math.fsum(self.level(a, b)[1] for a, b in pairwise(edges))
        return ss / max(1, self.n - len(found) - 1)

    def residual_autocorrelation(self, found: list[int]) -> float:
        """Lag-1 autocorrelation of the points around their level's mean."""
        S, y = self.S, self.y
        edges = [0, *found, self.n]
        num = den = 0.0
        for a, b in pairwise(edges):
            m, ss = self.level(a, b)
            den += ss
            if b - a > 1:
                lag = sum(map(mul, y[a : b - 1], y[a + 1 : b]))
                inner = (S[b - 1] - S[a]) + (S[b] - S[a + 1])
                num += lag - m * inner + (b - a - 1) * m * m
        return num / den if den > 0 else 0.0

    # -- results -----------------------------------------------------------------------

    def describe(self, found: list[int]) -> list[Break]:
        edges = [0, *found, self.n]
        out = []
        for j, c in enumerate(found):
            a, b = edges[j], edges[j + 2]
            m1, _ = self.level(a, c)
            m2, _ = self.level(c, b)
            diff, se = self.stats(a, c, b)
            out.append(
                Break(
                    index=c,
                    before=self.center + m1,
                    after=self.center + m2,
                    stderr=se,
                    t=diff / se,
                    size_before=c - a,
                    size_after=b - c,
                )
            )
        return out


def _peaks(values: list[float], hits: list[int], radius: int) -> list[int]:
    """Indexes in ``hits`` that are the largest value within ``radius`` of themselves
    (ties: the first); ``hits`` ascending."""
    out: list[int] = []
    last = len(values) - 1
    for i in hits:
        v = values[i]
        if i > 0 and values[i - 1] >= v:
            continue
        if i < last and values[i + 1] > v:
            continue
        lo, hi = max(0, i - radius), min(last, i + radius)
        if max(values[lo : hi + 1]) > v:
            continue
        out.append(i)
    return out
