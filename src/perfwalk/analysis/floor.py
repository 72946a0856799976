"""What a walk could not see: per metric, the smallest change its detector would have
found (its **floor**), from the metric's noise, its repetitions and its checkouts.

"No change found" is an answer only where a change that matters would have been
found: a walk of 8 checkouts whose points scatter by 30 % sees no change of 10 %,
whatever happened. The floor is the step that the detector's own test
(:mod:`perfwalk.analysis.segmentation`, "Test of a break") just passes, at each
position of the walk between the changes it found (and its steps at an end), with the
detector's own noise:

* the noise variance ``v`` of a point: the detector's local variance (the medians of
  neighbour differences in blocks of 8 points, raised from its first block on by a
  loaded stretch, scaled to the series' trimmed neighbour differences; times its
  factor for noise that is not Gaussian), and never below half of what the
  repetitions say of a checkout's summary: the spread inside the checkouts (the
  median over them of the sample variance, over the median of its chi-square), times
  ``1/r`` for a mean of ``r`` repetitions, ``π / (2r + 1)`` for a median of ``r ≥ 3``
  (a short walk has few neighbour differences, and a quiet-looking handful happens by
  chance);
* a level's point variance, as the detector weighs each point by 1 / its variance:
  ``ℓ / Σ 1/v`` (a loaded stretch counts little, and its points add little);
* the noise's correlation as the detector fitted it (AR(1), a random walk): the
  variance of the difference of the two levels' means is ``u(ℓ₁, ℓ₂) · (ℓ₂ v₁ + ℓ₁ v₂)
  / (ℓ₁ + ℓ₂)``, ``u`` the variance of a difference of means of unit noise.

A step of ``d`` between levels of ``ℓ₁`` and ``ℓ₂`` points passes when

* ``d ≥ threshold · √(1 + (short_level / ℓ)²) · se``, ``ℓ`` the independent points of
  the shorter level: ``min(ℓ₁, ℓ₂) · (1/ℓ₁ + 1/ℓ₂) / u`` (or ``d ≥ threshold · se``
  for a step of ``PLAIN_STEP`` noise units or more: a sharp step, as a step is);
* ``d ≥ jump_threshold · se_jump`` when a level is longer than ``jump_window``
  points: the same standard error over the ``jump_window`` points next to the step,
  the noise's random walk included;
* ``d ≥ min_effect · √((v₁ + v₂) / 2)``;

under the noise of the detector's first search (independent) and of its second (the
correlation fitted). In a series of fewer than 80 points the detector's noise moves
with the step itself: the step's own neighbour difference is one the noise scale
leaves out, and the correlation is fitted to levels broken there too; so it is
computed again for a step at each position.

**The walk's floor** is the median of these floors over the positions that leave a
quarter of their level (at most ``jump_window`` points, at least ``min_size``) on each
side: a step of that size is found about half the time, a larger one mostly; the
ends of a walk see less (a change there is confirmed with more checkouts). Fewer than
``2 · min_size`` points: no step can be found, the floor is infinite. As a ratio when
the search works on logarithms (every point positive): ``exp(d) − 1``, a rise (a fall
of the same ratio is a smaller percentage); else ``d`` over the median point.

``tests/analysis/test_floor.py`` checks it on seeded series shaped like real
histories (independent noise, AR(1) noise, a random walk, a loaded stretch, short
excursions, all together; walks of 8 to 40 checkouts and histories of 100 to 300): a
step of 1.5 times the floor is found most of the time (70 to 98 % per kind, 88 % in
all), one of half the floor rarely (0 to 13 %, 5 % in all).

Also the strongest step below the bar (:class:`Candidate`): where the difference of
the levels around a position comes nearest to its floor there, for a re-measure to
look at first.

Pure: numbers in, frozen results out.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import accumulate, pairwise
from statistics import NormalDist

from perfwalk.analysis.break_test import PLAIN_STEP
from perfwalk.analysis.changepoints import Detection, Reduce, set_points
from perfwalk.analysis.float_arrays import floats, per_point
from perfwalk.analysis.noise import WHITE, Correlation, fit_correlation, local_variances
from perfwalk.analysis.scaled import EXP_LIMIT, exponent, median, ratio_change, scaled
from perfwalk.analysis.segments import DEFAULT_TUNING, Tuning
from perfwalk.analysis.spikes import despike, jump_scale
from perfwalk.policy import Summary
from perfwalk.quantities import format_share

#: the repetitions' noise counts this much at least (a short walk's neighbour
#: differences are few: a quiet-looking handful happens by chance)
_QUIET = 0.5
#: the walk's floor: this quantile of the floors at its positions
QUANTILE = 0.5
#: a series of fewer points: the noise's correlation is fitted anew for a step at each
#: position (the detector fits it to the levels it found: a step changes them)
_REFIT = 80
#: the positions weighed leave this share of the walk (or ``jump_window``, or
#: ``min_size``) on each side
_CENTRAL = 4
#: at most this many positions are weighed (evenly spread) in a long series
_POSITIONS = 4000
#: median of chi-square with 1 degree of freedom (the Wilson–Hilferty form is poor there)
_CHI2_1_MEDIAN = NormalDist().inv_cdf(0.75) ** 2
#: the variance of the best of r normal values, over that of one (r = 1 … 10)
_BEST_OF = (1.0, 0.682, 0.559, 0.492, 0.447, 0.416, 0.392, 0.373, 0.357, 0.344)


@dataclass(frozen=True)
class Candidate:
    """The strongest step below the detector's bar: ``previous`` the last set of the
    old level, ``index`` the first of the new one (positions in the input sets);
    ``relative`` its size (``after / before − 1`` of the levels around it), ``share``
    that step over the floor at that position (1 would just pass the test)."""

    previous: int
    index: int
    relative: float
    share: float


@dataclass(frozen=True)
class Floor:
    """What the walk could see in one metric.

    ``relative``: the smallest relative change it would have found (``math.inf``: none,
    too few points); ``noise``: the relative noise of one point (the median of the
    local noise); ``within``: the relative spread of one repetition inside a checkout
    (0 when no checkout has two values); ``autocorrelation``: of the noise the detector
    fitted; ``points`` and ``values``: the sets with a value and the values.
    ``candidate``: the strongest step below the bar (None without a level to split).
    """

    relative: float
    noise: float
    within: float
    autocorrelation: float
    points: int
    values: int
    candidate: Candidate | None = None

    def sees(self, min_change: float) -> bool:
        """Whether a change of ``min_change`` would have been found."""
        return self.relative <= min_change


def detection_floor(
    sets: Sequence[Sequence[float]],
    detection: Detection,
    *,
    tuning: Tuning = DEFAULT_TUNING,
    reduce: Reduce = median,
    summary: Summary = "median",
) -> Floor:
    """The floor of a series of repetition sets (oldest first) that
    :func:`perfwalk.analysis.changepoints.find_change_points` searched with ``tuning``
    and ``reduce`` (the metric's ``summary``) and found ``detection``."""
    positions, found = set_points(sets, reduce)
    values = sum(1 for s in sets for v in s if math.isfinite(v))
    n = len(found)
    ratios = n > 0 and min(found) > 0
    # points far from 1 are weighed divided by 2**k, as the detector searches them
    k = 0 if ratios else exponent(found)
    y = [math.log(p) for p in found] if ratios else scaled(found, k)
    level = abs(median(y)) if n else 0.0

    def relative(d: float) -> float:
        if ratios:
            return ratio_change(d)
        return _plain(d, level)

    within = _within_variance(sets, ratios, k)
    reps = median([float(sum(map(math.isfinite, s))) for s in sets if s] or [1.0])
    least = _QUIET * within * _summary_share(summary, round(reps))
    seen = Floor(math.inf, relative(math.sqrt(least)), relative(math.sqrt(within)), 0.0, n, values)
    if n < 2 * tuning.min_size:  # no level on each side of a step: nothing to see
        return seen
    jumps = [abs(q - p) for p, q in pairwise(y)]
    local = _local_variances(jumps)
    squares = [(q - p) ** 2 for p, q in pairwise(y)]
    searched = despike(y, squares, local, tuning.clip)[0]  # as the detector fits its noise
    at = {p: i for i, p in enumerate(positions)}
    # a step at an end (an edge) bounds a level too: its jump is no step inside one
    steps = (*detection.changes, *detection.edges)
    bounds = sorted({0, n, *(at[c.index] for c in steps if c.index in at)})
    first = _Pass(y, [max(v, least) for v in local], WHITE)  # as its first search weighs
    fitted = _Pass(
        y, [max(v * detection.noise_factor, least) for v in local], detection.correlation
    )
    seen = replace(
        seen,
        noise=relative(math.sqrt(median(fitted.variances))),
        autocorrelation=detection.autocorrelation,
    )
    floors: list[float] = []
    best: tuple[float, int, float] | None = None  # (share, position, step)
    stride, ml = max(1, n // _POSITIONS), tuning.min_size
    for a, b in _levels_to_split(bounds, ml):
        central = max(ml, min(tuning.jump_window, (b - a) // _CENTRAL))
        for k in range(a + ml, b - ml + 1, stride):
            start, again = first, fitted
            if n < _REFIT:  # a short series: its noise as the detector finds it with a step at k
                start, again = _stepped(y, searched, jumps, k=k, bounds=bounds, least=least)
            d = max(start.step_floor(a, k, b, tuning), again.step_floor(a, k, b, tuning))
            if min(k - a, b - k) >= central:
                floors.append(d)
            step = fitted.step(a, k, b)
            share = abs(step) / d if d > 0 else 0.0
            if best is None or share > best[0]:
                best = (share, k, step)
    if best is None or not floors:
        return seen
    floors.sort()
    share, k, step = best
    size = math.expm1(min(step, EXP_LIMIT)) if ratios else _plain(step, level)
    return replace(
        seen,
        relative=relative(floors[int(QUANTILE * len(floors))]),
        candidate=Candidate(positions[k - 1], positions[k], size, share),
    )


def _levels_to_split(bounds: Sequence[int], least: int) -> list[tuple[int, int]]:
    """The levels between ``bounds`` (0, the changes found, the number of points) long
    enough to hold a step (``least`` points on each side); when the changes found
    leave none, the whole series (what another step would have needed there)."""
    levels = [(a, b) for a, b in pairwise(bounds) if b - a >= 2 * least]
    return levels or [(bounds[0], bounds[-1])]


def _plain(step: float, level: float) -> float:
    """``step`` relative to ``level`` (not logarithms)."""
    if level:
        return step / level
    return math.copysign(math.inf, step) if step else 0.0


class _Pass:
    """The points as one pass of the detector's test weighs them: each point's noise
    variance and the noise's correlation."""

    def __init__(self, y: Sequence[float], variances: list[float], correlation: Correlation):
        self.variances = variances
        self.correlation = correlation
        self.weights = list(accumulate((1 / v for v in variances), initial=0.0))
        self.sums = list(
            accumulate((p / v for p, v in zip(y, variances, strict=True)), initial=0.0)
        )

    def step(self, a: int, k: int, b: int) -> float:
        """The difference of the levels ``k..b-1`` and ``a..k-1`` (weighted means)."""
        w, s = self.weights, self.sums
        return (s[b] - s[k]) / (w[b] - w[k]) - (s[k] - s[a]) / (w[k] - w[a])

    def step_floor(self, a: int, k: int, b: int, tuning: Tuning) -> float:
        """The smallest step at ``k`` between levels ``a..k-1`` and ``k..b-1`` that the
        detector's test passes."""
        weights, correlation = self.weights, self.correlation
        l1, l2 = k - a, b - k
        v1 = l1 / (weights[k] - weights[a])
        v2 = l2 / (weights[b] - weights[k])
        unit = correlation.variance(l1, l2, walk=False)
        se = math.sqrt(unit * (l2 * v1 + l1 * v2) / (l1 + l2))
        independent = min(l1, l2) * (1 / l1 + 1 / l2) / unit
        d = tuning.threshold * math.hypot(1.0, tuning.short_level / independent) * se
        noise = math.sqrt(0.5 * (v1 + v2))
        d = min(d, max(tuning.threshold * se, PLAIN_STEP * noise))  # a sharp step that far
        d = max(d, tuning.min_effect * noise)
        w = tuning.jump_window
        relax = min(1.0, tuning.min_effect)
        if (l1 > w or l2 > w) and relax > 0:
            j1, j2 = min(l1, w), min(l2, w)
            u1 = j1 / (weights[k] - weights[k - j1])
            u2 = j2 / (weights[k + j2] - weights[k])
            jump = correlation.variance(j1, j2, walk=True) * (j2 * u1 + j1 * u2) / (j1 + j2)
            d = max(d, tuning.jump_threshold * relax * math.sqrt(jump))
        return d


def _stepped(
    y: Sequence[float],
    searched: Sequence[float],
    jumps: Sequence[float],
    *,
    k: int,
    bounds: Sequence[int],
    least: float,
) -> tuple[_Pass, _Pass]:
    """The detector's two passes over ``y`` with a step at ``k`` (as large as a step it
    finds: the largest of the neighbour differences, which its noise leaves out): the
    first with the local noise, the second with the correlation fitted to levels
    broken at ``k`` too (``searched``: the points without their spikes)."""
    stepped = list(jumps)
    stepped[k - 1] = math.inf
    local = _local_variances(stepped)
    fit = fit_correlation(searched, local, sorted({*bounds, k}))
    return (
        _Pass(y, [max(v, least) for v in local], WHITE),
        _Pass(y, [max(v * fit.factor, least) for v in local], fit.correlation),
    )


def _local_variances(jumps: Sequence[float]) -> array[float]:
    """The noise variance of each point as the detector finds it (its local noise) from
    the absolute differences of neighbouring points."""
    finite = [j for j in jumps if math.isfinite(j)]
    size, blocks = local_variances(jumps, jump_scale(list(jumps)), 1e-12 * max(1e-100, *finite))
    return floats(per_point(size, blocks, len(jumps) + 1))


def _within_variance(sets: Sequence[Sequence[float]], ratios: bool, k: int) -> float:
    """The variance of one repetition inside a checkout (of its logarithm when
    ``ratios``, else of the values divided by ``2**k``): the median over the checkouts
    of two values or more of their sample variance over the median of its chi-square;
    0 when none has two."""
    found: list[float] = []
    for values in sets:
        kept = [v for v in values if math.isfinite(v)]
        if len(kept) < 2 or (ratios and min(kept) <= 0):
            continue
        x = [math.log(v) for v in kept] if ratios else scaled(kept, k)
        m = math.fsum(x) / len(x)
        df = len(x) - 1
        variance = math.fsum((v - m) ** 2 for v in x) / df
        found.append(variance / _chi2_median_share(df))
    return median(found) if found else 0.0


def _chi2_median_share(df: int) -> float:
    """The median of a chi-square of ``df`` degrees of freedom, over ``df``."""
    if df == 1:
        return _CHI2_1_MEDIAN
    return (1 - 2 / (9 * df)) ** 3


def _summary_share(summary: Summary, reps: int) -> float:
    """The variance of a checkout's summary of ``reps`` normal values, over that of
    one value."""
    reps = max(1, reps)
    if summary == "mean" or reps <= 2:
        return 1 / reps if summary != "best" else _BEST_OF[min(reps, len(_BEST_OF)) - 1]
    if summary == "best":
        return _BEST_OF[min(reps, len(_BEST_OF)) - 1]
    return math.pi / (2 * reps + 1)


@dataclass(frozen=True)
class Sight:
    """What a walk could see in one metric, and what it left out to see it.

    ``floor``: what its search could see; ``min_change``: the smallest change that
    matters (the metric's, ``[test.metrics.NAME]`` else ``[analysis]``); ``changes``:
    how many it found (at the edge too). ``values``: the repetitions' values of the
    metric change detection could weigh (re-measures aside), ``loaded`` of them
    measured on a loaded machine, ``excluded`` of them left out as loaded (``[run]
    exclude_loaded``); ``kept``: the values left out were kept after all (without them
    the walk saw no change and could not see one of ``min_change``); ``load``: the
    machine's load over them in words ("load 10.9 on 2 cores"; "" unknown); ``again``:
    what a re-measure of its most likely step (``floor.candidate``) found, in words
    ("not held after 8 + 8 repetitions"; "" none measured it); a step it held is a
    change of its own, counted in ``changes``.
    """

    test: str
    name: str
    floor: Floor
    min_change: float
    changes: int
    values: int
    loaded: int = 0
    excluded: int = 0
    kept: bool = False
    load: str = ""
    again: str = ""

    @property
    def metric(self) -> str:
        return f"{self.test}.{self.name}"

    @property
    def undecided(self) -> str:
        """Why the walk cannot say that the metric did not change, naming it ("" when
        it found a change, or could have seen one of ``min_change``)."""
        return self._why(f" {self.metric}", f" in {self.metric}")

    def _why(self, of: str, where: str) -> str:
        """:attr:`undecided`, the metric named by ``of`` and ``where`` (or not: "")."""
        if self.changes:
            return ""
        if self.kept:
            return (
                f"undecided: {self.excluded} of {self.values} repetitions{of and ' of'}{of} "
                f"excluded as loaded (kept, they show no change; {self.seen})"
            )
        if self.floor.sees(self.min_change):
            return ""
        counted = f"{self.loaded} of {self.values} repetitions loaded"
        known = self.load or self.loaded  # the machine's state was recorded
        machine = ", ".join(part for part in (self.load, counted) if part) if known else ""
        below = (
            f"too noisy to see changes below {format_share(self.floor.relative)}{where}"
            if math.isfinite(self.floor.relative)
            else f"too few checkouts to see a change{where}"
        )
        said = f"undecided: {below} ({machine})" if machine else f"undecided: {below}"
        return f"{said}; its most likely step measured again: {self.again}" if self.again else said

    @property
    def seen(self) -> str:
        """ "could see changes of ≥ 6.0 % here" (or why it could see none)."""
        if math.isfinite(self.floor.relative):
            return f"could see changes of ≥ {format_share(self.floor.relative)} here"
        return f"could see no change: {self.floor.points} checkouts with a value"

    @property
    def said(self) -> str:
        """Why the walk cannot judge the metric, or what it could see there (with its
        ``min_change``), and that its changes were found only with the repetitions it
        was told to leave out; without the metric's name (said after it)."""
        unnamed = self._why("", "")  # the metric is named before it
        said = unnamed or f"{self.seen} (its min_change: {format_share(self.min_change)})"
        if self.kept and not self.undecided:
            said += (
                f"; its changes were found only with {self.excluded} loaded repetitions kept "
                "(exclude_loaded left too few to judge): suspect"
            )
        return said

    @property
    def suspect(self) -> str:
        """Why a change found in it is suspect ("" when none is): it was found only
        with the values left out kept."""
        return f"found only with {self.excluded} loaded repetitions kept" if self.kept else ""
