"""Quirks along a walk: which patches apply to a checkout, which commands run when
the walk crosses a quirk, and the letters that mark them (pure)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from perfwalk.letters import quirk_letter


@dataclass(frozen=True)
class QuirkPoint:
    """A resolved quirk boundary: a commit on the walked line, or a date."""

    date: datetime
    commit: str | None = None


@dataclass(frozen=True)
class PlannedQuirk:
    """A quirk placed on the walked history.

    It holds from first-parent position ``at_pos`` on; its patch applies to
    positions in ``[at_pos, until_pos)`` (no end when ``until_pos`` is None).
    """

    letter: str
    index: int  # position in the config's [[quirk]] list
    at: QuirkPoint
    at_pos: int
    until_pos: int | None
    comment: str
    commands: tuple[str, ...]
    patch: Path | None

    def patches(self, pos: int) -> bool:
        """True when this quirk's patch applies to the checkout at ``pos``."""
        return (
            self.patch is not None
            and self.at_pos <= pos
            and (self.until_pos is None or pos < self.until_pos)
        )

    def crossed(self, previous: int | None, pos: int) -> bool:
        """True when a walk from ``previous`` to ``pos`` crosses this quirk's start.

        The first checkout of a walk crosses nothing: the machine is taken as it is.
        """
        return bool(self.commands) and previous is not None and previous < self.at_pos <= pos


def position(point: QuirkPoint, ids: Sequence[str], dates: Sequence[datetime]) -> int:
    """The first-parent position where ``point`` starts to hold.

    A commit: its own position (the caller checked it is on the line). A date:
    the first commit dated at or after it (``len(ids)`` when there is none).
    """
    if point.commit is not None:
        return ids.index(point.commit)
    return bisect.bisect_left(list(dates), point.date)


def plan_quirks(
    points: Sequence[tuple[int, QuirkPoint, QuirkPoint | None, str, tuple[str, ...], Path | None]],
    ids: Sequence[str],
    dates: Sequence[datetime],
) -> tuple[PlannedQuirk, ...]:
    """Place quirks (config index, at, until, comment, commands, patch) on the history.

    Letters go by date order of ``at`` (config order breaks ties): A…Z, a…z, A′….
    """
    ordered = sorted(points, key=lambda p: (p[1].date, p[0]))
    return tuple(
        PlannedQuirk(
            letter=quirk_letter(n),
            index=index,
            at=at,
            at_pos=position(at, ids, dates),
            until_pos=None if until is None else position(until, ids, dates),
            comment=comment,
            commands=commands,
            patch=patch,
        )
        for n, (index, at, until, comment, commands, patch) in enumerate(ordered)
    )


def applying(
    quirks: Sequence[PlannedQuirk], previous: int | None, pos: int
) -> tuple[list[PlannedQuirk], list[PlannedQuirk]]:
    """(quirks whose patch applies at ``pos``, quirks crossed from ``previous``)."""
    return (
        [q for q in quirks if q.patches(pos)],
        [q for q in quirks if q.crossed(previous, pos)],
    )
