"""Per-checkout summaries of one metric: n, mean, median, spread, the policy's summary,
unstable sets and outliers."""

from __future__ import annotations

import dataclasses
import math
import statistics
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
    mean = statistics.fmean(data)
    sd = statistics.stdev(data) if len(data) > 1 else 0.0
    rsd = sd / abs(mean) if mean else 0.0
    median = statistics.median(data)
    best = max(data) if direction is Direction.HIGHER else min(data)
    chosen = {"mean": mean, "median": median, "best": best}[policy]
    result = Summary(
        n=len(data),
        mean=mean,
        median=median,
        min=min(data),
        max=max(data),
        sd=sd,
        rsd=rsd,
        summary=chosen,
        unstable=len(data) > 1 and rsd >= unstable_rsd,
        outliers=(),
    )
    marked = tuple(i for i, v in enumerate(data) if result.deviation(v) >= outlier)
    return dataclasses.replace(result, outliers=marked)
