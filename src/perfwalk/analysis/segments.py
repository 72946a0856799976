"""What the search for changes of level (:mod:`perfwalk.analysis.segmentation`)
finds — breaks, excursions, drifts — and the knobs of that search."""

from __future__ import annotations

import math
from dataclasses import dataclass

from perfwalk.analysis.noise import WHITE, Correlation
from perfwalk.policy import DEFAULT_MIN_CHANGE, DEFAULT_MIN_SIZE, DEFAULT_THRESHOLD


@dataclass(frozen=True)
class Tuning:
    """The knobs of the search; the defaults are the measured ones (docs/analysis.md).

    ``threshold``: standard errors a break must reach on long levels; ``short_level``:
    how the bar rises for short ones; ``min_effect``: the smallest step, in noise
    units; ``min_size``: the fewest points of a level; ``candidate_threshold``: the
    moving-sum peaks worth a look; ``clip``: how far (noise units) a point between
    two jumps may lie from its neighbours' median before it is taken for a spike;
    ``prior_weight``: how many points the local noise (from the medians of neighbour
    differences) weighs against the levels' own neighbour differences.

    ``min_change``: the smallest relative change reported, however certain (0: every
    certain change; :data:`DEFAULT_TUNING` has 1 %). ``jump_window``: a break between
    longer levels must also show as a jump between the ``jump_window`` points on
    each side of it, of at least ``jump_threshold`` standard errors and
    ``jump_share`` of the step (slow drift has none). ``excursion``: a level of at
    most this many points between two levels that do not differ is an excursion,
    not two changes.
    """

    threshold: float = DEFAULT_THRESHOLD
    short_level: float = 5.0
    min_effect: float = 1.0
    min_size: int = DEFAULT_MIN_SIZE
    candidate_threshold: float = 2.5
    clip: float = 2.5
    prior_weight: float = 10.0
    min_change: float = 0.0
    jump_window: int = 20
    jump_threshold: float = 3.5
    jump_share: float = 0.5
    excursion: int = 11

    def __post_init__(self) -> None:
        if self.min_size < 1:
            raise ValueError("min_size must be at least 1")
        knobs = (self.threshold, self.candidate_threshold, self.clip, self.short_level)
        if not all(0 < knob < math.inf for knob in knobs):  # NaN too: it would find nothing
            raise ValueError("thresholds must be positive finite numbers")
        if not 0 <= self.min_effect < math.inf or not 0 <= self.prior_weight < math.inf:
            raise ValueError("min_effect and prior_weight must be finite and not negative")
        if not 0 <= self.min_change < math.inf:
            raise ValueError("min_change must be a finite number >= 0")
        if not (self.jump_window >= 1 and 0 < self.jump_threshold < math.inf):
            raise ValueError("jump_window must be at least 1, jump_threshold positive")
        if not (0 <= self.jump_share < math.inf and self.excursion >= 0):
            raise ValueError("jump_share and excursion must be finite and not negative")


@dataclass(frozen=True)
class Break:
    """A change of level at point ``index`` (the first point of the new level).

    Levels are means (spikes replaced) in the units of the data; ``stderr`` is the standard
    error of ``after - before`` (autocorrelation included); ``t`` the test statistic
    (``(after - before) / stderr``); ``size_before``/``size_after`` the number of
    points of each level.
    """

    index: int
    before: float
    after: float
    stderr: float
    t: float
    size_before: int
    size_after: int


@dataclass(frozen=True)
class Excursion:
    """Points ``start`` … ``end - 1`` away from a level they came back to: ``level`` is
    their mean, ``base`` the mean of the level around them (in the units of the data,
    as :class:`Break`'s levels), ``t`` the difference over its standard error."""

    start: int
    end: int
    level: float
    base: float
    stderr: float
    t: float


@dataclass(frozen=True)
class Drift:
    """A level whose points move slowly, without a step: the straight line through
    points ``start`` … ``end - 1`` goes from ``first`` to ``last``; ``t`` is that
    change over its standard error (the noise's correlation included)."""

    start: int
    end: int
    first: float
    last: float
    stderr: float
    t: float


@dataclass(frozen=True)
class Segmentation:
    breaks: tuple[Break, ...]
    noise: float  # the noise scale s, in the units of the data
    autocorrelation: float  # of the noise's stationary part, 0 when none or negative
    center: float  # the median of the points (of a sample of 2000 of them)
    #: breaks that leave fewer than ``min_size`` points at either end of the series
    edges: tuple[Break, ...] = ()
    excursions: tuple[Excursion, ...] = ()
    drifts: tuple[Drift, ...] = ()
    correlation: Correlation = WHITE
    #: the local variances times this as far as the test goes (noise that is not
    #: Gaussian, e.g. bimodal: :class:`perfwalk.analysis.noise.NoiseFit`)
    factor: float = 1.0


#: The measured defaults, with the practical significance of 1 %.
DEFAULT_TUNING = Tuning(min_change=DEFAULT_MIN_CHANGE)
