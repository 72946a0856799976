"""How far apart two sets of repetitions are, by ranks: robust to spikes and to any noise shape.

The shift is the Hodges–Lehmann estimate (the median of every difference
``after - before``), its confidence interval comes from inverting the Mann–Whitney
test, and the p-value is the two-sided Mann–Whitney test (normal approximation with
the tie and continuity corrections, which errs on the safe side in the far tail).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist


@dataclass(frozen=True)
class Shift:
    """``after`` minus ``before``, estimated from two sets of values."""

    estimate: float  # Hodges–Lehmann: the median of all differences after - before
    low: float  # confidence interval of the shift, at the level asked for
    high: float
    p_value: float  # two-sided Mann–Whitney: no shift at all

    @property
    def half_width(self) -> float:
        """Half the width of the confidence interval."""
        return (self.high - self.low) / 2


def rank_shift(
    before: Sequence[float], after: Sequence[float], *, confidence: float = 0.95
) -> Shift:
    """The shift from ``before`` to ``after``; both need at least one value."""
    if not before or not after:
        raise ValueError("rank_shift needs values on both sides")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie between 0 and 1, not {confidence}")
    differences = sorted(b - a for a in before for b in after)
    count = len(differences)
    middle = count // 2
    estimate = (
        differences[middle] if count % 2 else (differences[middle - 1] + differences[middle]) / 2
    )
    n, m = len(before), len(after)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    k = math.floor(n * m / 2 - z * math.sqrt(n * m * (n + m + 1) / 12))
    k = min(max(k, 0), middle)
    return Shift(
        estimate=estimate,
        low=differences[k],
        high=differences[count - 1 - k],
        p_value=mann_whitney_p(before, after),
    )


def mann_whitney_p(before: Sequence[float], after: Sequence[float]) -> float:
    """Two-sided p-value of the Mann–Whitney test that the two sets differ in location."""
    n, m = len(before), len(after)
    ranks = _midranks([*before, *after])
    u = math.fsum(ranks[n:]) - m * (m + 1) / 2
    total = n + m
    ties = _tie_term([*before, *after])
    variance = n * m / 12 * ((total + 1) - ties / (total * (total - 1)))
    if variance <= 0:
        return 1.0
    z = max(abs(u - n * m / 2) - 0.5, 0.0) / math.sqrt(variance)
    return math.erfc(z / math.sqrt(2))


def _midranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for index in order[start : end + 1]:
            ranks[index] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def _tie_term(values: Sequence[float]) -> float:
    counts: dict[float, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return float(sum(t**3 - t for t in counts.values() if t > 1))
