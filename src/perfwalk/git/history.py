"""Which commits a walk visits (pure: a list of commits in, indexes out; no git).

The history is the first-parent line of a branch, oldest first: one
``(id, committer date)`` per commit, dates timezone-aware. A walk's two ends are
*points*: an ``int`` is a position in that list (a commit named on the command
line), a ``datetime`` is a date.

**The head at a date.** The commit a date stands for is the branch head at that
moment: the *last* commit of the list whose date is at or before the date (what
``git rev-list --first-parent --before=<date> -1`` answers). Before the first
commit there is no head. Committer dates usually grow along the list; when they
do not (a skewed clock, a rebase), the rule still holds and the head never moves
backwards as the date grows.

**Range.** The from-date ``F`` is the date of the from-point (a commit's own
committer date for a commit), the to-date ``T`` likewise. The range is the
commits from the head at ``F`` to the head at ``T`` — exactly the commit given
when an end is a commit. When ``F`` is before the first commit the range starts
at the first commit. ``F`` later than ``T``, or a from-commit after the
to-commit on the line, is a UsageError.

**Date steps** (``1hour`` … ``1year``). The dates are ``F, F + step,
F + 2 × step, …`` while they are earlier than ``T``, then ``T`` itself: both ends
are included (when ``F`` equals ``T`` the from-point still comes first). Each
date selects the head at that date (a commit given as an end
selects itself); a date before the first commit selects nothing. Dates that land
on the same commit collapse into one checkout, so the result never repeats an
index and is in history order.

**Commit steps.** ``commit`` selects every commit of the range; ``commit/N``
every Nth counting from the first commit of the range (positions 0, N, 2N, … of
the range) and always the last one.

An empty result is possible (``T`` before the first commit); callers turn it
into an error with the user's words.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from perfwalk.errors import UsageError
from perfwalk.git.walk_steps import Step

#: One end of a walk: a position in the history (a commit) or a date.
Point = int | datetime


class HistoryEntry(NamedTuple):
    """One first-parent commit: its full id and its committer date (aware)."""

    id: str
    date: datetime


class Timeline:
    """A history prepared for "head at a date" look-ups in O(log n).

    ``latest[i]`` is the earliest date of ``history[i:]``: it never decreases,
    and the head at a date ``D`` is the last ``i`` with ``latest[i] <= D``.
    """

    def __init__(self, history: Sequence[tuple[str, datetime]]) -> None:
        self.history = [HistoryEntry(commit, date) for commit, date in history]
        earliest: list[datetime] = []
        for _, date in reversed(self.history):
            earliest.append(date if not earliest or date < earliest[-1] else earliest[-1])
        earliest.reverse()
        self._earliest = earliest

    def __len__(self) -> int:
        return len(self.history)

    def head_at(self, when: datetime) -> int:
        """The position of the head at ``when``; -1 before the first commit."""
        return bisect.bisect_right(self._earliest, when) - 1

    def moves_at(self, index: int) -> datetime | None:
        """The first date at which the head is past ``index``; None after the last."""
        following = index + 1
        return self._earliest[following] if following < len(self._earliest) else None

    def date_of(self, point: Point) -> datetime:
        """The date of ``point``: its own date, or the committer date of a position."""
        if isinstance(point, datetime):
            return point
        return self.history[self._check(point)].date

    def _check(self, index: int) -> int:
        if not 0 <= index < len(self.history):
            raise ValueError(f"position {index} is outside a history of {len(self.history)}")
        return index


def head_at(history: Sequence[tuple[str, datetime]], when: datetime) -> int:
    """The position of the head of ``history`` at ``when``; -1 before its first commit."""
    return Timeline(history).head_at(when)


def select(
    history: Sequence[tuple[str, datetime]] | Timeline,
    start: Point,
    end: Point,
    step: Step,
) -> list[int]:
    """The positions of the commits a walk visits, in history order (see the module rules).

    ``start`` and ``end`` are points (a position or an aware date). Raises
    UsageError when the start is after the end, ValueError for a position
    outside the history.
    """
    line = history if isinstance(history, Timeline) else Timeline(history)
    if not len(line):
        return []
    first_date, last_date = line.date_of(start), line.date_of(end)
    if first_date > last_date or (
        not isinstance(start, datetime) and not isinstance(end, datetime) and start > end
    ):
        raise UsageError(
            f"the walk starts after it ends: from {_describe(line, start)}"
            f" to {_describe(line, end)}",
            hint="swap --from and --to",
        )
    low = start if not isinstance(start, datetime) else line.head_at(start)
    high = end if not isinstance(end, datetime) else line.head_at(end)
    if high < 0:
        return []
    if low > high:
        raise UsageError(
            f"the walk starts after it ends on the first-parent line: from"
            f" {_describe(line, start)} (commit {line.history[low].id[:12]}) to"
            f" {_describe(line, end)} (commit {line.history[high].id[:12]})",
            hint="the committer dates of this branch are not in order; give commits instead",
        )
    if step.is_commit:
        return _every_nth(max(low, 0), high, step.count)
    return _by_date(line, (start, end), (first_date, last_date), high, step)


def _every_nth(first: int, last: int, nth: int) -> list[int]:
    chosen = list(range(first, last + 1, nth))
    if chosen[-1] != last:
        chosen.append(last)
    return chosen


def _by_date(
    line: Timeline,
    ends: tuple[Point, Point],
    dates: tuple[datetime, datetime],
    high: int,
    step: Step,
) -> list[int]:
    start, end = ends
    first_date, last_date = dates
    chosen: list[int] = []

    def take(index: int) -> None:
        if index >= 0 and (not chosen or chosen[-1] != index):
            chosen.append(index)

    k = 0
    while True:
        try:
            when = step.advance(first_date, k)
        except OverflowError:
            break
        if k > 0 and when >= last_date:
            break
        index = start if k == 0 and not isinstance(start, datetime) else line.head_at(when)
        index = min(index, high)
        take(index)
        if index >= high:
            break
        # Jump to the first step date at which the head has moved on: the dates
        # in between would all land on ``index`` and collapse into it.
        moves = line.moves_at(index)
        if moves is None or moves >= last_date:
            break
        k = max(k + 1, step.first_at_or_after(first_date, moves))
    take(end if not isinstance(end, datetime) else high)
    return chosen


def _describe(line: Timeline, point: Point) -> str:
    if isinstance(point, datetime):
        return point.isoformat()
    entry = line.history[line._check(point)]
    return f"{entry.id[:12]} ({entry.date.isoformat()})"
