"""Quirks along a walk: which quirks hold at a checkout (a patch, build steps or a
test replaced over a range), which run when the walk crosses them, what a
checkout builds and runs because of them, and the letters that mark them (pure)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from perfwalk.config.model import QuirkConfig, TestConfig
from perfwalk.letters import quirk_letter


@dataclass(frozen=True)
class QuirkPoint:
    """A resolved quirk boundary: a commit on the walked line, or a date."""

    date: datetime
    commit: str | None = None


@dataclass(frozen=True)
class PlannedQuirk:
    """A quirk placed on the walked history.

    It is crossed at first-parent position ``at_pos``; what it holds over a range
    (patch, build steps, tests) applies to positions in ``[at_pos, until_pos)`` (no
    end when ``until_pos`` is None).
    """

    letter: str
    index: int  # position in the config's [[quirk]] list
    at: QuirkPoint
    at_pos: int
    until_pos: int | None
    config: QuirkConfig

    @property
    def comment(self) -> str:
        return self.config.comment

    @property
    def commands(self) -> tuple[str, ...]:
        return self.config.commands

    @property
    def patch(self) -> Path | None:
        return self.config.patch

    def holds(self, pos: int) -> bool:
        """True when this quirk's range (patch, build steps, tests) covers ``pos``."""
        return (
            self.config.ranged
            and self.at_pos <= pos
            and (self.until_pos is None or pos < self.until_pos)
        )

    def patches(self, pos: int) -> bool:
        """True when this quirk's patch applies to the checkout at ``pos``."""
        return self.patch is not None and self.holds(pos)

    def crossed(self, previous: int | None, pos: int) -> bool:
        """True when a walk from ``previous`` to ``pos`` crosses this quirk's start
        and has something to run for it (commands, a reboot).

        ``previous`` None (the first checkout of a walk without ``[run]
        quirks_since``) crosses nothing: the machine is taken as it is.
        """
        return self.config.crossing and previous is not None and previous < self.at_pos <= pos


def position(point: QuirkPoint, ids: Sequence[str], dates: Sequence[datetime]) -> int:
    """The first-parent position where ``point`` starts to hold.

    A commit: its own position (the caller checked it is on the line). A date:
    the first commit dated at or after it (``len(ids)`` when there is none).
    """
    if point.commit is not None:
        return ids.index(point.commit)
    return bisect.bisect_left(list(dates), point.date)


def base_position(point: QuirkPoint, ids: Sequence[str], dates: Sequence[datetime]) -> int:
    """The position a walk comes from when the machine is in the state of ``point``
    (``[run] quirks_since``): a commit, its own (the quirks at it are done); a date,
    the last commit before it (-1 when there is none: every quirk from it on runs)."""
    if point.commit is not None:
        return ids.index(point.commit)
    return position(point, ids, dates) - 1


def plan_quirks(
    points: Sequence[tuple[int, QuirkPoint, QuirkPoint | None, QuirkConfig]],
    ids: Sequence[str],
    dates: Sequence[datetime],
) -> tuple[PlannedQuirk, ...]:
    """Place quirks (config index, at, until, the quirk) on the history.

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
            config=quirk,
        )
        for n, (index, at, until, quirk) in enumerate(ordered)
    )


def applying(
    quirks: Sequence[PlannedQuirk], previous: int | None, pos: int
) -> tuple[list[PlannedQuirk], list[PlannedQuirk]]:
    """(quirks that hold at ``pos``, quirks crossed from ``previous``), in date order."""
    return (
        [q for q in quirks if q.holds(pos)],
        [q for q in quirks if q.crossed(previous, pos)],
    )


def build_steps(holding: Sequence[PlannedQuirk], steps: tuple[str, ...]) -> tuple[str, ...]:
    """The build steps of a checkout where ``holding`` hold: the latest quirk's that
    replaces them, else ``steps`` ([build] steps)."""
    replaced = [q.config.build_steps for q in holding if q.config.build_steps]
    return replaced[-1] if replaced else steps


def replaced_test(
    holding: Sequence[PlannedQuirk], test: TestConfig
) -> tuple[TestConfig, str | None]:
    """``test`` as it runs where ``holding`` hold, and the letter of the quirk that
    replaced something of it (None: the test as configured)."""
    for quirk in reversed(holding):
        replaced = quirk.config.tests.get(test.name)
        if replaced is not None:
            return replaced.applied(test), quirk.letter
    return test, None


def describe_holding(quirk: PlannedQuirk) -> str:
    """What a quirk over a range changes at a checkout, for its quirk log."""
    lines = [f"quirk {quirk.letter} holds here: {quirk.comment}"]
    if quirk.config.build_steps:
        lines.append("build steps replaced by:")
        lines += [f"  $ {step}" for step in quirk.config.build_steps]
    for name, replaced in sorted(quirk.config.tests.items()):
        if replaced.command:
            lines.append(f"test {name}: command replaced by: {replaced.command}")
        if replaced.parser:
            lines.append(f"test {name}: parser replaced by: {replaced.parser}")
        if replaced.parser_options:
            options = ", ".join(f"{k} = {v!r}" for k, v in replaced.parser_options.items())
            lines.append(f"test {name}: parser options replaced by: {options}")
    return "\n".join(lines) + "\n"
