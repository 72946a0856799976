"""What the drill's scheduler answers: measure a commit again, or stop with a verdict,
the levels it found and where each commit it looked at stands."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from perfwalk.drill.shift import Shift


class Verdict(enum.Enum):
    """What a drill concluded."""

    CULPRIT = "culprit"  # one commit: the first at the after level
    RANGE = "range"  # the change is in (lo, hi]; the commits between could not be placed
    UNDECIDED = "undecided"  # the budget ran out, or the evidence is not a single step
    NO_CHANGE = "no-change"  # the two ends do not differ convincingly


class Side(enum.Enum):
    """Where a commit of the line stands."""

    BEFORE = "before"  # at the level before the change
    AFTER = "after"  # at the level after the change
    OPEN = "open"  # measured, not placed yet
    BETWEEN = "between"  # clearly between the two levels: not a clean step here
    UNPLACED = "unplaced"  # not placed within the repetitions allowed at one commit
    UNBUILDABLE = "unbuildable"  # does not build


@dataclass(frozen=True)
class Levels:
    """The two levels, from the values at the two ends."""

    before: float  # median of the before-level pool
    after: float  # before + the change
    shift: Shift  # after - before, with its 95 % interval and the ends' p-value
    noise: float  # standard deviation of one repetition, spikes left out

    @property
    def relative(self) -> float:
        """The change relative to the before level (0 when that level is 0)."""
        if not self.before:
            return 0.0
        if math.isinf(self.shift.estimate):  # a change beyond the float range: 1e308 → -1e308
            return (self.after / 2 - self.before / 2) / abs(self.before) * 2
        return self.shift.estimate / abs(self.before)


@dataclass(frozen=True)
class Placement:
    """One commit of the line that has values or failed to build."""

    position: int
    commit: str
    values: tuple[float, ...]
    side: Side
    evidence: float  # log-likelihood ratio after over before (positive: after)
    confirmed: bool  # placed at the verification odds, clear of the rival level


@dataclass(frozen=True)
class Measure:
    """Build ``commit`` (position ``position``) if needed and run ``repetitions`` more."""

    position: int
    commit: str
    repetitions: int
    reason: str


@dataclass(frozen=True)
class Done:
    """The drill's answer, with its evidence."""

    verdict: Verdict
    lo: int  # last position known at the before level
    hi: int  # first position known at the after level (the culprit for CULPRIT)
    reason: str
    levels: Levels | None
    placements: tuple[Placement, ...]  # in line order
    step: Shift | None  # the step from lo to hi (CULPRIT, RANGE), 90 % interval
    confidence: float | None  # that the answer is right (CULPRIT, RANGE)
    builds: int
    repetitions: int

    @property
    def culprit(self) -> int | None:
        """The position of the culprit commit, for ``CULPRIT``."""
        return self.hi if self.verdict is Verdict.CULPRIT else None


Action = Measure | Done
