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
* among those, the longer gap first (coverage: every step located roughly
  before any exactly).

It stops when the budget is spent, or when every gap is a single commit (a step
there is located exactly: nothing to drill) or flat within noise.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass

from perfwalk.analysis.changepoints import find_change_points

#: standard errors of the pooled noise by which two neighbouring levels must differ
DIFFERS = 2.0
#: the most a difference's z weighs in a gap's priority (surer beyond it is as sure)
Z_CAP = 10.0

#: the values of one measured checkout: metric name → its repetitions' values
Values = Mapping[str, Sequence[float]]


@dataclass(frozen=True)
class Next:
    """Measure the commit at ``position`` of the line next, for ``reason``."""

    position: int
    reason: str


@dataclass(frozen=True)
class Stop:
    """Measure nothing more, for ``reason``."""

    reason: str


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
) -> Next | Stop:
    """The next commit to measure on the line ``first``..``last`` (positions), given
    the values of the checkouts ``measured`` and the positions that gave none
    (``failed``: a broken build); ``budget`` is the most checkouts measured (failed
    ones count)."""
    spent = len(set(measured) | set(failed))
    if spent >= budget:
        return Stop(f"the budget of {budget} checkouts is spent")
    coarse = coarse_positions(first, last, budget)
    for number, position in enumerate(coarse, 1):
        if position not in measured and position not in failed:
            return Next(position, f"coarse pass {number}/{len(coarse)}")
    gaps = _gaps(measured, failed, min_change)
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


def _gaps(measured: Mapping[int, Values], failed: Set[int], min_change: float) -> list[_Gap]:
    """The gaps worth a checkout, each with its priority and why."""
    valued = sorted(p for p, values in measured.items() if any(values.values()))
    metrics = sorted({name for values in measured.values() for name in values})
    found: dict[tuple[int, int], _Gap] = {}
    for name in metrics:
        sets = [tuple(measured[p].get(name, ())) for p in valued]
        for (before, after), why in _differing(valued, sets, _noise(sets), min_change):
            _keep(found, before, after, *why)
        for (before, after), why in _suspected(valued, sets, min_change):
            _keep(found, before, after, *why)
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


def _differing(
    valued: Sequence[int],
    sets: Sequence[Sequence[float]],
    noise: tuple[float, float],
    min_change: float,
) -> list[tuple[tuple[int, int], tuple[float, str]]]:
    """The neighbouring checkouts whose levels differ beyond the noise (of their
    repetitions, or between neighbouring levels when that is larger)."""
    found = []
    for k in range(len(valued) - 1):
        one, other = sets[k], sets[k + 1]
        if not one or not other or valued[k + 1] - valued[k] < 2:
            continue
        a, b = statistics.fmean(one), statistics.fmean(other)
        scale = (abs(a) + abs(b)) / 2
        if scale == 0:
            continue
        relative = (b - a) / scale
        error = max(noise[0] * math.sqrt(1 / len(one) + 1 / len(other)), noise[1])
        z = abs(relative) / error if error > 0 else math.inf
        if z >= DIFFERS and abs(relative) >= min_change:
            length = valued[k + 1] - valued[k]
            why = f"levels differ by {relative:+.1%} (z {min(z, 999):.1f}) over {length} commits"
            found.append(((valued[k], valued[k + 1]), (abs(relative) * min(z, Z_CAP), why)))
    return found


def _suspected(
    valued: Sequence[int], sets: Sequence[Sequence[float]], min_change: float
) -> list[tuple[tuple[int, int], tuple[float, str]]]:
    """The gaps where the change detection of the measured series places a step."""
    kept = [(p, s) for p, s in zip(valued, sets, strict=True) if s]
    if len(kept) < 4:
        return []
    try:
        detection = find_change_points([s for _p, s in kept])
    except ValueError:
        return []
    found = []
    for change in (*detection.changes, *detection.edges):
        before, after = kept[change.previous][0], kept[change.index][0]
        relative = change.relative if change.relative is not None else 0.0
        if after - before < 2 or abs(relative) < min_change:
            continue
        why = f"a step of {relative:+.1%} suspected by the detection (z {abs(change.z):.1f})"
        found.append(((before, after), (abs(relative) * min(abs(change.z), Z_CAP), why)))
    return found


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
