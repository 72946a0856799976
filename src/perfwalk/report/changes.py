"""Detected changes as the site marks them: on the table cell of the checkout after
the step and on the plot, between the two checkouts.

The analysis produces them; the report takes them as plain records, so a site can
be published with or without an analysis (an empty list marks nothing).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass


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


def by_series(changes: Iterable[ChangeMark]) -> dict[int, list[ChangeMark]]:
    found: dict[int, list[ChangeMark]] = defaultdict(list)
    for change in changes:
        found[change.series_id].append(change)
    return {
        sid: sorted(marks, key=lambda c: (c.test, c.name, c.after_idx))
        for sid, marks in found.items()
    }
