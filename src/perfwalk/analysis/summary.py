"""Per-checkout summaries of one metric: n, mean, median, spread, the policy's summary,
unstable sets and outliers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from perfwalk.analysis.scaled import exponent, midpoint, relative_distance, scale, scaled
from perfwalk.model import Direction
from perfwalk.policy import DEFAULT_OUTLIER, DEFAULT_SUMMARY, DEFAULT_UNSTABLE_RSD, SUMMARIES


@dataclass(frozen=True)
class Summary:
    """The repetitions of one metric at one checkout (PASS values only)."""

    n: int
    mean: float
    median: float
    min: float
    max: float
    sd: float  # sample standard deviation (n - 1); 0 for n < 2; inf beyond the float range
    rsd: float  # sd / |mean|; 0 when the mean is 0; inf (unstable) when sd is inf
    summary: float  # by the metric's policy: mean, median or best-of-N
    unstable: bool  # rsd at or above the threshold
    outliers: tuple[int, ...]  # indexes of values at or beyond the outlier distance

    def deviation(self, value: float) -> float:
        """Relative distance of ``value`` from the summary (0 when the summary is 0)."""
        return relative_distance(value, self.summary) if self.summary else 0.0


def summarize(
    values: Sequence[float],
    *,
    policy: str = DEFAULT_SUMMARY,
    direction: Direction = Direction.LOWER,
    unstable_rsd: float = DEFAULT_UNSTABLE_RSD,
    outlier: float = DEFAULT_OUTLIER,
) -> Summary | None:
    """Summarise ``values``; ``None`` for no values.

    ``policy`` is ``mean``, ``median`` or ``best`` (the maximum when higher is
    better, else the minimum). A set is unstable when its relative sample standard
    deviation is at least ``unstable_rsd``; a value is an outlier when it lies at
    least ``outlier`` (relative) away from the summary. The defaults are those of
    :mod:`perfwalk.policy`; a stored metric's are
    :func:`perfwalk.config.policy.metric_policy`'s.
    """
    if policy not in SUMMARIES:
        raise ValueError(f"unknown summary policy {policy!r}")
    data = [float(v) for v in values if math.isfinite(v)]
    found = moments(data)
    if found is None:
        return None
    n, mean, median, low, high, sd = found
    rsd = relative_sd(mean, sd)
    chosen = choose(policy, direction, found)
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
        outliers=outliers_of(data, chosen, low, high, outlier),
    )


class Moments(NamedTuple):
    """What a summary is made of, whatever the policy: kept with the values by the
    store, so that a long series is summarised without reading its values again."""

    n: int
    mean: float
    median: float
    min: float
    max: float
    sd: float


def moments(data: Sequence[float]) -> Moments | None:
    """The moments of ``data`` (finite numbers); ``None`` when it is empty."""
    if not data:
        return None
    n = len(data)
    # on values scaled by a power of two when they are far from 1: sums never overflow
    k = exponent(data)
    x = scaled(data, k)
    mean = math.fsum(x) / n
    # two-pass sample variance: exact enough, and ten times faster than statistics.stdev
    sd = math.sqrt(math.fsum([(v - mean) ** 2 for v in x]) / (n - 1)) if n > 1 else 0.0
    ordered = sorted(data)
    half = n // 2
    median = ordered[half] if n % 2 else midpoint(ordered[half - 1], ordered[half])
    return Moments(n, scale(mean, k), median, ordered[0], ordered[-1], scale(sd, k))


def relative_sd(mean: float, sd: float) -> float:
    """sd / |mean|; 0 when the mean is 0, unless sd is beyond the float range (inf:
    such a set is flagged unstable whatever its mean)."""
    if mean:
        return sd / abs(mean)
    return math.inf if math.isinf(sd) else 0.0


def choose(policy: str, direction: Direction, found: Moments) -> float:
    """The summary by ``policy``: the mean, the median or the best of the values."""
    if policy == "mean":
        return found.mean
    if policy == "median":
        return found.median
    return found.max if direction is Direction.HIGHER else found.min


def outliers_of(
    data: Sequence[float], chosen: float, low: float, high: float, outlier: float
) -> tuple[int, ...]:
    """Indexes of the values of ``data`` (``low`` … ``high``) at least ``outlier``
    (relative) away from ``chosen``."""
    if not may_have_outliers(chosen, low, high, outlier):
        return ()  # the common case: no value that far
    limit = outlier * abs(chosen)
    return tuple(i for i, v in enumerate(data) if abs(v - chosen) >= limit)


def may_have_outliers(chosen: float, low: float, high: float, outlier: float) -> bool:
    """Whether a value between ``low`` and ``high`` lies ``outlier`` (relative) or
    farther from ``chosen``: when not, no value needs to be looked at."""
    limit = outlier * abs(chosen)
    return bool(chosen) and (high - chosen >= limit or chosen - low >= limit)
