"""Per-checkout summaries of one metric: n, mean, median, spread, the policy's summary,
unstable sets and outliers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from perfwalk.model import Direction

SUMMARY_POLICIES = ("mean", "median", "best")


@dataclass(frozen=True)
class Summary:
    """The repetitions of one metric at one checkout (PASS values only)."""

    n: int
    mean: float
    median: float
    min: float
    max: float
    sd: float  # sample standard deviation (n - 1); 0 for n < 2
    rsd: float  # sd / |mean|; 0 when the mean is 0
    summary: float  # by the metric's policy: mean, median or best-of-N
    unstable: bool  # rsd at or above the threshold
    outliers: tuple[int, ...]  # indexes of values at or beyond the outlier distance

    def deviation(self, value: float) -> float:
        """Relative distance of ``value`` from the summary (0 when the summary is 0)."""
        return abs(value - self.summary) / abs(self.summary) if self.summary else 0.0


def summarize(
    values: Sequence[float],
    *,
    policy: str = "mean",
    direction: Direction = Direction.LOWER,
    unstable_rsd: float = 0.025,
    outlier: float = 0.10,
) -> Summary | None:
    """Summarise ``values``; ``None`` for no values.

    ``policy`` is ``mean``, ``median`` or ``best`` (the maximum when higher is
    better, else the minimum). A set is unstable when its relative sample standard
    deviation is at least ``unstable_rsd``; a value is an outlier when it lies at
    least ``outlier`` (relative) away from the summary.
    """
    if policy not in SUMMARY_POLICIES:
        raise ValueError(f"unknown summary policy {policy!r}")
    data = [float(v) for v in values if math.isfinite(v)]
    if not data:
        return None
    n = len(data)
    mean = math.fsum(data) / n
    # two-pass sample variance: exact enough, and ten times faster than statistics.stdev
    sd = math.sqrt(math.fsum([(v - mean) ** 2 for v in data]) / (n - 1)) if n > 1 else 0.0
    rsd = sd / abs(mean) if mean else 0.0
    ordered = sorted(data)
    half = n // 2
    median = ordered[half] if n % 2 else (ordered[half - 1] + ordered[half]) / 2
    low, high = ordered[0], ordered[-1]
    if policy == "mean":
        chosen = mean
    elif policy == "median":
        chosen = median
    else:
        chosen = high if direction is Direction.HIGHER else low
    limit = outlier * abs(chosen)
    if not chosen or (high - chosen < limit and chosen - low < limit):
        marked: tuple[int, ...] = ()  # the common case: no value that far
    else:
        marked = tuple(i for i, v in enumerate(data) if abs(v - chosen) >= limit)
    return Summary(
        n=n,
        mean=mean,
        median=median,
        min=low,
        max=high,
        sd=sd,
        rsd=rsd,
        summary=chosen,
        unstable=n > 1 and rsd >= unstable_rsd,
        outliers=marked,
    )
