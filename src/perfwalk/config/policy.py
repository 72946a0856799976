"""The one lookup of a metric's policy (:class:`perfwalk.policy.MetricPolicy`) in a
configuration: the metric's own ``[test.metrics.<name>]``, else the file's
``[analysis]``, else the defaults of :mod:`perfwalk.policy`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from perfwalk.policy import MetricPolicy

if TYPE_CHECKING:
    from perfwalk.config.model import Config
    from perfwalk.model import Direction


def metric_policy(
    config: Config | None, test: str, name: str, unit: str, direction: Direction
) -> MetricPolicy:
    """The policy of the value ``name`` of ``test``, as stored: in ``unit``, better in
    ``direction`` (both decided when it was measured, by
    :meth:`perfwalk.config.model.TestConfig.metric`, and stored with each value).

    A test the configuration does not name has the thresholds of its
    ``[analysis]``; without a configuration, the defaults."""
    if config is None:
        return MetricPolicy(direction=direction)
    for configured in config.tests:
        if configured.name == test:
            metric = configured.metric(name, unit)
            return MetricPolicy(
                summary=metric.summary,
                direction=direction,
                unstable_rsd=metric.unstable_rsd,
                outlier=metric.outlier,
                threshold=metric.threshold,
                min_size=metric.min_size,
                min_change=metric.min_change,
                ignore=metric.ignore,
                configured=True,
            )
    return MetricPolicy(
        direction=direction,
        unstable_rsd=config.analysis.unstable_rsd,
        outlier=config.analysis.outlier,
        threshold=config.analysis.threshold,
        min_size=config.analysis.min_size,
        min_change=config.analysis.min_change,
    )
