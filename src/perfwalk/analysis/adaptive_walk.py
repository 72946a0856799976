"""Where an adaptive walk measures next (pure: numbers in, one choice out).

An adaptive walk (``perfwalk run --adaptive --budget N``) does not measure every
Nth commit: it measures the two ends of its first-parent line and a coarse few
evenly spaced between them, then, one checkout at a time, the middle commit of the
**gap** (two neighbouring measured checkouts) where the series is most uncertain:

* the levels at the gap's two ends differ: relatively by at least ``min_change``
  and by at least :data:`DIFFERS` standard errors of the noise (the spread of the
  repetitions at each checkout, pooled, or the spread between neighbouring levels
  when that is larger); the larger and the surer the difference, the higher the
  gap's priority;
* the change detection of the measured series (:mod:`perfwalk.analysis.changepoints`)
  places a candidate step in it (a small step that the levels of many checkouts
  on each side show, and two checkouts alone do not);
* its two ends agree, but the levels of their neighbours do not: up to :data:`RUN`
  checkouts on each side, as far as the nearest step (the detection's, or one these
  pooled levels show), differ by :data:`POOLED` standard errors of their means and
  ``min_change``, more than at the :data:`PEAK` gaps on each side (two checkouts
  cannot see a step as small as their noise, many can: such a gap is not flat);
* it is the longest gap of the shorter level beside a step located to its commit
  (two neighbouring commits where the pooled levels differ so) that the change
  detection does not report yet: the detection's bar rises for a short level; the
  level gets checkouts until the detection reports the step or it has :data:`SEEN`
  (the detection is the one ``perfwalk changes`` runs: :class:`Search`);
* it lies beside a step the detection places between two neighbouring commits, and
  its ends differ in the same direction by half the step or more: the checkout
  beside the step may have read between the two levels;
* among those, the longer gap first (coverage: every step located roughly
  before any exactly).

A checkout already measured gets more repetitions (:class:`More`) when it lies
beside a step the detection places between two neighbouring commits (no gap at
either checkout beside the step is still worth a checkout: those are measured
first), and its level is not clearly at one of the two levels around it: nearer
its own than their middle by less than :data:`CLEAR` standard errors of its mean
(and of the two levels). The checkout that reads between the two levels decides on which
side of it the step is told; more repetitions of it tell which level it holds. It
gets as many as a checkout at its own level needs to be that clear, at least as
many again as a checkout usually has, and at most :data:`MOST` times that; one the
caller cannot measure more (``settled``) gets none.

It stops when the budget is spent, or when every gap is a single commit (a step
there is located exactly: nothing to drill) or flat within noise, and every step
located is reported by the detection or has :data:`SEEN` checkouts on each side,
and no checkout beside a located step wants more repetitions (those are asked for
even when the budget, a number of checkouts, is spent).
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass

from perfwalk.analysis.changepoints import Detection, Reduce, find_change_points
from perfwalk.analysis.scaled import median
from perfwalk.analysis.segments import DEFAULT_TUNING, Tuning

#: standard errors of the pooled noise by which two neighbouring levels must differ
DIFFERS = 2.0
#: the most a difference's z weighs in a gap's priority (surer beyond it is as sure)
Z_CAP = 10.0
#: standard errors by which the pooled levels around a gap whose ends agree must differ
POOLED = 3.0
#: the most neighbours on each side of a gap pooled into its level
RUN = 4
#: the neighbouring gaps on each side among which pooled levels differ most at a step
PEAK = 2
#: the checkouts on each side of a located step beyond which the detection needs no more
SEEN = 10
#: standard errors by which a checkout beside a located step must be nearer its own
#: level than the middle of the two levels (else it gets more repetitions)
CLEAR = 2.0
#: the most repetitions a checkout gets, as a multiple of the usual count of the walk's
MOST = 4

#: the values of one measured checkout: metric name → its repetitions' values
Values = Mapping[str, Sequence[float]]


@dataclass(frozen=True)
class Next:
    """Measure the commit at ``position`` of the line next, for ``reason``."""

    position: int
    reason: str


@dataclass(frozen=True)
class More:
    """Measure ``repetitions`` more of the checkout at ``position`` (measured already)
    next, for ``reason``."""

    position: int
    repetitions: int
    reason: str


@dataclass(frozen=True)
class Stop:
    """Measure nothing more, for ``reason``."""

    reason: str


@dataclass(frozen=True)
class Search:
    """How the change detection searches a metric, as ``perfwalk changes`` will: the
    detector's ``tuning``, and each checkout's point from its repetitions (``reduce``:
    the metric's detection summary). A step the walk located is done when this search
    reports it."""

    tuning: Tuning = DEFAULT_TUNING
    reduce: Reduce = median


def coarse_count(budget: int, length: int) -> int:
    """How many checkouts the coarse pass takes of a line of ``length`` commits: the
    two ends and about one more per six of the budget."""
    return max(min(2 + budget // 6, budget, length), min(2, length))


def coarse_positions(first: int, last: int, budget: int) -> list[int]:
    """The positions of the coarse pass, ends first, then evenly spaced between them."""
    count = coarse_count(budget, last - first + 1)
    if count == 1:
        return [first]
    spaced = [first + round(k * (last - first) / (count - 1)) for k in range(count)]
    return list(dict.fromkeys([first, last, *spaced[1:-1]]))


def next_checkout(
    first: int,
    last: int,
    measured: Mapping[int, Values],
    *,
    budget: int,
    failed: Set[int] = frozenset(),
    min_change: float = 0.01,
    searches: Mapping[str, Search] | None = None,
    settled: Set[int] = frozenset(),
) -> Next | More | Stop:
    """The next commit to measure on the line ``first``..``last`` (positions), or the
    measured checkout to measure more, given the values of the checkouts ``measured``
    and the positions that gave none (``failed``: a broken build); ``budget`` is the
    most checkouts measured (failed ones count); ``searches``: how the detection
    searches each metric (by default :class:`Search`'s); ``settled``: the measured
    checkouts that get no more repetitions."""
    spent = len(set(measured) | set(failed))
    coarse = coarse_positions(first, last, budget)
    for number, position in enumerate(coarse, 1):
        if spent < budget and position not in measured and position not in failed:
            return Next(position, f"coarse pass {number}/{len(coarse)}")
    searched = _searched(measured, searches or {})
    gaps = _gaps(searched, failed, min_change) if spent < budget else []
    more = _more(searched, gaps, settled)
    if more is not None:
        return more
    if spent >= budget:
        return Stop(f"the budget of {budget} checkouts is spent")
    if not gaps:
        return Stop("every gap is a single commit or flat within noise")
    best = max(gaps, key=lambda gap: (gap.priority, -gap.before))
    middle = _middle(best.before, best.after, failed)
    assert middle is not None  # _gaps keeps only gaps with a commit to measure
    return Next(middle, best.reason)


@dataclass(frozen=True)
class _Gap:
    before: int
    after: int
    priority: float
    reason: str


@dataclass(frozen=True)
class _Series:
    """One metric's measured checkouts (those with values), in the order of the line:
    their positions, repetitions, levels (means), and the noise (:func:`_noise`)."""

    positions: Sequence[int]
    sets: Sequence[Sequence[float]]
    levels: Sequence[float]
    noise: tuple[float, float]

    @staticmethod
    def of(positions: Sequence[int], sets: Sequence[Sequence[float]]) -> _Series:
        kept = [(p, s) for p, s in zip(positions, sets, strict=True) if s]
        sets = [s for _p, s in kept]
        levels = [statistics.fmean(s) for s in sets]
        return _Series([p for p, _s in kept], sets, levels, _noise(sets))

    def point_noise(self, k: int) -> float:
        """The relative noise of the level of checkout ``k`` (its repetitions' mean),
        or half the spread of two neighbouring levels when that is larger."""
        return max(self.noise[0] / math.sqrt(len(self.sets[k])), self.noise[1] / math.sqrt(2))

    def pair(self, k: int) -> tuple[float, float]:
        """How the levels of checkouts ``k`` and ``k + 1`` differ: relatively, and in
        standard errors of the noise (of their repetitions, or between neighbouring
        levels when that is larger)."""
        a, b = self.levels[k], self.levels[k + 1]
        one, other = len(self.sets[k]), len(self.sets[k + 1])
        error = max(self.noise[0] * math.sqrt(1 / one + 1 / other), self.noise[1])
        return _compared(a, b, error)

    def said(self, k: int) -> float:
        """The change from checkout ``k``'s level to ``k + 1``'s over the first, as
        perfwalk says a change (:meth:`pair` weighs it over their middle); 0 from 0."""
        a, b = self.levels[k], self.levels[k + 1]
        return (b - a) / abs(a) if a else 0.0

    def pooled(self, left: range, right: range) -> tuple[float, float]:
        """How the mean levels of the checkouts ``left`` and ``right`` differ (as
        :meth:`pair`): many neighbours see a step that two checkouts alone do not."""
        a = statistics.fmean(self.levels[k] for k in left)
        b = statistics.fmean(self.levels[k] for k in right)
        spread = [self.point_noise(k) ** 2 for k in (*left, *right)]
        error = math.sqrt(statistics.fmean(spread) * (1 / len(left) + 1 / len(right)))
        return _compared(a, b, error)


def _compared(a: float, b: float, error: float) -> tuple[float, float]:
    """The relative difference of ``b`` over ``a`` and its z for a relative standard
    error ``error`` (0, 0 for two levels of 0)."""
    scale = (abs(a) + abs(b)) / 2
    if scale == 0:
        return 0.0, 0.0
    relative = (b - a) / scale
    return relative, (abs(relative) / error if error > 0 else math.inf)


#: one metric's measured series and its change detection (None: too short to search)
_Searched = tuple[_Series, Detection | None]


def _searched(measured: Mapping[int, Values], searches: Mapping[str, Search]) -> list[_Searched]:
    """Each metric's series of the checkouts with values, and its change detection."""
    valued = sorted(p for p, values in measured.items() if any(values.values()))
    metrics = sorted({name for values in measured.values() for name in values})
    found = []
    for name in metrics:
        series = _Series.of(valued, [tuple(measured[p].get(name, ())) for p in valued])
        found.append((series, _detection(series.sets, searches.get(name, Search()))))
    return found


def _gaps(searched: Sequence[_Searched], failed: Set[int], min_change: float) -> list[_Gap]:
    """The gaps worth a checkout, each with its priority and why."""
    found: dict[tuple[int, int], _Gap] = {}
    for series, detection in searched:
        seen = {change.index for change in detection.changes} if detection else set()
        edges = {change.index for change in detection.edges} if detection else set()
        # the steps the pooled levels show, then again with each level ending at them
        steps = _steps(series, sorted(seen | edges), min_change)
        bounds = sorted(seen | edges | {step.k + 1 for step in steps})
        steps = _steps(series, bounds, min_change)
        for before, after, weight, why in (
            *_differing(series, min_change),
            *_suspected(series, detection, min_change),
            *_pooled(series, steps, min_change),
            *_unseen(series, steps, seen, bounds, failed),
            *_beside(series, detection),
        ):
            _keep(found, before, after, weight, why)
    return [gap for gap in found.values() if _middle(gap.before, gap.after, failed) is not None]


def _keep(
    found: dict[tuple[int, int], _Gap], before: int, after: int, weight: float, reason: str
) -> None:
    """Keep the gap with its highest priority over the metrics: its weight (the
    difference's size times its sureness), times the log of its length (coverage)."""
    priority = weight * math.log2(1 + after - before)
    old = found.get((before, after))
    if old is None or priority > old.priority:
        found[(before, after)] = _Gap(before, after, priority, reason)


#: a gap worth a checkout: its two ends, its weight, and why
_Found = tuple[int, int, float, str]


def _differs(relative: float, z: float, min_change: float, bar: float = DIFFERS) -> bool:
    return z >= bar and abs(relative) >= min_change


def _weight(relative: float, z: float) -> float:
    return abs(relative) * min(z, Z_CAP)


def _differing(series: _Series, min_change: float) -> list[_Found]:
    """The neighbouring checkouts whose levels differ beyond the noise (of their
    repetitions, or between neighbouring levels when that is larger)."""
    found = []
    positions = series.positions
    for k in range(len(positions) - 1):
        relative, z = series.pair(k)
        length = positions[k + 1] - positions[k]
        if length >= 2 and _differs(relative, z, min_change):
            said = series.said(k)
            why = f"levels differ by {said:+.1%} (z {min(z, 999):.1f}) over {length} commits"
            found.append((positions[k], positions[k + 1], _weight(relative, z), why))
    return found


def _detection(sets: Sequence[Sequence[float]], search: Search) -> Detection | None:
    """The change detection of the measured series (None: too short to search)."""
    if len(sets) < 4:
        return None
    try:
        return find_change_points(sets, tuning=search.tuning, reduce=search.reduce)
    except ValueError:
        return None


def _suspected(series: _Series, detection: Detection | None, min_change: float) -> list[_Found]:
    """The gaps where the change detection of the measured series places a step."""
    if detection is None:
        return []
    found = []
    for change in (*detection.changes, *detection.edges):
        before, after = series.positions[change.previous], series.positions[change.index]
        relative = change.relative if change.relative is not None else 0.0
        if after - before < 2 or abs(relative) < min_change:
            continue
        why = f"a step of {relative:+.1%} suspected by the detection (z {abs(change.z):.1f})"
        found.append((before, after, _weight(relative, abs(change.z)), why))
    return found


def _beside(series: _Series, detection: Detection | None) -> list[_Found]:
    """The gaps next to a step the detection places between two neighbouring commits,
    whose ends differ in the same direction by half the step or more: the checkout
    beside the step may have read between the two levels, and the step lie in this
    gap instead (its commits are measured until it is a single commit)."""
    if detection is None:
        return []
    found = []
    positions = series.positions
    for change in detection.changes:
        k, relative = change.previous, change.relative
        if positions[change.index] - positions[k] != 1 or relative is None:
            continue
        for j in (k - 1, change.index):
            if not 0 <= j < len(positions) - 1 or positions[j + 1] - positions[j] < 2:
                continue
            near, z = series.pair(j)
            if near * relative > 0 and abs(near) >= abs(relative) / 2:
                why = (
                    f"the step of {relative:+.1%} at commit {positions[change.index]} may lie "
                    f"here: its neighbours differ by {series.said(j):+.1%} too"
                )
                found.append((positions[j], positions[j + 1], _weight(near, z), why))
    return found


def _level(k: int, bounds: Sequence[int], count: int) -> tuple[range, range]:
    """The checkouts of the levels on each side of the gap after checkout ``k`` (of
    ``count``), as far as the nearest steps (``bounds``: the first checkout of each
    new level)."""
    start = max((b for b in bounds if b <= k), default=0)
    end = min((b for b in bounds if b > k + 1), default=count)
    return range(start, k + 1), range(k + 1, end)


def _runs(series: _Series, k: int, bounds: Sequence[int]) -> tuple[range, range]:
    """The :func:`_level` on each side of the gap after checkout ``k``, at most its
    :data:`RUN` checkouts nearest the gap."""
    left, right = _level(k, bounds, len(series.positions))
    return left[-RUN:], right[:RUN]


@dataclass(frozen=True)
class _Step:
    """A step that the pooled levels around the gap after checkout ``k`` show."""

    k: int
    relative: float
    z: float
    before: int  # checkouts pooled on each side
    after: int


def _steps(series: _Series, bounds: Sequence[int], min_change: float) -> list[_Step]:
    """The gaps where the levels of the neighbours on each side (pooled, up to the
    nearest steps: ``bounds``) differ by :data:`POOLED` standard errors and
    ``min_change``, and more than at the neighbouring gaps (:data:`PEAK` on each
    side: a step's neighbours see it too, less surely)."""
    pooled = []
    for k in range(len(series.positions) - 1):
        left, right = _runs(series, k, bounds)
        pooled.append(series.pooled(left, right) if len(left) + len(right) > 2 else (0.0, 0.0))
    return [
        _Step(k, relative, z, *map(len, _runs(series, k, bounds)))
        for k, (relative, z) in enumerate(pooled)
        if _differs(relative, z, min_change, POOLED)
        and z >= max(z for _r, z in pooled[max(0, k - PEAK) : k + PEAK + 1])
    ]


def _pooled(series: _Series, steps: Sequence[_Step], min_change: float) -> list[_Found]:
    """The gaps whose two ends do not differ, but where the levels of their neighbours
    show a step (:func:`_steps`): two checkouts alone cannot see a step that many
    can, so such a gap is not flat."""
    found = []
    positions = series.positions
    for step in steps:
        length = positions[step.k + 1] - positions[step.k]
        if length < 2 or _differs(*series.pair(step.k), min_change):
            continue  # nothing between, or _differing has it
        why = (
            f"the levels of {step.before} checkouts before and {step.after} after differ "
            f"by {step.relative:+.1%} (z {min(step.z, 999):.1f}) over {length} commits"
        )
        found.append(
            (positions[step.k], positions[step.k + 1], _weight(step.relative, step.z), why)
        )
    return found


def _unseen(
    series: _Series,
    steps: Sequence[_Step],
    seen: Set[int],
    bounds: Sequence[int],
    failed: Set[int],
) -> list[_Found]:
    """The steps located to a commit (:func:`_steps` between two neighbouring
    commits) that the change detection does not report yet: the level on their
    shorter side has too few checkouts for it (its bar rises for short levels). The
    longest gap of that level gets one more, until it has :data:`SEEN` (the
    detection sees a step between levels that long, or there is none)."""
    found = []
    positions = series.positions
    for step in steps:
        k = step.k
        if positions[k + 1] - positions[k] != 1 or k + 1 in seen:
            continue
        for side in sorted(_level(k, bounds, len(positions)), key=len):
            if len(side) >= SEEN:
                break
            gaps = [
                (positions[j + 1] - positions[j], j)
                for j in side[:-1]
                if _middle(positions[j], positions[j + 1], failed) is not None
            ]
            if gaps:
                _length, j = max(gaps)
                why = (
                    f"a step of {step.relative:+.1%} at commit {positions[k + 1]} is not yet "
                    f"seen by the detection: its level of {len(side)} checkouts gets more"
                )
                found.append((positions[j], positions[j + 1], _weight(step.relative, step.z), why))
                break
    return found


def _more(searched: Sequence[_Searched], gaps: Sequence[_Gap], settled: Set[int]) -> More | None:
    """The checkout beside a step located to its commit whose level is least clear
    (:func:`_unclear`), with the repetitions it wants; None: none wants any. While a
    gap at either checkout beside the step is still worth a checkout, the step's
    checkouts wait for it: the commits there are measured first."""
    waiting = {end for gap in gaps for end in (gap.before, gap.after)}
    wanted: list[tuple[float, More]] = []
    for series, detection in searched:
        if detection is None:
            continue
        positions = series.positions
        usual = round(median([len(s) for s in series.sets]))
        bounds = sorted(change.index for change in detection.changes)
        for change in detection.changes:
            k, after = change.previous, change.index
            if positions[after] - positions[k] != 1 or {positions[k], positions[after]} & waiting:
                continue
            left, right = _level(k, bounds, len(positions))
            # the checkout before the step (its own level: those before it), then after
            for at, own, other in (
                (k, left[:-1][-RUN:], right[:RUN]),
                (after, right[1:][:RUN], left[-RUN:]),
            ):
                if not own or positions[at] in settled:
                    continue
                unclear = _unclear(series, at, own, other, usual)
                if unclear is not None:
                    z, count = unclear
                    why = (
                        f"the step of {change.relative or 0.0:+.1%} at commit "
                        f"{positions[after]} may lie on its other side: its level is "
                        f"{max(z, -99):.1f} standard errors from the middle of the two levels "
                        f"toward its own ({CLEAR:g} are clear)"
                    )
                    wanted.append((z, More(positions[at], count, why)))
    return min(wanted, key=lambda w: (w[0], w[1].position))[1] if wanted else None


def _unclear(
    series: _Series, k: int, own: range, other: range, usual: int
) -> tuple[float, int] | None:
    """How many standard errors checkout ``k``'s level is nearer the level of the
    checkouts ``own`` (its side of a step) than the middle of theirs and ``other``'s,
    and the repetitions more it wants; None when it is clear (:data:`CLEAR`), has
    :data:`MOST` times ``usual`` repetitions, or more of them would not settle it (the
    two levels are not known well enough)."""
    most, count = MOST * usual, len(series.sets[k])
    a = statistics.fmean(series.levels[j] for j in own)
    b = statistics.fmean(series.levels[j] for j in other)
    middle, half = (a + b) / 2, abs(a - b) / 2
    if count >= most or middle == 0 or half == 0:
        return None
    toward = (series.levels[k] - middle) / abs(middle) * (1 if a > b else -1)
    # the middle's error: each level's, the mean of its checkouts' over their number
    levels = sum(
        statistics.fmean(series.point_noise(j) ** 2 for j in side) / len(side) / 4
        for side in (own, other)
    )
    repetition = series.noise[0]
    error = math.sqrt(repetition**2 / count + levels)
    z = toward / error if error > 0 else math.inf
    if z >= CLEAR:
        return None
    # the repetitions with which a checkout at its own level is that clear
    room = (half / abs(middle) / CLEAR) ** 2 - levels
    if room <= 0:
        return None
    needed = math.ceil(repetition**2 / room)
    return z, min(most, max(needed, count + usual)) - count


def _noise(sets: Sequence[Sequence[float]]) -> tuple[float, float]:
    """The relative noise of one repetition (the spread of the repetitions at each
    checkout, pooled), and that of the difference of two neighbouring levels (their
    median absolute difference, as a standard deviation: what builds, drift and a
    loaded machine add to the repetitions' own noise; steps are few, the median
    leaves them out)."""
    squares, freedom = 0.0, 0
    for values in sets:
        if len(values) >= 2:
            mean = statistics.fmean(values)
            if mean != 0:
                squares += sum(((v - mean) / mean) ** 2 for v in values)
                freedom += len(values) - 1
    levels = [statistics.fmean(s) for s in sets if s]
    steps = [abs(b - a) / abs(a) for a, b in itertools.pairwise(levels) if a]
    between = statistics.median(steps) / 0.6745 if len(steps) >= 10 else 0.0
    if not freedom:  # one repetition each: the neighbours' spread is all there is
        return between / math.sqrt(2), between
    return math.sqrt(squares / freedom), between


def _middle(before: int, after: int, failed: Set[int]) -> int | None:
    """The commit nearest the middle of the gap that did not fail (None: none)."""
    middle = (before + after) // 2
    inside = [p for p in range(before + 1, after) if p not in failed]
    return min(inside, key=lambda p: (abs(p - middle), p)) if inside else None
