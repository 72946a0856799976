"""Detected changes as the site marks them: on the table cell of the checkout after
the step and on the plot, between the two checkouts; and the other findings of the
same analysis, excursions and drifts, which are shown but are never changes.

The analysis produces them; the report takes them as plain records, so a site can
be published with or without an analysis (an empty list marks nothing).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class ChangeMark:
    """A step in one metric of one series between two neighbouring checkouts."""

    series_id: int
    test: str
    name: str  # the value name
    before_idx: int  # checkout index before the step
    after_idx: int  # checkout index at or after the step
    size: float  # relative size, e.g. -0.12 for 12 % less
    regression: bool  # True: worse; False: better
    #: why the change is not to act on though detected ("not confirmed by drill 7"): shown
    #: in grey, not as a regression or an improvement
    unconfirmed: str = ""
    #: measured again at the end of its walk and held (``[run] confirm``): said in its tip
    confirmed: bool = False

    @property
    def word(self) -> str:
        return "regression" if self.regression else "improvement"

    def describe(self) -> str:
        told = (
            f"{self.word}: {self.size:+.1%} between checkouts {self.before_idx} "
            f"and {self.after_idx}"
        )
        if self.unconfirmed:
            return f"{told} ({self.unconfirmed})"
        return f"{told} (confirmed by a re-measure)" if self.confirmed else told


@dataclass(frozen=True)
class EpisodeMark:
    """What one metric of one series did that is not a step, from checkout
    ``first_idx`` to ``last_idx`` (both included): an ``excursion`` (its values went
    away from their level and came back) or a ``drift`` (its level moved slowly).
    Shown in a neutral colour: never a regression, whichever way it went."""

    series_id: int
    test: str
    name: str  # the value name
    kind: Literal["excursion", "drift"]
    first_idx: int
    last_idx: int
    size: float  # relative, e.g. -0.12 for 12 % less (±inf from a level of 0)
    worse: bool  # moved the metric's worse way
    #: the levels: an excursion's surroundings and its own; a drift's at its first
    #: and at its last checkout (the ends of the line the plot draws)
    before: float
    after: float

    def spans(self, idx: int) -> bool:
        return self.first_idx <= idx <= self.last_idx

    def describe(self) -> str:
        """Its tooltip: "excursion: -12.3 % over checkouts 5–7, recovered", "drift: +5.0 %
        over checkouts 0–199"."""
        where = (
            f"at checkout {self.first_idx}"
            if self.first_idx == self.last_idx
            else f"over checkouts {self.first_idx}–{self.last_idx}"
        )
        told = f"{self.kind}: {relative_size(self.size)} {where}"
        return f"{told}, recovered" if self.kind == "excursion" else told


def relative_size(size: float) -> str:
    """ "+5.0 %", "-12.3 %"; a move from a level of 0 has no relative size."""
    if not math.isfinite(size):
        return "from 0 " + ("up" if size > 0 else "down")
    return f"{size * 100:+.1f} %"


def by_series(changes: Iterable[ChangeMark]) -> dict[int, list[ChangeMark]]:
    found: dict[int, list[ChangeMark]] = defaultdict(list)
    for change in changes:
        found[change.series_id].append(change)
    return {
        sid: sorted(marks, key=lambda c: (c.test, c.name, c.after_idx))
        for sid, marks in found.items()
    }


def episodes_by_series(episodes: Iterable[EpisodeMark]) -> dict[int, list[EpisodeMark]]:
    found: dict[int, list[EpisodeMark]] = defaultdict(list)
    for episode in episodes:
        found[episode.series_id].append(episode)
    return {
        sid: sorted(marks, key=lambda e: (e.test, e.name, e.first_idx, e.kind))
        for sid, marks in found.items()
    }
