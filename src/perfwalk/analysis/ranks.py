"""Mann–Whitney U and Cliff's delta: do two samples differ, whatever their shape?

Rank statistics need no normal distribution: one outlier or a bimodal sample does
not decide them. ``U`` counts the pairs (a, b) in which b is larger, ties half;
``p`` is exact (from the distribution of U) for small samples without ties, else
the normal approximation with tie and continuity correction. Cliff's delta,
``P(b > a) - P(b < a)``, is the effect size, from -1 to 1. The Hodges–Lehmann shift
(the median of every difference) comes with the interval that inverts the same test.

Pure: numbers in, a frozen result out.
"""

from __future__ import annotations

import functools
import math
import statistics
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

#: Exact p-values up to this many pairs (the distribution of U has pairs + 1 terms).
EXACT_PAIRS = 2500

#: Romano et al. (2006): below these |delta| an effect is negligible, small, medium.
_MAGNITUDES = ((0.147, "negligible"), (0.33, "small"), (0.474, "medium"))


@dataclass(frozen=True)
class RankTest:
    """Mann–Whitney U of ``b`` against ``a``, with Cliff's delta."""

    n_a: int
    n_b: int
    u: float  # pairs with b > a, ties counted half
    z: float  # standardised U (continuity and tie corrected); 0 for no spread
    p: float  # two-sided
    exact: bool
    delta: float  # Cliff's delta: P(b > a) - P(b < a)

    @property
    def magnitude(self) -> str:
        """Cliff's delta in words: negligible, small, medium or large."""
        size = abs(self.delta)
        for limit, word in _MAGNITUDES:
            if size < limit:
                return word
        return "large"


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> RankTest:
    """Mann–Whitney U of ``b`` against ``a`` (both non-empty)."""
    if not a or not b:
        raise ValueError("both samples need values")
    ordered = sorted(a)
    below = sum(bisect_left(ordered, v) for v in b)
    not_above = sum(bisect_right(ordered, v) for v in b)
    u = 0.5 * (below + not_above)
    m, n = len(a), len(b)
    pairs = m * n
    ties = Counter([*a, *b])
    tied = sum(t**3 - t for t in ties.values() if t > 1)
    exact = tied == 0 and pairs <= EXACT_PAIRS
    total = m + n
    variance = pairs / 12 * ((total + 1) - tied / (total * (total - 1)))
    if variance > 0:
        shift = u - pairs / 2
        shift -= math.copysign(min(0.5, abs(shift)), shift)
        z = shift / math.sqrt(variance)
    else:
        z = 0.0
    if exact:
        p = _exact_p(round(u), m, n)
    else:
        p = 2 * (1 - NormalDist().cdf(abs(z))) if variance > 0 else 1.0
    return RankTest(m, n, u, z, min(1.0, p), exact, (2 * u - pairs) / pairs)


def hodges_lehmann(
    a: Sequence[float], b: Sequence[float], *, confidence: float = 0.95
) -> tuple[float, float, float]:
    """The shift of ``b`` from ``a`` (Hodges–Lehmann: the median of every difference
    b − a) and its distribution-free interval at ``confidence``, from the distribution
    of U (exact up to :data:`EXACT_PAIRS` pairs, else its normal approximation);
    infinite ends when the samples are too small to reach that confidence."""
    diffs = sorted(y - x for x in a for y in b)
    pairs = len(diffs)
    tail = (1 - confidence) / 2
    m, n = len(a), len(b)
    k = _interval_rank(m, n, tail)
    shift = statistics.median(diffs)
    if k == 0:
        return shift, -math.inf, math.inf
    return shift, diffs[k - 1], diffs[pairs - k]


@functools.lru_cache(maxsize=256)
def _interval_rank(m: int, n: int, tail: float) -> int:
    """How many of the smallest (and largest) differences of samples of m and n values
    lie outside the interval whose each tail holds at most ``tail`` of U's distribution."""
    pairs = m * n
    if pairs > EXACT_PAIRS:
        z = NormalDist().inv_cdf(1 - tail)
        return max(0, math.floor(pairs / 2 - z * math.sqrt(m * n * (m + n + 1) / 12)))
    counts = _u_counts(m, n)
    total = math.comb(m + n, m)
    k, below = 0, 0
    while (below + counts[k]) / total <= tail:
        below += counts[k]
        k += 1
    return k


def _exact_p(u: int, m: int, n: int) -> float:
    """Two-sided p of U = u for samples of m and n values without ties."""
    counts = _u_counts(m, n)
    tail = min(u, m * n - u)
    return min(1.0, 2 * sum(counts[: tail + 1]) / math.comb(m + n, m))


@functools.lru_cache(maxsize=256)
def _u_counts(m: int, n: int) -> tuple[int, ...]:
    """:func:`u_distribution`, kept: samples of the same sizes are compared often (every
    counter of a change)."""
    return tuple(u_distribution(m, n))


def u_distribution(m: int, n: int) -> list[int]:
    """How many orderings give U = 0, 1, …, m·n: the coefficients of the Gaussian
    binomial [m + n choose m], ∏ (1 - q^(n+i)) / (1 - q^i) for i = 1..m."""
    size = m * n + 1
    poly = [0] * size
    poly[0] = 1
    for i in range(1, m + 1):
        for k in range(size - 1, n + i - 1, -1):
            poly[k] -= poly[k - n - i]
        for k in range(i, size):
            poly[k] += poly[k - i]
    return poly
