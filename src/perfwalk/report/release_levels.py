"""Each metric's level per release window, as the releases overview shows them: the
checkouts of every walk (and zoom) that fall between a release and the next one
(the last release to now, and the checkouts before the first release in a window
of their own), merged into one column.

A column's level of a metric is the median of its checkouts' summaries (the
metric's ``summary`` policy, as the change detection read them), its change the
relative move from the column before it (the older release's); its status is the
worst status of each test over its checkouts (a failed build counts for every test
of its series), and it counts the changes the walks found inside it (a change is
inside a window when the checkout after its step is). Rows are per host: a level
merged over different machines would be a number of no machine. Variants, tries,
drills, pushes and regress series are not merged: they measure something else, or
the same commits again for another purpose.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from perfwalk.model import Status
from perfwalk.report.context import SeriesContext
from perfwalk.report.releases import Release

#: a test's row: (host, test); a metric's row: (host, test, value name)
TestKey = tuple[str, str]
MetricKey = tuple[str, str, str]
#: a metric's level in a window: median, unit, direction, how many summaries, the
#: smallest change that matters
_Level = tuple[float, str, str, int, float]


@dataclass(frozen=True)
class Window:
    """From a release (None: from the first checkout) to the next one (None: now);
    ``place`` is its release's place in date order (None: before the first release)."""

    place: int | None
    name: str
    start: datetime | None
    end: datetime | None

    def holds(self, at: datetime) -> bool:
        return (self.start is None or at >= self.start) and (self.end is None or at < self.end)


@dataclass(frozen=True)
class Cell:
    """A metric in a column: the median of ``summaries`` checkouts' summaries, its
    relative ``change`` from the column before (None: nothing to compare with), the
    changes the walks found inside the column, and the smallest change that matters
    (``min_change``, the metric's as the walks judged it; 0: not known)."""

    level: float
    unit: str
    direction: str
    summaries: int
    change: float | None = None
    changes: int = 0
    min_change: float = 0.0

    @property
    def mattering(self) -> bool:
        """Whether its change is one that matters (from ``min_change``, not 0)."""
        return self.change is not None and self.change != 0 and abs(self.change) >= self.min_change

    @property
    def worse(self) -> bool:
        """Whether its change matters and is for the worse (the metric's direction)."""
        return (
            self.mattering
            and self.change is not None
            and ((self.change > 0) != (self.direction == "higher"))
        )


@dataclass(frozen=True)
class Column:
    """One column: its ``window``, its checkouts (of ``series``), their first and last
    dates, each test's worst status (with how many checkouts had it) and each metric's
    cell."""

    window: Window
    series: tuple[int, ...]
    checkouts: int
    first: datetime | None
    last: datetime | None
    statuses: dict[TestKey, tuple[Status, int]] = field(default_factory=dict)
    cells: dict[MetricKey, Cell] = field(default_factory=dict)


def merged(series: SeriesContext) -> bool:
    """Whether a series' checkouts go into the release columns: a walk's or a zoom's."""
    return series.series.kind == "walk"


def windows(releases: Sequence[Release], contexts: Sequence[SeriesContext]) -> list[Window]:
    """The windows of ``releases`` (in date order), oldest first: before the first
    release (only when a checkout is there), each release to the next, the last to
    now."""
    if not releases:
        return []
    found: list[Window] = []
    first = releases[0]
    if any(c.date < first.at for ctx in contexts if merged(ctx) for c in ctx.checkouts):
        found.append(Window(None, f"before {first.name}", None, first.at))
    for n, release in enumerate(releases):
        following = releases[n + 1] if n + 1 < len(releases) else None
        name = f"{release.name} → {following.name if following else 'now'}"
        found.append(Window(n, name, release.at, following.at if following else None))
    return found


def column(
    window: Window,
    contexts: Sequence[SeriesContext],
    statuses: Mapping[int, Mapping[int, Mapping[str, Status]]],
    previous: Window | None = None,
) -> Column:
    """The column of ``window`` over ``contexts`` (the merged series only), each
    metric's change from its level in ``previous``; ``statuses``: per series, per
    checkout index, each test's worst status (``Store.test_statuses``)."""
    chosen = [ctx for ctx in contexts if merged(ctx)]
    dates = sorted(c.date for ctx in chosen for c in ctx.checkouts if window.holds(c.date))
    series = tuple(ctx.id for ctx in chosen if any(window.holds(c.date) for c in ctx.checkouts))
    before = _levels(previous, chosen) if previous is not None else {}
    counted = _changes(window, chosen)
    cells = {
        key: Cell(
            level,
            unit,
            direction,
            count,
            _relative(before[key][0], level) if key in before else None,
            counted.get(key, 0),
            least,
        )
        for key, (level, unit, direction, count, least) in _levels(window, chosen).items()
    }
    return Column(
        window,
        series,
        len(dates),
        dates[0] if dates else None,
        dates[-1] if dates else None,
        _statuses(window, chosen, statuses),
        cells,
    )


def _levels(window: Window, contexts: Sequence[SeriesContext]) -> dict[MetricKey, _Level]:
    """Each metric's median summary over the checkouts of ``contexts`` in ``window``."""
    points: dict[MetricKey, list[float]] = {}
    kinds: dict[MetricKey, tuple[str, str]] = {}
    least: dict[MetricKey, float] = {}
    for ctx in contexts:
        inside = {c.idx for c in ctx.checkouts if window.holds(c.date)}
        for (test, name), found in (ctx.levels or {}).items():
            values = [v for i, v in zip(found.idxs, found.points, strict=True) if i in inside]
            if values:
                key = (ctx.series.host, test, name)
                points.setdefault(key, []).extend(values)
                kinds.setdefault(key, (found.unit, found.direction))
                if found.sight is not None:
                    least[key] = min(least.get(key, math.inf), found.sight.min_change)
    return {
        key: (statistics.median(values), *kinds[key], len(values), least.get(key, 0.0))
        for key, values in points.items()
    }


def _relative(old: float, new: float) -> float | None:
    """How ``new`` moved from ``old``, relatively (None from a level of 0)."""
    return (new - old) / abs(old) if old else None


def _changes(window: Window, contexts: Sequence[SeriesContext]) -> dict[MetricKey, int]:
    """How many changes (not refuted) of each metric the walks found inside ``window``,
    each once where a walk and its zoom found the same."""
    seen: set[tuple[str, str, str, str, str]] = set()
    counts: dict[MetricKey, int] = {}
    for ctx in contexts:
        for change in ctx.changes:
            if change.refuted or not window.holds(change.date):
                continue
            key = (ctx.series.host, change.test, change.name)
            once = (*key, change.before_sha, change.after_sha)
            if once not in seen:
                seen.add(once)
                counts[key] = counts.get(key, 0) + 1
    return counts


def _statuses(
    window: Window,
    contexts: Sequence[SeriesContext],
    statuses: Mapping[int, Mapping[int, Mapping[str, Status]]],
) -> dict[TestKey, tuple[Status, int]]:
    """Each test's worst status over the checkouts in ``window``, with how many had it."""
    found: dict[TestKey, list[Status]] = {}
    for ctx in contexts:
        of_series = statuses.get(ctx.id, {})
        tests = sorted({test for per in of_series.values() for test in per})
        for c in ctx.checkouts:
            if not window.holds(c.date):
                continue
            built = c.build_status if c.build_status not in (None, Status.PASS) else None
            for test in tests:
                status = of_series.get(c.idx, {}).get(test, built)
                if status is not None:
                    found.setdefault((ctx.series.host, test), []).append(status)
    out: dict[TestKey, tuple[Status, int]] = {}
    for key, seen in found.items():
        worst = Status.worst(seen)
        out[key] = (worst, seen.count(worst))
    return out


def overview(
    releases: Sequence[Release],
    contexts: Sequence[SeriesContext],
    statuses: Mapping[int, Mapping[int, Mapping[str, Status]]],
) -> list[Column]:
    """One column per window of ``releases``, newest first, each compared with the
    column before it; a window without a checkout is left out."""
    columns: list[Column] = []
    previous: Window | None = None
    for window in windows(releases, contexts):
        found = column(window, contexts, statuses, previous)
        if found.checkouts:
            columns.append(found)
            previous = window
    return columns[::-1]


def of_release(
    window: Window,
    previous: Window | None,
    contexts: Sequence[SeriesContext],
    statuses: Mapping[int, Mapping[int, Mapping[str, Status]]],
) -> tuple[Column, list[tuple[SeriesContext, Column]]]:
    """The page of one release: its merged column, then one column per series with
    checkouts in ``window`` (newest series first), each metric's change from the
    same series' level in ``previous``."""
    parts = [
        (ctx, column(window, [ctx], statuses, previous))
        for ctx in sorted(contexts, key=lambda ctx: -ctx.id)
        if merged(ctx)
    ]
    whole = column(window, contexts, statuses, previous)
    return whole, [(ctx, part) for ctx, part in parts if part.checkouts]
