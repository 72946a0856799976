"""Where a series of numbers changes level: the search behind the change detector.

Numbers in, break points out; no I/O, no clock, no randomness. The steps, each
linear or nearly so in the length of the series (pure Python, about 0.15 s of CPU
for 100 000 points):

1. **Noise**: the series' scale ``s`` (the trimmed root mean square of neighbour
   differences) and the local noise of every block of 8 points
   (:func:`perfwalk.analysis.noise.local_variances`: medians of neighbour
   differences, a loaded stretch raises it from its first block on, a quiet one
   lowers it to half of ``s``² at most). A level's mean weighs each point by
   1 / its local variance, so that a noisy stretch counts little.
2. **Spikes**: the points between two jumps larger than 4 local noise units at
   most 4 points apart, and a first or last point beyond such a jump, are replaced
   by the median of their 13 neighbours when they lie more than 2.5 units from it.
   A step has one jump and keeps its points. A run of 3 or 4 replaced points is
   an excursion.
3. **Candidates**: moving sums of 5, 10, 20, … points on each side of every
   position (MOSUM); local peaks above 2.5 local standard errors (more for the
   smallest windows) are candidate breaks.
4. **Backward elimination**: the weakest candidate is removed until each break
   left passes the test below against its two neighbouring levels; after each
   removal the neighbours move to their best place (least squares) near where
   they were. Then each level is searched for a break the candidates missed.
5. **Test of a break**: the difference of the two levels' means over its standard
   error. A level's point variance is its own neighbour differences (or its spread
   around its mean, when larger: slow moves inside it) over the local noise, with
   ``prior_weight`` pairs of the series' typical ratio, times the local noise; the
   noise's correlation (below) turns point variances into the variance of the
   difference of two means. A break stands when

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

The first elimination takes the noise as independent. Then the noise's
correlation is fitted to the levels found (:mod:`perfwalk.analysis.noise`:
AR(1) from the variogram at lags 1 to 8, a random walk from the likelihood of the
local level model, a factor for non-Gaussian noise) and the elimination runs
again. Each break moves to its best place near where it is. Last:

* **Excursions**: a level of at most ``excursion`` points between two levels that
  do not differ is an excursion (points that went away and came back), not two
  changes; its points are replaced by the level around it. So is the run of at most
  ``excursion`` points furthest from the level around inside a level of up to twice
  that, when the rest of that level is within half the threshold of the level
  around (the noise made the points next to a short dip low too).
* **Edges**: a step that leaves fewer than ``min_size`` points at either end is
  tested like any other (the short-level bar: 21 noise units for one point, 11
  for two) and reported apart, to be confirmed by more points.
* **Drifts**: a level of at least 2 × ``jump_window`` points whose straight line
  moves by ``threshold`` standard errors and ``min_change`` is a drift.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections.abc import Sequence
from dataclasses import dataclass, replace
from heapq import heapify, heappop, heappush
from itertools import accumulate, compress, count, pairwise, repeat
from operator import add, gt, mul, sub, truediv
from typing import NamedTuple

from perfwalk.analysis.noise import (
    WHITE,
    Correlation,
    fit_correlation,
    local_variances,
    per_point,
    with_walk,
)
from perfwalk.analysis.scaled import exponent, scale, scaled
from perfwalk.policy import DEFAULT_MIN_CHANGE, DEFAULT_MIN_SIZE, DEFAULT_THRESHOLD

#: Fraction of the neighbour differences kept by the noise scale.
_KEPT = 0.8
#: A jump larger than this (noise units) between neighbours may border a spike.
_JUMP = 4.0
#: Jumps at most this many points apart enclose a run of spikes.
_NEIGHBOURS = 4
#: Half-width of the median a marked point is compared with.
_REFERENCE = 6
#: a point is no spike when more than 1 / _DENSE of the points around it are marked
_DENSE = 2
#: The smallest moving-sum window.
_FIRST_WINDOW = 5
#: Positions apart at which the smallest windows are evaluated.
_FIRST_STRIDE = 1
#: The levels around an excursion are at least this many times as long as it.
_AROUND = 2
#: How many points the ends of an excursion may move.
_POINTS = 2
#: A level of at most this many times ``excursion`` points may hold an excursion.
_WIDER = 2
#: The fewest points of a run the spike filter replaced that is an excursion.
_RUN = 3
#: How far the last pass may move a break.
_POLISH = 8
#: Long ranges are searched for the best split on a grid of about this many points first.
_GRID = 64
#: The local noise of a stretch is steady when its variance varies less than this.
_STEADY = 4.0
#: a sharp step (its two points hold most of it) of this many noise units, between
#: levels of ``min_size`` points or more, needs no more independent points than its
#: test counts: no noise makes a level that far, however correlated
PLAIN_STEP = 8.0
#: Rounds of the search for breaks the candidates missed.
_ROUNDS = 3
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
    ``prior_weight``: how many points the local noise (from the medians of neighbour
    differences) weighs against the levels' own neighbour differences.

    ``min_change``: the smallest relative change reported, however certain (0: every
    certain change; :data:`DEFAULT_TUNING` has 1 %). ``jump_window``: a break between
    longer levels must also show as a jump between the ``jump_window`` points on
    each side of it, of at least ``jump_threshold`` standard errors and
    ``jump_share`` of the step (slow drift has none). ``excursion``: a level of at
    most this many points between two levels that do not differ is an excursion,
    not two changes.
    """

    threshold: float = DEFAULT_THRESHOLD
    short_level: float = 5.0
    min_effect: float = 1.0
    min_size: int = DEFAULT_MIN_SIZE
    candidate_threshold: float = 2.5
    clip: float = 2.5
    prior_weight: float = 10.0
    min_change: float = 0.0
    jump_window: int = 20
    jump_threshold: float = 3.5
    jump_share: float = 0.5
    excursion: int = 11

    def __post_init__(self) -> None:
        if self.min_size < 1:
            raise ValueError("min_size must be at least 1")
        knobs = (self.threshold, self.candidate_threshold, self.clip, self.short_level)
        if not all(0 < knob < math.inf for knob in knobs):  # NaN too: it would find nothing
            raise ValueError("thresholds must be positive finite numbers")
        if not 0 <= self.min_effect < math.inf or not 0 <= self.prior_weight < math.inf:
            raise ValueError("min_effect and prior_weight must be finite and not negative")
        if not 0 <= self.min_change < math.inf:
            raise ValueError("min_change must be a finite number >= 0")
        if not (self.jump_window >= 1 and 0 < self.jump_threshold < math.inf):
            raise ValueError("jump_window must be at least 1, jump_threshold positive")
        if not (0 <= self.jump_share < math.inf and self.excursion >= 0):
            raise ValueError("jump_share and excursion must be finite and not negative")


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
class Excursion:
    """Points ``start`` … ``end - 1`` away from a level they came back to: ``level`` is
    their mean, ``base`` the mean of the level around them (in the units of the data,
    as :class:`Break`'s levels), ``t`` the difference over its standard error."""

    start: int
    end: int
    level: float
    base: float
    stderr: float
    t: float


@dataclass(frozen=True)
class Drift:
    """A level whose points move slowly, without a step: the straight line through
    points ``start`` … ``end - 1`` goes from ``first`` to ``last``; ``t`` is that
    change over its standard error (the noise's correlation included)."""

    start: int
    end: int
    first: float
    last: float
    stderr: float
    t: float


@dataclass(frozen=True)
class Segmentation:
    breaks: tuple[Break, ...]
    noise: float  # the noise scale s, in the units of the data
    autocorrelation: float  # of the noise's stationary part, 0 when none or negative
    center: float  # the median of the points (of a sample of 2000 of them)
    #: breaks that leave fewer than ``min_size`` points at either end of the series
    edges: tuple[Break, ...] = ()
    excursions: tuple[Excursion, ...] = ()
    drifts: tuple[Drift, ...] = ()
    correlation: Correlation = WHITE
    #: the local variances times this as far as the test goes (noise that is not
    #: Gaussian, e.g. bimodal: :class:`perfwalk.analysis.noise.NoiseFit`)
    factor: float = 1.0


#: The measured defaults, with the practical significance of 1 %.
DEFAULT_TUNING = Tuning(min_change=DEFAULT_MIN_CHANGE)


def segment(
    points: Sequence[float], tuning: Tuning = DEFAULT_TUNING, *, logarithms: bool = False
) -> Segmentation:
    """The level changes of ``points`` (finite numbers, oldest first). ``logarithms``:
    the points are logarithms (a step of ``d`` is a relative change of ``exp(d) - 1``),
    which ``min_change`` needs to know."""
    x = list(points)
    if not all(map(math.isfinite, x)):
        raise ValueError("points must be finite numbers")
    return segment_finite(x, tuning, logarithms=logarithms)


def segment_finite(
    x: list[float], tuning: Tuning = DEFAULT_TUNING, *, logarithms: bool = False
) -> Segmentation:
    """:func:`segment` of points known to be finite (not checked again).

    Points far from 1 (``1e308``, ``1e-300``) are searched divided by a power of two
    (exact, and the search does not depend on the scale): its sums never overflow.
    """
    k = exponent(x)
    if not k:
        return _segment(x, tuning, logarithms)
    found = _segment(scaled(x, k), tuning, logarithms)

    def up(b: Break) -> Break:
        return replace(
            b, before=scale(b.before, k), after=scale(b.after, k), stderr=scale(b.stderr, k)
        )

    return replace(
        found,
        breaks=tuple(map(up, found.breaks)),
        noise=scale(found.noise, k),
        center=scale(found.center, k),
        edges=tuple(map(up, found.edges)),
        excursions=tuple(
            replace(
                e,
                level=scale(e.level, k),
                base=scale(e.base, k),
                stderr=scale(e.stderr, k),
            )
            for e in found.excursions
        ),
        drifts=tuple(
            replace(d, first=scale(d.first, k), last=scale(d.last, k), stderr=scale(d.stderr, k))
            for d in found.drifts
        ),
    )


def _segment(x: list[float], tuning: Tuning, logarithms: bool) -> Segmentation:
    n = len(x)
    if n < 2 * tuning.min_size:
        return Segmentation((), noise_scale(x), 0.0, _median(list(x)) if x else 0.0)
    search = _Search(x, tuning, logarithms)
    return search.run()


def noise_scale(x: Sequence[float]) -> float:
    """Trimmed root mean square of neighbour differences, as a standard deviation."""
    return jump_scale(list(map(abs, map(sub, x[1:], x[:-1]))))


def jump_scale(jumps: list[float]) -> float:
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


def despike(
    x: list[float], squares: list[float], variances: list[float], clip: float
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
    limits = map(mul, variances, repeat(_JUMP * _JUMP))
    at = list(compress(count(), map(gt, squares, limits)))
    marked: dict[int, float] = {}  # a spike's index → the level around it
    for j, i in enumerate(at):
        if j + 1 < len(at) and at[j + 1] - i <= _NEIGHBOURS and _comes_back(x, i, at[j + 1]):
            k = at[j + 1]
            level = _median([x[m] for m in (i - 1, i, k + 1, k + 2) if 0 <= m < n])
            marked.update(dict.fromkeys(range(i + 1, k + 1), level))
        if i in (0, n - 2):  # a spike at either end has a jump on one side only
            end, inner = (0, range(1, 4)) if i == 0 else (n - 1, range(n - 4, n - 1))
            level = _median([x[m] for m in inner if 0 <= m < n])
            if _carried(x[end], x[1 if end == 0 else n - 2], level):
                marked[end] = level
    replaced = []
    for i, level in sorted(marked.items()):
        around = range(max(0, i - _REFERENCE), min(n, i + _REFERENCE + 1))
        if sum(1 for j in around if j in marked) * _DENSE > len(around):
            continue  # jumps everywhere around it: noise of two modes, not a spike
        ref = _median(x[max(0, i - _REFERENCE) : i + _REFERENCE + 1])
        if abs(level - ref) > abs(x[i] - level):  # its neighbours are at a new level
            ref = level
        if (x[i] - ref) ** 2 > clip * clip * variances[i]:
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


class _Side(NamedTuple):
    """One side of a step: a level's number of points, mean (minus the centre) and the
    noise variance of one of its points."""

    points: int
    mean: float
    variance: float


class _Jump(NamedTuple):
    """The gap between the ends of two levels, and as many points as each end's
    precision is worth."""

    size: float
    before: float
    after: float


class _Search:
    """One run of the search; sums over the points minus their median."""

    def __init__(self, x: list[float], tuning: Tuning, logarithms: bool) -> None:
        self.tuning = tuning
        self.logarithms = logarithms
        self.x = x
        self.n = n = len(x)
        sample = x[:: max(1, n // 2001)]
        self.center = _median(list(sample))
        steps = list(map(sub, x[1:], x))  # map stops at the shorter
        squares = list(map(mul, steps, steps))
        jumps = list(map(abs, steps))
        self.noise = jump_scale(jumps)
        largest = max(1e-100, *map(abs, sample))
        # the local noise variance: constant over blocks of points
        self.size, self.blocks = local_variances(jumps, self.noise, 1e-12 * largest)
        self.var = per_point(self.size, self.blocks, n)
        self.even = min(self.blocks) == max(self.blocks)
        despiked, self.replaced = despike(x, squares, self.var, tuning.clip)
        self.V = [0.0, *accumulate(self.var)]
        # a level's mean weighs each point by 1 / its variance: the running sums of the
        # weights, block by block
        self.W = [0.0, *accumulate(self.size / v for v in self.blocks)]
        self.correlation = WHITE
        self.factor = 1.0  # non-Gaussian noise: the local variances times this
        self.radius: dict[int, int] = {}
        self.searched: set[tuple[int, int]] = set()  # levels complete() found nothing in
        # centred: exact sums; the squared neighbour differences but around what the
        # spike filter replaced
        y = list(map(sub, despiked, repeat(self.center)))
        for i in self.replaced:
            for j in (i - 1, i):
                if 0 <= j < n - 1:
                    squares[j] = (y[j + 1] - y[j]) ** 2
        self.set_points(y, squares)

    def set_points(self, y: list[float], squares: list[float] | None = None) -> None:
        """The points searched (spikes and excursions replaced) and their sums;
        ``squares``: their squared neighbour differences, when known."""
        self.y = y
        self.sides: dict[tuple[int, int], _Side] = {}  # level a..b-1 as a side of a step
        self.ends_of: dict[tuple[int, int, bool], tuple[float, float]] = {}  # near()
        self.S = S = [0.0, *accumulate(y)]
        self.T = [0.0, *accumulate(map(mul, count(0.0), y))]  # sums of index × point
        if squares is None:
            steps = list(map(sub, y[1:], y[:-1]))
            squares = list(map(mul, steps, steps))
        D2: list[float] = [0.0, *accumulate(squares)]  # pairs before i
        self.D2 = D2
        # block by block: the weighted sums of the points, and the squared neighbour
        # differences over what the local noise expects of them (2 variances)
        size, n = self.size, self.n
        starts = range(0, len(self.blocks) * size, size)
        self.SW = [
            0.0,
            *accumulate(
                (S[min(k + size, n)] - S[k]) / v for k, v in zip(starts, self.blocks, strict=True)
            ),
        ]
        Q: list[float] = [0.0, *accumulate(map(mul, y, y))]
        self.Q = Q
        self.QW = [
            0.0,
            *accumulate(
                (Q[min(k + size, n)] - Q[k]) / v for k, v in zip(starts, self.blocks, strict=True)
            ),
        ]
        self.Z2 = [
            0.0,
            *accumulate(
                (D2[min(k + size, n - 1)] - D2[min(k, n - 1)]) / (2 * v)
                for k, v in zip(starts, self.blocks, strict=True)
            ),
        ]

    def _block(self, t: int) -> tuple[int, int, float]:
        """(block of point t, its first point, its variance); t may be n."""
        k = t // self.size
        if k >= len(self.blocks):
            k = len(self.blocks) - 1
        return k, k * self.size, self.blocks[k]

    def weights(self, t: int) -> float:
        """The sum of the weights of the points before t."""
        k, first, v = self._block(t)
        return self.W[k] + (t - first) / v

    def weighted(self, t: int) -> float:
        """The weighted sum of the points before t."""
        k, first, v = self._block(t)
        return self.SW[k] + (self.S[t] - self.S[first]) / v

    def running(self, t: int) -> tuple[float, float, float]:
        """The sums of the weights, of the weighted points and of their weighted squares,
        of the points before t."""
        k, first, v = self._block(t)
        return (
            self.W[k] + (t - first) / v,
            self.SW[k] + (self.S[t] - self.S[first]) / v,
            self.QW[k] + (self.Q[t] - self.Q[first]) / v,
        )

    def ratios(self, t: int) -> float:
        """The sum of the pairs' squared differences over their expected value, for
        the pairs before point t (t < n)."""
        k, first, v = self._block(t)
        return self.Z2[k] + (self.D2[t] - self.D2[first]) / (2 * v)

    # -- the whole search -------------------------------------------------------------

    def run(self) -> Segmentation:
        found = self.complete(self.eliminate(self.candidates()))
        # the noise's correlation, from the levels of this first pass: the most and the
        # shortest levels (a merge can leave a step in a level, which looks correlated)
        # (a step at an end, a level too short to search yet, is not noise either)
        levels = sorted({0, *found, *(b.index for b in self.edges(found)), self.n})
        fit = fit_correlation(self.y, self.var, levels)
        correlation = with_walk(fit.correlation, self.S, self.V, levels)
        if (correlation, fit.factor) != (self.correlation, self.factor):
            self.correlation, self.factor = correlation, fit.factor
            self.sides.clear()  # their point variances depend on both
            self.searched.clear()
            found = self.complete(self.eliminate(found))
        found = self.polish(found)
        edges = [0, *found, self.n]
        if found and min(b - a for a, b in pairwise(edges)) < self.tuning.min_size:
            found = self.eliminate(found)  # a break polished too near another one
        found, excursions = self.excursions(found)
        excursions = sorted([*excursions, *self.runs()], key=lambda e: e.start)
        return Segmentation(
            tuple(self.describe(found)),
            self.noise,
            self.correlation.autocorrelation,
            self.center,
            edges=tuple(self.edges(found)),
            excursions=tuple(excursions),
            drifts=tuple(self.drifts(found)),
            correlation=self.correlation,
            factor=self.factor,
        )

    # -- candidates ------------------------------------------------------------------

    def candidates(self) -> list[int]:
        """Peaks of moving-sum differences over windows of 5, 10, 20, … points, each
        against the local noise where the windows meet."""
        n, S, ml = self.n, self.S, self.tuning.min_size
        sd = per_point(self.size, [math.sqrt(v) for v in self.blocks], n)
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
            bar = self.tuning.candidate_threshold * (1 + _SMALL_WINDOW / w) * math.sqrt(2 * w)
            limits = map(mul, sd[w : n - w + 1 : stride], repeat(bar))
            hits = list(compress(count(), map(gt, diff, limits)))
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

    def mean(self, a: int, b: int) -> float:
        """The level of points a..b-1 (minus the centre): their mean, each point weighed
        by its local noise (a loaded stretch counts less)."""
        if self.even:  # the same noise everywhere (noise-free data): the exact mean
            return (self.S[b] - self.S[a]) / (b - a)
        return (self.weighted(b) - self.weighted(a)) / (self.weights(b) - self.weights(a))

    def point_variance(self, a: int, b: int) -> float:
        """The noise variance of one point of a..b-1 as far as their mean goes (its
        lag-one semivariance; the mean of the level has ``1 / (b - a)`` of it): the local
        noise (from medians of neighbour differences) times how much larger the level's
        own neighbour differences are, with ``prior_weight`` pairs of the series'
        typical ratio."""
        pairs = b - a - 1
        w1, s1, q1 = self.running(a)
        w2, s2, q2 = self.running(b)
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

    def score(self, a: int, c: int, b: int) -> float:
        """How strongly a break at c stands against a..c-1 and c..b-1: keep it at ≥ threshold."""
        one, two = self.side(a, c), self.side(c, b)
        # the two points around it hold most of the step: a jump, not a slope cut in two
        sharp = abs(self.y[c] - self.y[c - 1]) >= 0.5 * abs(two.mean - one.mean)
        return self.judge(one, two, self.jump(a, c, c, b), sharp=sharp)

    def side(self, a: int, b: int) -> _Side:
        """Level a..b-1 as one side of a step."""
        key = (a, b)
        found = self.sides.get(key)
        if found is None:
            found = self.sides[key] = _Side(b - a, self.mean(a, b), self.point_variance(a, b))
        return found

    def jump(self, a: int, b: int, c: int, d: int) -> _Jump:
        """The jump from the end of level a..b-1 to the start of level c..d-1."""
        ends = self.ends_of
        before, points_before = ends.get((a, b, True)) or ends.setdefault(
            (a, b, True), self.near(a, b, end=True)
        )
        after, points_after = ends.get((c, d, False)) or ends.setdefault(
            (c, d, False), self.near(c, d, end=False)
        )
        return _Jump(after - before, points_before, points_after)

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

    def judge(
        self, one: _Side, two: _Side, jump: _Jump, *, edge: bool = False, sharp: bool = False
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
            score = t / math.hypot(1.0, tuning.short_level / independent)
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
        """Search each level for one break the candidates missed, and the levels that
        leaves again, a few rounds at most."""
        ml = self.tuning.min_size
        threshold = self.tuning.threshold
        for _ in range(_ROUNDS):
            edges = [0, *found, self.n]
            extra = []
            for a, b in pairwise(edges):
                if b - a >= 2 * ml and (a, b) not in self.searched:
                    k = self.best_split(a, b, a + 1, b - 1)  # too near an end: no level
                    if min(k - a, b - k) >= ml and self.score(a, k, b) >= threshold:
                        extra.append(k)
                        self.radius[k] = max(2, ml)
                    else:  # nothing there while the model holds
                        self.searched.add((a, b))
            if not extra:
                break
            found = self.eliminate(sorted(found + extra))
        return found

    # -- what is not a step ------------------------------------------------------------

    def excursions(self, found: list[int]) -> tuple[list[int], list[Excursion]]:
        """Levels of at most ``excursion`` points between two levels that do not differ,
        each at least twice as long (a change that lasts a third of a short walk
        matters): excursions, not two changes. Their points are replaced by the level around them
        and the breaks left are tested again."""
        edges = [0, *found, self.n]
        spans: list[tuple[int, int, int, int]] = []
        dropped: set[int] = set()
        j = 1
        longest = self.tuning.excursion
        while j + 2 < len(edges):
            left, a, b, right = edges[j - 1 : j + 3]
            if b - a <= longest + 2 * _POINTS:  # its ends to the point first
                base = self.mean2(left, a, b, right)
                a, b = self.ends((left, a, b, right), self.mean(a, b), base)
            around = min(a - left, right - b) >= _AROUND * (b - a)
            if around and b - a <= _WIDER * longest and not self.differ(left, a, b, right):
                inner = (a, b) if b - a <= longest else self.inner_run((left, a, b, right))
                if inner is not None:
                    spans.append((left, *inner, right))
                    dropped.update(edges[j : j + 2])  # the breaks around it
                    j += 2
                    continue
            j += 1
        if not spans:
            return found, []
        y = list(self.y)
        out = []
        for left, a, b, right in spans:
            base = self.mean2(left, a, b, right)
            level = self.mean(a, b)
            v = self.point_variance(a, b)
            v_base = (
                (a - left) * self.point_variance(left, a)
                + (right - b) * self.point_variance(b, right)
            ) / (a - left + right - b)
            se = math.sqrt(self.difference_variance(a - left + right - b, v_base, b - a, v))
            out.append(
                Excursion(a, b, self.center + level, self.center + base, se, (level - base) / se)
            )
            y[a:b] = [base] * (b - a)
            dropped.update(range(a - _POINTS, b + _POINTS + 1))
        self.set_points(y)
        return self.eliminate([c for c in found if c not in dropped]), out

    def inner_run(self, span: tuple[int, int, int, int]) -> tuple[int, int] | None:
        """The excursion inside level a..b-1 of ``span`` (left, a, b, right), a level
        longer than ``excursion`` points between two that do not differ: the run of at
        most ``excursion`` of its points furthest from the level around, when the rest
        of it does not differ from that level (the noise made the points next to a
        short dip low too, and the two breaks went around both); None otherwise."""
        left, a, b, right = span
        longest = self.tuning.excursion
        base = self.mean2(left, a, b, right)
        S = self.S
        best, run = -1.0, (a, b)
        for c in range(a, b):
            for d in range(c + 1, min(c + longest, b) + 1):
                excess = S[d] - S[c] - (d - c) * base
                if excess * excess / (d - c) > best:
                    best, run = excess * excess / (d - c), (c, d)
        c, d = run
        rest, outside = b - a - (d - c), a - left + right - b
        v = (
            (a - left) * self.point_variance(left, a) + (right - b) * self.point_variance(b, right)
        ) / outside
        moved = (S[b] - S[a] - (S[d] - S[c])) / rest - base
        away = (S[d] - S[c]) / (d - c) - base
        if moved * moved >= (self.tuning.threshold / 2) ** 2 * self.difference_variance(
            outside, v, rest, v
        ):
            return None  # the rest of the level differs too: a change that lasted
        if away * away < self.tuning.threshold**2 * self.difference_variance(outside, v, d - c, v):
            return None
        return c, d

    def mean2(self, left: int, a: int, b: int, right: int) -> float:
        """The level of points left..a-1 and b..right-1 together."""
        W, SW = self.weights, self.weighted
        return (SW(a) - SW(left) + SW(right) - SW(b)) / (W(a) - W(left) + W(right) - W(b))

    def ends(self, span: tuple[int, int, int, int], level: float, base: float) -> tuple[int, int]:
        """The excursion a..b-1 of ``span`` (left, a, b, right; mean ``level``, the level
        around it ``base``) with its ends moved, by a point or two, to the points nearer
        the one level than the other (a break is placed to a point or two only)."""
        left, a, b, right = span

        def inside(i: int) -> bool:
            return abs(self.y[i] - level) < abs(self.y[i] - base)

        for _ in range(_POINTS):
            if a - 1 > left and inside(a - 1):
                a -= 1
            elif b - a > 1 and not inside(a):
                a += 1
            if b < right - 1 and inside(b):
                b += 1
            elif b - a > 1 and not inside(b - 1):
                b -= 1
        return a, b

    def runs(self) -> list[Excursion]:
        """The runs of 3 or 4 points that the spike filter replaced: excursions too (a
        point or two is a spike)."""
        out = []
        start = 0
        replaced = self.replaced
        for j, i in enumerate(replaced):
            if j + 1 < len(replaced) and replaced[j + 1] == i + 1:
                continue
            first, end = replaced[start], i + 1
            start = j + 1
            if end - first < _RUN or not 0 < first < end < self.n:
                continue
            level = math.fsum(self.x[first:end]) / (end - first)
            base = self.center + math.fsum(self.y[first:end]) / (end - first)
            variance = (self.V[end] - self.V[first]) / (end - first)
            se = math.sqrt(variance * (1 / (end - first) + 1 / (2 * _REFERENCE)))
            out.append(Excursion(first, end, level, base, se, (level - base) / se))
        return out

    def differ(self, left: int, a: int, b: int, right: int) -> bool:
        """Whether the levels left..a-1 and b..right-1 differ: they pass the test of a
        step, or half of it while at least ``min_change`` apart (not quite back where
        they were)."""
        one, two = self.side(left, a), self.side(b, right)
        score = self.judge(one, two, self.jump(left, a, b, right))
        if score >= self.tuning.threshold:
            return True
        change = self.tuning.min_change
        apart = abs(self.relative(one.mean, two.mean - one.mean)) >= change
        return bool(change) and apart and score >= self.tuning.threshold / 2

    def edges(self, found: list[int]) -> list[Break]:
        """A step that leaves fewer than ``min_size`` points at either end (the points
        as measured: the spike filter replaces a last point beyond a jump)."""
        n, ml = self.n, self.tuning.min_size
        first = found[0] if found else n
        last = found[-1] if found else 0
        out = []
        starts = [(k, self.edge(0, k, first, start=True)) for k in range(1, ml) if first - k >= ml]
        ends = [
            (k, self.edge(n - k, n, last, start=False)) for k in range(1, ml) if n - k - last >= ml
        ]
        for choices in (starts, ends):
            passing = [
                (score, brk) for _, (score, brk) in choices if score >= self.tuning.threshold
            ]
            if passing:  # where the step is: the largest difference for its noise
                out.append(max(passing, key=lambda sb: abs(sb[1].t))[1])
        return sorted(out, key=lambda brk: brk.index)

    def edge(self, e0: int, e1: int, limit: int, *, start: bool) -> tuple[float, Break]:
        """(score, break) of the edge level e0..e1-1 against the level up to ``limit``."""
        k = e1 - e0
        m_edge = math.fsum(self.x[e0:e1]) / k - self.center
        v_edge = self.factor * (self.V[e1] - self.V[e0]) / k
        a, b = (e1, limit) if start else (limit, e0)
        length = b - a
        other = self.side(a, b)
        m_other, v_other = other.mean, other.variance
        if start:
            value, points = self.near(a, b, end=False)
            jump = _Jump(value - m_edge, float(k), points)
            score = self.judge(_Side(k, m_edge, v_edge), other, jump, edge=True)
            se = math.sqrt(self.difference_variance(k, v_edge, length, v_other))
            brk = Break(
                e1,
                self.center + m_edge,
                self.center + m_other,
                se,
                (m_other - m_edge) / se,
                k,
                length,
            )
        else:
            value, points = self.near(a, b, end=True)
            jump = _Jump(m_edge - value, points, float(k))
            score = self.judge(other, _Side(k, m_edge, v_edge), jump, edge=True)
            se = math.sqrt(self.difference_variance(length, v_other, k, v_edge))
            brk = Break(
                e0,
                self.center + m_other,
                self.center + m_edge,
                se,
                (m_edge - m_other) / se,
                length,
                k,
            )
        return score, brk

    def drifts(self, found: list[int]) -> list[Drift]:
        """Levels of at least twice ``jump_window`` points along which the points move:
        the change of their straight line, tested against the stationary part of the
        noise (a random walk is what a drift is)."""
        tuning = self.tuning
        long_run = self.correlation.long_run()
        out = []
        for a, b in pairwise([0, *found, self.n]):
            length = b - a
            if length < 2 * tuning.jump_window:
                continue
            middle = a + (length - 1) / 2
            sxx = length * (length * length - 1) / 12
            total = self.S[b] - self.S[a]
            mean = total / length
            sxy = self.T[b] - self.T[a] - middle * total
            change = sxy / sxx * (length - 1)
            first = mean - change / 2
            v = self.point_variance(a, b)
            se = math.sqrt(v * long_run * (length - 1) ** 2 / sxx)
            t = change / se
            if (
                abs(t) < tuning.threshold
                or min(self.meaningful(first, change, v, v), 1e300) < tuning.threshold
            ):
                continue
            out.append(Drift(a, b, self.center + first, self.center + first + change, se, t))
        return out

    # -- results -----------------------------------------------------------------------

    def describe(self, found: list[int]) -> list[Break]:
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
