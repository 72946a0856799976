"""A sweep's family as one profile: a value of its members (``udp``'s ``receiver``)
against a swept parameter on x (``size``), one line per checkout range, as the page of
a series draws it above each member's own plot over time (docs/sweeps.md says why).

The x parameter is the first (by name) whose values are all numbers and that takes
more than one; the members that differ in the other parameters (``streams``) get a
profile each. The ranges cut the series' checkouts where a change of the value was
found in any member of the family (not a refuted one): one line per level of the
family, so a step that hit the small packets and spared the large ones shows as two
lines that part at the small sizes. A point is the median of the member's summaries
in the range (as the change detection read them).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfwalk.report.context import SeriesContext
from perfwalk.report.pages.plots import recorded_facts

#: the most lines a profile draws: the newest ranges (older ones are on the members' plots)
MAX_LINES = 8


@dataclass(frozen=True)
class ProfileLine:
    """One checkout range (indexes ``first`` … ``last``): per x, the median summary."""

    first: int
    last: int
    values: tuple[float | None, ...]


@dataclass(frozen=True)
class Profile:
    """One value of a family against ``parameter`` at the ``xs``, the other
    parameters held at ``held``."""

    family: str
    name: str
    unit: str
    direction: str
    parameter: str
    held: tuple[tuple[str, Any], ...]
    xs: tuple[float, ...]
    lines: tuple[ProfileLine, ...]

    @property
    def title(self) -> str:
        held = ",".join(f"{k}={v}" for k, v in self.held)
        return f"{self.family}{f'[{held}]' if held else ''} {self.name} per {self.parameter}"


def _numeric(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _members(ctx: SeriesContext) -> dict[str, dict[str, dict[str, Any]]]:
    """Family → member test → its sweep parameters, as the walk recorded them."""
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for test in sorted({test for test, _name in ctx.levels or {}}):
        facts = recorded_facts(ctx.series, test)
        family, sweep = facts.get("family"), facts.get("sweep")
        if isinstance(family, str) and family and isinstance(sweep, dict):
            found.setdefault(family, {})[test] = sweep
    return found


def _parameter(sweeps: Sequence[Mapping[str, Any]]) -> str | None:
    """The first parameter (by name) with numbers only and more than one value."""
    names = sorted(set.intersection(*(set(s) for s in sweeps))) if sweeps else []
    for name in names:
        values = [s[name] for s in sweeps]
        if all(_numeric(v) for v in values) and len(set(values)) > 1:
            return name
    return None


def profiles(ctx: SeriesContext) -> list[Profile]:
    """The profiles of every sweep family of the series (none without the levels the
    change detection read, or without a numeric parameter to put on x)."""
    found: list[Profile] = []
    levels = ctx.levels or {}
    for family, members in _members(ctx).items():
        parameter = _parameter(list(members.values()))
        if parameter is None:
            continue
        groups: dict[tuple[tuple[str, Any], ...], dict[float, str]] = {}
        for test, sweep in members.items():
            held = tuple(sorted((k, v) for k, v in sweep.items() if k != parameter))
            groups.setdefault(held, {})[float(sweep[parameter])] = test
        names = sorted({name for test, name in levels if test in members})
        for held, by_x in sorted(groups.items(), key=lambda item: str(item[0])):
            for name in names:
                profile = _profile(ctx, family, name, parameter=parameter, held=held, by_x=by_x)
                if profile is not None:
                    found.append(profile)
    return found


def _profile(
    ctx: SeriesContext,
    family: str,
    name: str,
    *,
    parameter: str,
    held: tuple[tuple[str, Any], ...],
    by_x: Mapping[float, str],
) -> Profile | None:
    levels = ctx.levels or {}
    xs = sorted(x for x, test in by_x.items() if (test, name) in levels)
    if len(xs) < 2:
        return None
    tests = {by_x[x] for x in xs}
    first = levels[(by_x[xs[0]], name)]
    idxs = [c.idx for c in ctx.checkouts]
    if not idxs:
        return None
    starts = sorted(
        {
            c.after_idx
            for c in ctx.changes
            if c.test in tests and c.name == name and not c.refuted and c.after_idx > idxs[0]
        }
    )
    bounds = [idxs[0], *starts]
    ranges = [
        (start, (bounds[n + 1] - 1) if n + 1 < len(bounds) else idxs[-1])
        for n, start in enumerate(bounds)
    ]
    lines = []
    for lo, hi in ranges[-MAX_LINES:]:
        values: list[float | None] = []
        for x in xs:
            found = levels[(by_x[x], name)]
            inside = [v for i, v in zip(found.idxs, found.points, strict=True) if lo <= i <= hi]
            values.append(statistics.median(inside) if inside else None)
        if any(v is not None for v in values):
            lines.append(ProfileLine(lo, hi, tuple(values)))
    if not lines:
        return None
    return Profile(
        family, name, first.unit, first.direction, parameter, held, tuple(xs), tuple(lines)
    )
