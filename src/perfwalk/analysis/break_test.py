"""The levels of a series and the test of a break between two of them (step 5 of
:mod:`perfwalk.analysis.segmentation`): running sums over the points that give any
level's mean, its noise and its ends in constant time, the best place of a break
between two ends (least squares), and the score of a step.

The test of a break: the difference of the two levels' means over its standard
error. A level's point variance is its own neighbour differences (or its spread
around its mean, when larger: slow moves inside it) over the local noise, with
``prior_weight`` pairs of the series' typical ratio, times the local noise; the
noise's correlation turns point variances into the variance of the difference of
two means. A break stands when

* the difference reaches ``threshold × √(1 + (short_level / ℓ)²)`` standard
  errors, ``ℓ`` the independent points of the shorter level (a short level has
  more places to be, a mean of few points heavier tails; correlated points are
  fewer independent ones); but a sharp step (the two points around it hold half
  of it or more) of :data:`PLAIN_STEP` noise units or more needs only
  ``threshold`` standard errors: no noise, however correlated, makes a level that
  far (a 12-point stretch at 3× in AR(1) noise of φ 0.65 is two changes), while a
  slope cut into a staircase is not sharp;
* it is at least ``min_effect`` noise units and ``min_change`` of the level (a
  change too small to matter is not reported, however certain);
* both levels hold ``min_size`` points;
* when a level is longer than ``jump_window`` points: the gap between the ends
  of the two levels (the means of their ``jump_window`` points next to the
  break, or their straight lines through 4 × ``jump_window`` points of steady
  noise) reaches ``jump_threshold`` standard errors (random walk included) and
  ``jump_share`` of the difference. Slow drift moves long levels apart without a
  gap between them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import accumulate, repeat
from operator import mul, sub, truediv
from typing import NamedTuple

import numpy as np

from perfwalk.analysis.float_arrays import Floats, floats, numbers, per_point, running_sums
from perfwalk.analysis.noise import WHITE, local_variances
from perfwalk.analysis.segments import Break, Tuning
from perfwalk.analysis.spikes import jump_scale, median_in_place, spikes

#: Long ranges are searched for the best split on a grid of about this many points first.
_GRID = 64

#: The local noise of a stretch is steady when its variance varies less than this.
_STEADY = 4.0
#: a sharp step (its two points hold most of it) of this many noise units, between
#: levels of ``min_size`` points or more, needs no more independent points than its
#: test counts: no noise makes a level that far, however correlated
PLAIN_STEP = 8.0


class Side(NamedTuple):
    """One side of a step: a level's number of points, mean (minus the centre) and the
    noise variance of one of its points."""

    points: int
    mean: float
    variance: float


class Jump(NamedTuple):
    """The gap between the ends of two levels, and as many points as each end's
    precision is worth."""

    size: float
    before: float
    after: float


class BreakTest:
    """The sums over a series' points minus their median, and the test of a break."""

    def __init__(self, x: Sequence[float], tuning: Tuning, logarithms: bool) -> None:
        self.tuning = tuning
        self.logarithms = logarithms
        self.x = x
        self.n = n = len(x)
        sample = x[:: max(1, n // 2001)]
        self.center = median_in_place(list(sample))
        points = numbers(x)
        steps = points[1:] - points[:-1]
        squares = steps * steps
        jumps = floats(np.abs(steps))
        self.noise = jump_scale(jumps)
        largest = max(1e-100, *map(abs, sample))
        # the local noise variance: constant over blocks of points
        self.size, self.blocks = local_variances(jumps, self.noise, 1e-12 * largest)
        variances = per_point(self.size, self.blocks, n)
        self.var = floats(variances)
        self.even = min(self.blocks) == max(self.blocks)
        self.replaced, levels = spikes(points, squares, self.var, tuning.clip)
        self.V = running_sums(variances)
        # a level's mean weighs each point by 1 / its variance: the running sums of the
        # weights, block by block
        self.W = running_sums(self.size / np.array(self.blocks))
        self.correlation = WHITE
        self.factor = 1.0  # non-Gaussian noise: the local variances times this
        # centred: exact sums; the squared neighbour differences but around what the
        # spike filter replaced
        y = points - self.center
        if self.replaced:
            y[self.replaced] = np.array(levels) - self.center
            pairs = np.union1d(np.array(self.replaced) - 1, self.replaced)
            pairs = pairs[(pairs >= 0) & (pairs < n - 1)]
            squares[pairs] = [d**2 for d in (y[pairs + 1] - y[pairs]).tolist()]
        self.set_points(y, squares)

    def set_points(self, y: Floats, squares: Floats | None = None) -> None:
        """The points searched (spikes and excursions replaced) and their sums;
        ``squares``: their squared neighbour differences, when known."""
        self.y = floats(y)
        self.sides: dict[tuple[int, int], Side] = {}  # level a..b-1 as a side of a step
        self.ends_of: dict[tuple[int, int, bool], tuple[float, float]] = {}  # near()
        n = self.n
        self.S = running_sums(y)
        self.T = running_sums(np.arange(n, dtype=np.float64) * y)  # sums of index × point
        if squares is None:
            steps = y[1:] - y[:-1]
            squares = steps * steps
        self.D2 = running_sums(squares)  # pairs before i
        self.Q = running_sums(y * y)
        # block by block: the weighted sums of the points, and the squared neighbour
        # differences over what the local noise expects of them (2 variances)
        variances = np.array(self.blocks)
        starts = np.arange(0, len(variances) * self.size, self.size)
        ends = np.minimum(starts + self.size, n)
        S, Q, D2 = numbers(self.S), numbers(self.Q), numbers(self.D2)
        self.SW = running_sums((S[ends] - S[starts]) / variances)
        self.QW = running_sums((Q[ends] - Q[starts]) / variances)
        last = np.minimum(starts, n - 1)
        self.Z2 = running_sums((D2[np.minimum(ends, n - 1)] - D2[last]) / (2 * variances))

    def running(self, t: int) -> tuple[float, float, float]:
        """The sums of the weights, of the weighted points and of their weighted squares,
        of the points before t (t may be n)."""
        k = t // self.size
        if k >= len(self.blocks):  # the last block takes the points beyond
            k = len(self.blocks) - 1
        first, v = k * self.size, self.blocks[k]
        return (
            self.W[k] + (t - first) / v,
            self.SW[k] + (self.S[t] - self.S[first]) / v,
            self.QW[k] + (self.Q[t] - self.Q[first]) / v,
        )

    def ratios(self, t: int) -> float:
        """The sum of the pairs' squared differences over their expected value, for
        the pairs before point t (t < n)."""
        k = t // self.size
        if k >= len(self.blocks):
            k = len(self.blocks) - 1
        first = k * self.size
        return self.Z2[k] + (self.D2[t] - self.D2[first]) / (2 * self.blocks[k])

    def mean(self, a: int, b: int) -> float:
        """The level of points a..b-1 (minus the centre): their mean, each point weighed
        by its local noise (a loaded stretch counts less)."""
        return self._mean(a, b, self.running(a), self.running(b))

    def _mean(
        self, a: int, b: int, one: tuple[float, float, float], two: tuple[float, float, float]
    ) -> float:
        """:meth:`mean` from the :meth:`running` sums at a and b."""
        if self.even:  # the same noise everywhere (noise-free data): the exact mean
            return (self.S[b] - self.S[a]) / (b - a)
        return (two[1] - one[1]) / (two[0] - one[0])

    def point_variance(self, a: int, b: int) -> float:
        """The noise variance of one point of a..b-1 as far as their mean goes (its
        lag-one semivariance; the mean of the level has ``1 / (b - a)`` of it): the local
        noise (from medians of neighbour differences) times how much larger the level's
        own neighbour differences are, with ``prior_weight`` pairs of the series'
        typical ratio."""
        return self._point_variance(a, b, self.running(a), self.running(b))

    def _point_variance(
        self, a: int, b: int, one: tuple[float, float, float], two: tuple[float, float, float]
    ) -> float:
        """:meth:`point_variance` from the :meth:`running` sums at a and b."""
        pairs = b - a - 1
        w1, s1, q1 = one
        w2, s2, q2 = two
        weights = w2 - w1
        ratio = 0.0
        if pairs:  # the spread around the level's mean, when it is larger (slow moves)
            c = self.correlation
            spread = q2 - q1 - (s2 - s1) * (s2 - s1) / weights
            ratio = max(self.ratios(b - 1) - self.ratios(a), spread / (c.white + c.ar))
        prior = self.tuning.prior_weight
        ratio = (ratio + prior * self.factor) / (pairs + prior)
        return ratio * (b - a) / weights

    def difference_variance(
        self, l1: float, v1: float, l2: float, v2: float, *, walk: bool = False
    ) -> float:
        """Variance of the difference of the means of neighbouring levels of ``l1`` and
        ``l2`` points of point variances ``v1`` and ``v2``; with the noise's random walk
        when ``walk`` (the test of a jump over a few points only: a walk fitted to a few
        levels is not to be trusted over long ones)."""
        unit = self.correlation.variance(l1, l2, walk=walk)
        return unit * (l2 * v1 + l1 * v2) / (l1 + l2)

    def stats(self, a: int, c: int, b: int) -> tuple[float, float]:
        """(difference of the levels, its standard error) for a break at c in a..b-1."""
        l1, l2 = c - a, b - c
        diff = self.mean(c, b) - self.mean(a, c)
        v1, v2 = self.point_variance(a, c), self.point_variance(c, b)
        return diff, math.sqrt(self.difference_variance(l1, v1, l2, v2))

    def side(self, a: int, b: int) -> Side:
        """Level a..b-1 as one side of a step."""
        key = (a, b)
        found = self.sides.get(key)
        if found is None:
            one, two = self.running(a), self.running(b)
            found = self.sides[key] = Side(
                b - a, self._mean(a, b, one, two), self._point_variance(a, b, one, two)
            )
        return found

    def jump(self, a: int, b: int, c: int, d: int) -> Jump:
        """The jump from the end of level a..b-1 to the start of level c..d-1."""
        ends = self.ends_of
        before, points_before = ends.get((a, b, True)) or ends.setdefault(
            (a, b, True), self.near(a, b, end=True)
        )
        after, points_after = ends.get((c, d, False)) or ends.setdefault(
            (c, d, False), self.near(c, d, end=False)
        )
        return Jump(after - before, points_before, points_after)

    def near(self, a: int, b: int, *, end: bool) -> tuple[float, float]:
        """(value, as many points as its precision is worth) of level a..b-1 at its end
        (``end``) or its start: the mean of the ``jump_window`` points there, or when the
        level holds 4 × ``jump_window`` points of steady noise, the straight line through
        them (as precise, and slow drift moves both ends of a line, not the gap between
        two)."""
        length = b - a
        w = self.tuning.jump_window
        span = 4 * w
        p, q = (b - span, b) if end else (a, a + span)
        if length < span or not self.steady(p, q):
            span = min(length, w)
            return self.mean(b - span, b) if end else self.mean(a, a + span), float(span)
        total = self.S[q] - self.S[p]
        middle = p + (span - 1) / 2
        sxx = span * (span * span - 1) / 12
        slope = (self.T[q] - self.T[p] - middle * total) / sxx
        at = (q - 0.5 if end else p - 0.5) - middle
        return total / span + slope * at, 1 / (1 / span + at * at / sxx)

    def steady(self, a: int, b: int) -> bool:
        """Whether the local noise of points a..b-1 is about the same everywhere (a
        straight line through them weighs them alike)."""
        blocks = self.blocks[a // self.size : (b - 1) // self.size + 1]
        return max(blocks) <= _STEADY * min(blocks)

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

    def judge(
        self, one: Side, two: Side, jump: Jump, *, edge: bool = False, sharp: bool = False
    ) -> float:
        """The score of a step from level ``one`` to level ``two``; ``jump`` is the gap
        between their ends (tested when a level is longer than ``jump_window``);
        ``edge``: one of them is at an end of the series and may be shorter than
        ``min_size``; ``sharp``: the two points around the step hold most of it (a
        step of :data:`PLAIN_STEP` noise units or more then needs no more independent
        points than its test counts)."""
        tuning = self.tuning
        l1, m1, v1 = one
        l2, m2, v2 = two
        shorter = min(l1, l2)
        diff = m2 - m1
        unit = self.correlation.variance(l1, l2, walk=False)
        t = abs(diff) / math.sqrt(unit * (l2 * v1 + l1 * v2) / (l1 + l2))
        if shorter < tuning.min_size and not edge:
            return -1.0 / (1.0 + t)  # below every real score: removed first, weakest first
        # a short level has many places to be, and a mean of few values heavy tails:
        # few *independent* values when neighbouring points agree
        independent = shorter * (1 / l1 + 1 / l2) / unit
        score = t
        if not sharp or abs(diff) < PLAIN_STEP * math.sqrt(0.5 * (v1 + v2)):
            score = t / self.bar(independent)
        score = min(score, self.meaningful(m1, diff, v1, v2))
        w = tuning.jump_window
        # long levels: a jump here, or only a slow drift? (asked for steps smaller than
        # the noise, which no jump shows, the test is relaxed as much)
        relax = min(1.0, tuning.min_effect)
        if (l1 > w or l2 > w) and relax > 0:
            near = jump.size * math.copysign(1.0, diff)
            se = math.sqrt(self.difference_variance(jump.before, v1, jump.after, v2, walk=True))
            score = min(
                score,
                tuning.threshold * near / se / (tuning.jump_threshold * relax),
                tuning.threshold * near / abs(diff) / (tuning.jump_share * relax) if diff else 0.0,
            )
        return score

    def bar(self, independent: float) -> float:
        """How many times ``threshold`` standard errors a level of so many independent
        points must differ by from its neighbour (a short level has more places to be,
        a mean of few values heavier tails)."""
        return math.hypot(1.0, self.tuning.short_level / independent)

    def meaningful(self, before: float, diff: float, v1: float, v2: float) -> float:
        """``threshold`` or more when a step of ``diff`` from the level ``before`` (minus
        the centre) is at least ``min_effect`` noise units and ``min_change``; less in
        proportion when it is not."""
        tuning = self.tuning
        score = math.inf
        effect = abs(diff) / math.sqrt(0.5 * (v1 + v2))
        if effect < tuning.min_effect:
            score = tuning.threshold * effect / tuning.min_effect
        if tuning.min_change:
            change = abs(self.relative(before, diff))
            if change < tuning.min_change:
                score = min(score, tuning.threshold * change / tuning.min_change)
        return score

    def relative(self, before: float, diff: float) -> float:
        """The relative change of a step of ``diff`` from the level ``before`` (minus
        the centre)."""
        if self.logarithms:
            return math.expm1(diff)
        base = abs(before + self.center)
        return diff / base if base else math.copysign(math.inf, diff) if diff else 0.0

    def describe(self, found: list[int]) -> list[Break]:
        """The breaks at ``found`` (ascending), each between the levels around it."""
        edges = [0, *found, self.n]
        out = []
        for j, c in enumerate(found):
            a, b = edges[j], edges[j + 2]
            m1, m2 = self.mean(a, c), self.mean(c, b)
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
