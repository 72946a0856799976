"""A metric's policy: the one number that summarises its repetitions at a checkout,
which way is better, when a repetition set is unstable and a value an outlier, and
how large and how certain a change of its level must be to be reported.

The defaults are declared here, once: :mod:`perfwalk.config.settings` offers them as
the defaults of ``[analysis]`` and ``[test.metrics.<name>]``,
:func:`perfwalk.analysis.summary.summarize` takes them when given none, and
:func:`perfwalk.config.policy.metric_policy` is the one lookup of a stored metric's
policy in a configuration (tables, pages, change detection).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from perfwalk.model import Direction

#: the one number of a repetition set: its mean, its median or its best value
Summary = Literal["mean", "median", "best"]
SUMMARIES: tuple[Summary, ...] = ("mean", "median", "best")
DEFAULT_SUMMARY: Summary = "mean"
#: a checkout's point for change detection when no configuration names the test:
#: the median, which one bad repetition does not move (docs/analysis.md)
UNCONFIGURED_DETECTION_SUMMARY: Summary = "median"
#: the relative sample standard deviation at or above which a set is unstable
DEFAULT_UNSTABLE_RSD = 0.025
#: the relative distance from the summary at or beyond which a value is an outlier
DEFAULT_OUTLIER = 0.10
#: the change detector's: standard errors a change of level must reach
DEFAULT_THRESHOLD = 4.2
#: the change detector's: the fewest checkouts of a level (fewer at an end: "at the edge")
DEFAULT_MIN_SIZE = 3
#: the change detector's: the smallest relative change reported, however certain
DEFAULT_MIN_CHANGE = 0.01
#: the same, for an instrument's exact count (instructions, simulated cycles): the
#: machine does not move it, so a step a tenth of a percent high is as plain on a plot
#: as one of ten percent (its own ``[test.metrics.<name>] min_change`` replaces it)
EXACT_COUNT_MIN_CHANGE = 0.001
#: the fewest checkouts of an exact count's level: its repetitions agree, so two
#: checkouts make a level as surely as three of a wall time (one alone stays an
#: excursion, or a step at the edge)
EXACT_COUNT_MIN_SIZE = 2


@dataclass(frozen=True)
class MetricPolicy:
    """How one metric is summarised and marked."""

    summary: Summary = DEFAULT_SUMMARY
    direction: Direction = Direction.LOWER
    unstable_rsd: float = DEFAULT_UNSTABLE_RSD
    outlier: float = DEFAULT_OUTLIER
    threshold: float = DEFAULT_THRESHOLD
    min_size: int = DEFAULT_MIN_SIZE
    min_change: float = DEFAULT_MIN_CHANGE
    ignore: bool = False  # kept, but left out of the analysis
    configured: bool = False  # a configuration names the metric's test

    @property
    def detection_summary(self) -> Summary:
        """The summary of a checkout's point for change detection."""
        return self.summary if self.configured else UNCONFIGURED_DETECTION_SUMMARY
