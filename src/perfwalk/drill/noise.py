"""The shape of the noise of one repetition, learned from the repetitions at the two ends.

A drill compares each repetition with two levels, the one before the change and the
one after it. Real noise is rarely Gaussian: runs spike (a cold cache, a daemon
waking up) and many metrics are bimodal (two placements of a buffer, two NUMA
nodes). So the shape is not assumed, it is learned: the values at the last
checkout before the change, and those at the first checkout after it moved back by
the change, are one pool of draws from the before level; a kernel density estimate
of that pool is the density of a repetition at the before level, the same density
moved by the change is the density at the after level.

Two guards keep one repetition from counting for much: a small share of the density
is a wide Cauchy (a spike is about as likely at either level, so it says little),
and each repetition's log-likelihood ratio is clipped to ``max_sample_evidence``
(so no single value decides anything).
"""

from __future__ import annotations

import bisect
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from perfwalk.analysis.scaled import sample_sd

_SQRT_2PI = math.sqrt(2 * math.pi)
_KERNEL_REACH = 8.0  # kernels are ignored beyond this many bandwidths
_SPIKE_WIDTH = 3.0  # the Cauchy's scale, in robust standard deviations of the pool


@dataclass(frozen=True)
class NoiseModel:
    """The density of one repetition at the before level."""

    pool: tuple[float, ...]  # sorted values at the before level
    bandwidth: float  # of the Gaussian kernels
    spread: float  # robust standard deviation of the pool
    centre: float  # median of the pool
    spike_fraction: float  # share of the density given to the wide Cauchy

    @classmethod
    def from_ends(
        cls,
        before: Sequence[float],
        after: Sequence[float],
        shift: float,
        *,
        shift_error: float,
        spike_fraction: float,
    ) -> NoiseModel:
        """Pool ``before`` and ``after`` moved back by ``shift``; both need values.

        ``shift_error`` (the standard error of ``shift``) widens the kernels: a
        level known only roughly must not be trusted to the last decimal.
        """
        if not before or not after:
            raise ValueError("a noise model needs values at both ends")
        pool = without_spikes(sorted([*before, *(value - shift for value in after)]))
        centre = _quantile(pool, 0.5)
        spread = sample_sd(pool)
        # a deterministic metric has no spread: keep the kernels narrow but not empty
        floor = max(abs(shift) / 50, abs(centre) * 1e-9, 1e-12)
        bandwidth = math.hypot(0.9 * spread * len(pool) ** -0.2, shift_error)
        return cls(
            pool=tuple(pool),
            bandwidth=max(bandwidth, floor),
            spread=spread,
            centre=centre,
            spike_fraction=spike_fraction,
        )

    def log_density(self, x: float) -> float:
        """Log density of one repetition worth ``x`` at the before level."""
        h = self.bandwidth
        lo = bisect.bisect_left(self.pool, x - _KERNEL_REACH * h)
        hi = bisect.bisect_right(self.pool, x + _KERNEL_REACH * h)
        kernels = math.fsum(math.exp(-0.5 * ((x - y) / h) ** 2) for y in self.pool[lo:hi])
        smooth = kernels / (len(self.pool) * h * _SQRT_2PI)
        width = max(_SPIKE_WIDTH * self.spread, h)
        far = (x - self.centre) / width
        wide = 1 / (math.pi * width * (1 + far**2)) if abs(far) < 1e150 else 0.0
        density = (1 - self.spike_fraction) * smooth + self.spike_fraction * wide
        # a value so far away that even the Cauchy gives it no density: the least there is
        return math.log(max(density, sys.float_info.min))

    def evidence(self, x: float, toward: float, against: float, limit: float) -> float:
        """Clipped log-likelihood ratio of ``x`` at a level ``toward`` over one ``against``.

        Levels are offsets from the before level (0 is the before level, the change
        is the after level).
        """
        ratio = self.log_density(x - toward) - self.log_density(x - against)
        return min(max(ratio, -limit), limit)


def without_spikes(ordered: Sequence[float]) -> list[float]:
    """``ordered`` (sorted) without its spikes: the few values far from all the others.

    Values beyond 8 scaled median absolute deviations from the median are spikes
    when they are few on their side (at most 5 % of the values, or one): a spike
    ×1.3 on a metric with 2 % noise. Many far values on one side are a mode of
    bimodal noise and stay.
    """
    if len(ordered) < 5:
        return list(ordered)
    median = _quantile(ordered, 0.5)
    reach = 8 * _mad(ordered)
    if reach <= 0:
        return list(ordered)
    allowed = max(1, math.floor(0.05 * len(ordered)))
    high = [v for v in ordered if v > median + reach]
    low = [v for v in ordered if v < median - reach]
    drop_high = len(high) <= allowed
    drop_low = len(low) <= allowed
    return [
        v
        for v in ordered
        if not (drop_high and v > median + reach) and not (drop_low and v < median - reach)
    ]


def _mad(ordered: Sequence[float]) -> float:
    median = _quantile(ordered, 0.5)
    return 1.4826 * _quantile(sorted(abs(v - median) for v in ordered), 0.5)


def _quantile(ordered: Sequence[float], q: float) -> float:
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
