"""A first, conservative change finder: compare each checkout with the one before.

A step between two neighbouring checkouts is reported when the summaries differ
by at least ``min_change`` (relative) AND by more than ``noise_factor`` times the
larger relative standard deviation of the two sets, AND the two sets of
repetitions do not overlap. A single repetition set on each side is weak
evidence, so both sides need ``min_n`` values. This keeps false alarms rare on
stable series; the change-point detector of the analysis layer supersedes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfwalk.analysis.summary import summarize
from perfwalk.model import Direction


@dataclass(frozen=True)
class Step:
    """A level shift between checkout ``before`` and checkout ``after`` (list indexes)."""

    before: int
    after: int
    level_before: float
    level_after: float
    relative: float  # (after - before) / before
    worse: bool  # in the metric's bad direction


def neighbour_steps(
    sets: Sequence[Sequence[float]],
    direction: Direction,
    *,
    min_change: float = 0.05,
    noise_factor: float = 3.0,
    min_n: int = 2,
) -> list[Step]:
    """Steps between consecutive non-empty repetition sets of one metric."""
    found: list[Step] = []
    previous: int | None = None
    for index, values in enumerate(sets):
        if len(values) < min_n:
            continue
        if previous is not None:
            step = _compare(
                previous,
                index,
                sets[previous],
                values,
                direction=direction,
                min_change=min_change,
                noise_factor=noise_factor,
            )
            if step is not None:
                found.append(step)
        previous = index
    return found


def _compare(
    i: int,
    j: int,
    a: Sequence[float],
    b: Sequence[float],
    *,
    direction: Direction,
    min_change: float,
    noise_factor: float,
) -> Step | None:
    left, right = summarize(a, policy="median"), summarize(b, policy="median")
    if left is None or right is None or left.summary == 0:
        return None
    relative = (right.summary - left.summary) / abs(left.summary)
    noise = max(left.rsd, right.rsd)
    separated = left.max < right.min or right.max < left.min
    if abs(relative) < max(min_change, noise_factor * noise) or not separated:
        return None
    worse = relative < 0 if direction is Direction.HIGHER else relative > 0
    return Step(i, j, left.summary, right.summary, relative, worse)
