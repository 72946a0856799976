"""The change detector's thresholds for one metric: those given for a run (the
command line) over the metric's own policy (:class:`perfwalk.policy.MetricPolicy`:
``[test.metrics.NAME]``, else ``[analysis]``, else the defaults)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from perfwalk.analysis.segments import DEFAULT_TUNING, Tuning
from perfwalk.policy import MetricPolicy


@dataclass(frozen=True)
class Thresholds:
    """The change detector's thresholds as given for a run (the command line); None:
    each metric's own (``[test.metrics.NAME]``, else ``[analysis]``, else the
    defaults)."""

    threshold: float | None = None
    min_size: int | None = None
    min_change: float | None = None

    def tuning(self, policy: MetricPolicy | None = None) -> Tuning:
        """The detector's tuning for a metric of ``policy`` (None: the defaults)."""
        base = (
            DEFAULT_TUNING
            if policy is None
            else replace(
                DEFAULT_TUNING,
                threshold=policy.threshold,
                min_size=policy.min_size,
                min_change=policy.min_change,
            )
        )
        given = {k: v for k, v in vars(self).items() if v is not None}
        return replace(base, **given)


#: Each metric's own thresholds (nothing given for the run).
CONFIGURED = Thresholds()
