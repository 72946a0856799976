"""The noise around the levels of a series: how large it is where, and how its
points hang together.

Real benchmark histories are not independent noise of one size. A machine has
quiet months and noisy ones, a stretch where other jobs loaded it, neighbouring
checkouts that agree more than chance allows (the machine's state drifts slowly
between them), and slow drift. The test of a change must know the noise *around
it*, and how much the mean of a level can wander without any change. Two pieces:

* :func:`local_variances`: the noise of each point, robustly, from the
  differences of neighbouring points near it (a step or a spike is one or two
  large differences among many and moves a median little);
* :class:`Correlation`: how the noise adds up over many points, as white noise +
  AR(1) + a random walk. :func:`fit_correlation` fits the stationary part to the
  variogram at short lags (the mean square difference of points 1 to 8 apart,
  inside the levels found), :func:`with_walk` the random walk by the likelihood
  of the local level model. :meth:`Correlation.variance` is then the variance of
  the difference of the means of two neighbouring levels, which is what a change
  is tested against.

Pure functions of numbers: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from operator import mul
from statistics import NormalDist

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from perfwalk.analysis.float_arrays import Floats, numbers

#: Neighbour differences per block of the local scale (more for very long series).
_BLOCK = 8
#: Blocks of local scale a series is cut into at most (longer series: longer blocks).
_BLOCKS = 4000
#: Blocks on each side whose median is the broad local scale.
_REACH = 4
#: The narrow local scale (the largest of three neighbouring blocks) counts this much.
_NARROW = 0.75
#: A stretch is at most this much quieter (variance) than the series as a whole.
_QUIET = 0.5
#: Lags of the variogram: short, so that few pairs straddle a step the levels missed.
_LAGS = (1, 2, 3, 4, 6, 8)
#: Pairs sampled per lag, and the fewest a lag needs to count.
_PAIRS = 1500
_FEWEST = 60
#: Fraction of the squared standardised differences kept by the variogram.
_KEPT = 0.8
#: A squared standardised difference counts at most this much in the noise factor.
_WINSOR = 25.0
#: Candidate values of the AR(1) coefficient.
_PHIS = tuple(k / 20 for k in range(1, 17))
#: How much better (in chi-square units) than white noise a fit must be to be believed.
_SIGNIFICANT = 12.0
#: How many sampling noises the correlation must show by lag 4.
_SHORT_EVIDENCE = 2.5
#: The local level model is fitted to at most this many points (means of blocks).
_WALK_POINTS = 2000
#: Random-walk variances (per point, over the noise's) the local level model tries.
_WALK_RATIOS = (0.0, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2)
#: Log-likelihood by which a random walk must beat a steady level.
_WALK_LIKELIHOOD = 5.0


def local_variances(jumps: Sequence[float], scale: float, floor: float) -> tuple[int, list[float]]:
    """The noise variance of the points (``len(jumps) + 1`` of them) from the absolute
    differences of neighbouring points ``jumps``: (block size, the variance of each
    block of that many points; the last block takes the points beyond).

    The series is cut into blocks of 8 differences (fewer than 4 000 blocks); each
    block's scale is the median difference. A block's variance is the larger of the
    broad one (the median of the 9 blocks around it) and ¾² of the narrow one (the
    largest of the 3 blocks around it): in even noise the broad variance holds, a
    loaded stretch raises the narrow one from its first block on. Then all are
    scaled so that their median is ``scale``² (the series' noise, from its trimmed
    neighbour differences: a block's median moves when a step is in it, and a
    staircase has many). Never below ``_QUIET`` of ``scale``² (a stretch of a few
    blocks looks quiet by chance more often than a test can afford), nor ``floor``².
    """
    size = max(_BLOCK, -(-len(jumps) // _BLOCKS))
    starts = list(range(0, len(jumps), size))
    if len(starts) > 1 and len(jumps) - starts[-1] < size // 2:
        del starts[-1]  # a short last block: the one before it takes its differences
    if not starts:
        return size, [floor * floor]
    whole = len(starts) - 1  # blocks of ``size`` differences; the last one takes the rest
    rows = np.sort(numbers(jumps)[: whole * size].reshape(whole, size), axis=1)
    middle = rows[:, size // 2] if size % 2 else 0.5 * (rows[:, size // 2 - 1] + rows[:, size // 2])
    scales = np.append(middle, _median(sorted(jumps[starts[-1] :])))
    squares = scales * scales
    broad = _window_medians(squares, _REACH)
    before, after = np.append(squares[:1], squares[:-1]), np.append(squares[1:], squares[-1:])
    narrow = np.maximum(np.maximum(squares, before), after)
    local = np.maximum(broad, _NARROW * _NARROW * narrow)
    typical = _median(np.sort(local).tolist())
    ratio = scale * scale / typical if typical > 0 else 1.0
    least = max(_QUIET * scale * scale, floor * floor)
    variances: list[float] = np.maximum(local * ratio, least).tolist()
    return size, variances


def _window_medians(values: Floats, reach: int) -> Floats:
    """The median of each of ``values`` and the ``reach`` values on each side of it
    (fewer near the ends)."""
    count = len(values)
    out = np.empty(count)
    if count > 2 * reach:
        out[reach : count - reach] = np.sort(sliding_window_view(values, 2 * reach + 1), axis=1)[
            :, reach
        ]
    for b in {*range(min(reach, count)), *range(max(reach, count - reach), count)}:
        out[b] = _median(np.sort(values[max(0, b - reach) : b + reach + 1]).tolist())
    return out


def _median(values: list[float]) -> float:
    m = len(values)
    return values[m // 2] if m % 2 else 0.5 * (values[m // 2 - 1] + values[m // 2])


@dataclass(frozen=True)
class Correlation:
    """Noise as white noise + AR(1) (coefficient ``phi``) + a random walk, in units
    of its lag-one semivariance: half the mean square difference of points ``h``
    apart is ``white + ar * (1 - phi**h) + walk * h``, which is 1 at ``h = 1``."""

    white: float = 1.0
    ar: float = 0.0
    phi: float = 0.0
    walk: float = 0.0

    def variance(self, before: float, after: float, *, walk: bool = True) -> float:
        """The variance of (mean of ``after`` points) − (mean of the ``before`` points
        just before them), for noise of lag-one semivariance 1; ``walk=False``: of its
        stationary part only."""
        l1, l2 = before, after
        v = self.white * (1 / l1 + 1 / l2)
        if self.ar:
            phi = self.phi
            v += self.ar * (
                _ar_mean(phi, l1)
                + _ar_mean(phi, l2)
                - 2 * phi * (1 - phi**l1) * (1 - phi**l2) / (l1 * l2 * (1 - phi) ** 2)
            )
        if walk and self.walk:
            v += (
                2
                * self.walk
                * ((l1 - 1) * (2 * l1 - 1) / (6 * l1) + (l2 + 1) * (2 * l2 + 1) / (6 * l2))
            )
        return v

    def long_run(self) -> float:
        """How many times the variance of a long mean of the stationary part exceeds
        that of white noise of the same lag-one semivariance."""
        return self.white + (self.ar * (1 + self.phi) / (1 - self.phi) if self.ar else 0.0)

    @property
    def autocorrelation(self) -> float:
        """The lag-one autocorrelation of the stationary part (0 for white noise)."""
        if not self.ar:
            return 0.0
        return self.ar * self.phi / (self.white + self.ar)


WHITE = Correlation()


def _ar_mean(phi: float, length: float) -> float:
    """Variance of the mean of ``length`` points of unit AR(1) noise."""
    return (
        (1 + phi) / (1 - phi) - 2 * phi * (1 - math.pow(phi, length)) / (length * (1 - phi) ** 2)
    ) / length


@dataclass(frozen=True)
class NoiseFit:
    """What :func:`fit_correlation` measured: the correlation, and ``factor``, the mean
    square of the neighbour differences over what the local variances predict (above 1
    when the noise is not Gaussian, e.g. bimodal, and the medians saw only its core)."""

    correlation: Correlation
    factor: float


def fit_correlation(
    y: Sequence[float], variances: Sequence[float], edges: Sequence[int]
) -> NoiseFit:
    """The correlation of the noise of ``y`` around the levels between ``edges``
    (0, the breaks, ``len(y)``), as white noise + AR(1): only pairs of points of one
    level count, each difference over the local noise of its two points; the unit is
    the neighbour differences of the whole series (inside the levels neighbours
    differ less: a break is where two of them differ most).

    The levels should be many and short (a first search): a level that a merge left
    with a step in it looks correlated at long lags. The fit is kept only when it
    beats white noise by _SIGNIFICANT (chi-square units) and shows its correlation by
    lag 4 already (where a step the levels missed weighs little)."""
    levels = [(a, b) for a, b in pairwise(edges) if b - a > 1]
    longest = max((b - a for a, b in levels), default=0)
    points, noise = numbers(y), numbers(variances)
    lags, values, weights = [], [], []
    factor = 1.0
    for h in _LAGS:
        if 2 * h > longest:
            break
        per_level = _standardised_squares(points, noise, levels, h)
        pairs = sum(len(squares) for squares in per_level)
        if pairs < _FEWEST:
            break
        if h == 1:  # each level's mean square, the median of them
            factor = max(
                1.0,
                _weighted_median(
                    [
                        (math.fsum(min(s, _WINSOR) for s in squares) / len(squares), len(squares))
                        for squares in per_level
                    ]
                ),
            )
        value = _trimmed_mean_square([s for squares in per_level for s in squares])
        lags.append(h)
        values.append(value)
        weights.append(pairs / (3 * max(value, 1e-3) ** 2))  # about 1 / sampling variance
    if len(lags) < 3:  # too few pairs for a variogram: the residuals' autocorrelation
        return NoiseFit(_short_correlation(y, levels), factor)
    (every,) = _standardised_squares(points, noise, [(0, len(y))], 1)
    unit = _trimmed_mean_square(every) if every else 0.0
    if unit <= 0:
        return NoiseFit(WHITE, factor)
    return NoiseFit(_fit(lags, [v / unit for v in values], weights), factor)


def _short_correlation(y: Sequence[float], levels: Sequence[tuple[int, int]]) -> Correlation:
    """AR(1) with the lag-one autocorrelation of the points around their level's mean
    (none when it is not positive), for a series too short for a variogram: no test
    of significance is possible, and slow moves of the machine between neighbouring
    checkouts are the rule in a short walk, not the exception."""
    lagged = squares = 0.0
    for a, b in levels:
        mean = math.fsum(y[a:b]) / (b - a)
        r = [v - mean for v in y[a:b]]
        lagged += math.fsum(map(mul, r[1:], r[:-1]))
        squares += math.fsum(map(mul, r, r))
    phi = min(max(_PHIS), lagged / squares) if squares > 0 else 0.0
    if phi <= 0:
        return WHITE
    return Correlation(0.0, 1 / (1 - phi), phi, 0.0)


def _fit(lags: list[int], values: list[float], weights: list[float]) -> Correlation:
    """The semivariogram ``values`` (near 1 at lag 1) as white + AR(1) (non-negative
    least squares over a grid of AR coefficients), normalised to 1 at lag 1; white
    noise unless that beats a flat line clearly."""
    flat = math.fsum(w * v for v, w in zip(values, weights, strict=True)) / math.fsum(weights)
    best = (flat, 0.0, 0.0)
    best_residual = math.inf
    for phi in _PHIS:
        columns = ([1.0] * len(lags), [1 - phi**h for h in lags])
        for subset in ((0,), (1,), (0, 1)):
            coefficients = _least_squares([columns[i] for i in subset], values, weights)
            if coefficients is None or min(coefficients) < 0:
                continue
            full = [0.0, 0.0]
            for i, c in zip(subset, coefficients, strict=True):
                full[i] = c
            residual = math.fsum(
                w * (v - full[0] - full[1] * (1 - phi**h)) ** 2
                for h, v, w in zip(lags, values, weights, strict=True)
            )
            if residual < best_residual:
                best_residual, best = residual, (full[0], full[1], phi)
    white, ar, phi = best
    gain = math.fsum(w * (v - flat) ** 2 for v, w in zip(values, weights, strict=True))
    gain -= best_residual
    at4 = next((i for i, h in enumerate(lags) if h >= 4), len(lags) - 1)
    rise = ar * (phi - phi ** lags[at4])  # from lag 1 to lag 4
    if not ar or gain < _SIGNIFICANT or rise * math.sqrt(weights[at4]) < _SHORT_EVIDENCE:
        return WHITE
    lag1 = white + ar * (1 - phi)
    return Correlation(white / lag1, ar / lag1, phi, 0.0)


def with_walk(
    correlation: Correlation,
    sums: Sequence[float],
    variance_sums: Sequence[float],
    edges: Sequence[int],
) -> Correlation:
    """``correlation`` with the random walk of the local level model (a level that
    moves by a random step at each point, seen through white noise) when its
    likelihood beats a steady level's by _WALK_LIKELIHOOD inside the levels between
    ``edges`` (a break starts a new level). ``sums`` and ``variance_sums`` are the
    running sums of the points and of their noise variances (``sums[i]``: of the
    points before ``i``). Each level gives its most likely walk and the median of
    them (weighted by points) is taken: a step the levels missed makes its level
    look like a walk, a walk makes them all. Long series: means of blocks of points.

    A slow walk shows in a variogram at long lags only, where the levels that cut it
    up leave few pairs; the likelihood sees it at every point. Noise that is already
    correlated is left as it is (AR(1) is a walk at short lags)."""
    if correlation.ar:
        return correlation
    size = max(1, -(-(len(sums) - 1) // _WALK_POINTS))
    levels = []
    for a, b in pairwise(edges):
        first, last = -(-a // size), b // size  # the whole blocks inside the level
        if last - first >= 3:
            levels.append(
                [
                    (
                        (sums[(k + 1) * size] - sums[k * size]) / size,
                        (variance_sums[(k + 1) * size] - variance_sums[k * size]) / size**2,
                    )
                    for k in range(first, last)
                ]
            )
    if not levels:
        return correlation
    table = [[_local_level(points, r) for r in _WALK_RATIOS] for points in levels]
    chosen = _weighted_median(
        [
            (_WALK_RATIOS[max(range(len(_WALK_RATIOS)), key=row.__getitem__)], len(points))
            for row, points in zip(table, levels, strict=True)
        ]
    )
    if not chosen:
        return correlation
    k = _WALK_RATIOS.index(chosen)
    if math.fsum(row[k] - row[0] for row in table) < _WALK_LIKELIHOOD:
        return correlation
    walk = chosen / 2 / (size * size)  # semivariance per point, in units of the noise's
    return Correlation(1 / (1 + walk), 0.0, 0.0, walk / (1 + walk))


def _local_level(points: list[tuple[float, float]], ratio: float) -> float:
    """The profile log-likelihood of the local level model (random-walk variance
    ``ratio`` times the noise's) for ``points`` (value, its noise variance): the
    Kalman filter from a diffuse start."""
    logs = squares = 0.0
    level, spread = points[0][0], 1.0  # after the first point, in units of its noise
    for value, variance in points[1:]:
        spread += ratio
        total = spread + 1.0
        error = value - level
        logs += math.log(total)
        squares += error * error / (total * variance)
        gain = spread / total
        level += gain * error
        spread *= 1 - gain
    count = len(points) - 1
    return -0.5 * (logs + count * math.log(squares / count)) if squares > 0 else 0.0


def _weighted_median(values: list[tuple[float, int]]) -> float:
    values.sort()
    half = sum(w for _, w in values) / 2
    running = 0
    for value, weight in values:
        running += weight
        if running >= half:
            return value
    return values[-1][0]


def _standardised_squares(
    y: Floats, variances: Floats, levels: Sequence[tuple[int, int]], h: int
) -> list[list[float]]:
    """(y[t+h] - y[t])² / (v[t] + v[t+h]) for the pairs inside each level (about
    _PAIRS of them in all)."""
    kept = [(a, b) for a, b in levels if b - a > h]
    if not kept:
        return []
    step = max(1, sum(b - a - h for a, b in kept) // _PAIRS)
    firsts = np.array([a for a, _ in kept])
    counts = -(-(np.array([b for _, b in kept]) - h - firsts) // step)
    ends = np.cumsum(counts)
    # the first point of each pair: a, a + step, … below b - h, level by level
    t = np.repeat(firsts, counts) + step * (np.arange(ends[-1]) - np.repeat(ends - counts, counts))
    d = y[t + h] - y[t]
    squares = d * d / (variances[t + h] + variances[t])
    return [part.tolist() for part in np.split(squares, ends[:-1])]


def _trimmed_mean_square(squares: list[float]) -> float:
    """E[Z²] of Gaussian Z from its squares, the largest 20 % left out."""
    squares.sort()
    kept = max(1, int(len(squares) * _KEPT))
    return math.fsum(squares[:kept]) / kept / _trimmed_variance(kept / len(squares))


def _trimmed_variance(fraction: float) -> float:
    """E[Z² | |Z| ≤ q] for the central ``fraction`` of a standard normal Z."""
    if fraction >= 1.0:
        return 1.0
    q = NormalDist().inv_cdf(0.5 + fraction / 2)
    density = math.exp(-q * q / 2) / math.sqrt(2 * math.pi)
    return 1 - 2 * q * density / fraction


def _least_squares(
    columns: list[list[float]], target: list[float], weights: list[float]
) -> list[float] | None:
    """Weighted least squares coefficients of ``target`` on ``columns`` (one or two);
    None when the columns are (nearly) dependent."""
    a = [
        [math.fsum(w * p * q for p, q, w in zip(ci, cj, weights, strict=True)) for cj in columns]
        for ci in columns
    ]
    rhs = [
        math.fsum(w * p * t for p, t, w in zip(ci, target, weights, strict=True)) for ci in columns
    ]
    if len(columns) == 1:
        return [rhs[0] / a[0][0]] if a[0][0] > 0 else None
    det = a[0][0] * a[1][1] - a[0][1] * a[1][0]
    if abs(det) < 1e-12 * a[0][0] * a[1][1]:
        return None
    return [
        (rhs[0] * a[1][1] - rhs[1] * a[0][1]) / det,
        (a[0][0] * rhs[1] - a[1][0] * rhs[0]) / det,
    ]
