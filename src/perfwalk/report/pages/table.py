"""A table page of one series: checkouts as columns; per test a status row, then one
row per value name with each checkout's summary, and the figures of the row's last
level on the page (its checkouts since the last change among them: never statistics
over a step; a try's, each side's over its repetitions)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

from perfwalk.analysis.levels import Level, levels
from perfwalk.report import layout
from perfwalk.report.change_list import ListedChange, ListedEpisode
from perfwalk.report.collect import CheckoutData, metrics_of, tests_of
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc, link, number, percent, status_cell, table
from perfwalk.report.pages.build_facts import fact_rows
from perfwalk.report.pages.series import level_figures, needed
from perfwalk.report.series_levels import Shown
from perfwalk.report.summaries import MetricKey

STAT_HEADERS = ("unit", "level from", "median", "± rsd", "min … max", "n")
#: what each statistics column says, as its header's tooltip
STAT_TITLES = {
    "level from": "the level of the row's last checkout on this page: its first checkout "
    "(after the change before it, maybe on an earlier page) and its figures over the "
    "whole level, the newest one as far as this page goes; on a try, each side",
    "median": "the median of the level's checkout summaries (a try: of each side's values)",
    "± rsd": "their relative standard deviation",
    "min … max": "their smallest and largest",
    "n": "how many checkouts (a try: repetitions)",
}


def stat_header(name: str, attributes: str = "") -> str:
    """The header cell of a statistics column, with what it computes as its tooltip."""
    title = STAT_TITLES.get(name)
    said = f' title="{esc(title)}"' if title else ""
    return f"<th{attributes}{said}>{esc(name)}</th>"


def row_anchor(test: str) -> str:
    """A stable id for a test's rows (test names may hold anything)."""
    return "test-" + hashlib.sha1(test.encode(), usedforsecurity=False).hexdigest()[:10]


def checkout_table(at: str, ctx: SeriesContext, block: Sequence[CheckoutData]) -> str:
    """The table of ``block`` (consecutive checkouts) for the page at ``at``."""
    sid = ctx.id

    def to(path: str) -> str:
        return layout.href(at, path)

    head = ['<th class="name">checkout</th>'] + [
        f"<th>{link(to(layout.checkout_page(sid, c.row.idx)), ctx.times.minute(c.row.date))}"
        f"<br><small>#{c.row.idx}</small></th>"
        for c in block
    ]
    head += [stat_header(h) for h in STAT_HEADERS]
    pad = ["<td></td>"] * len(STAT_HEADERS)
    rows: list[list[str]] = [
        ['<td class="name">commit</td>'] + [commit_cell(ctx, c) for c in block] + pad,
        ['<td class="name">build</td>'] + [build_cell(at, ctx, c) for c in block] + pad,
        ['<td class="name">commits</td>'] + [commits_cell(at, ctx, c) for c in block] + pad,
        ['<td class="name">quirks</td>'] + [quirks_cell(c) for c in block] + pad,
        ['<td class="name">repetitions</td>']
        + [repetitions_cell(ctx, len(c.reps)) for c in block]
        + pad,
        ['<td class="name">zoom</td>'] + [zoom_cell(at, ctx, c) for c in block] + pad,
    ]
    rows.extend(fact_rows(at, ctx, block, pad))
    metrics = metrics_of(block)
    for test in tests_of(block) or sorted({m.test for m in metrics}):
        rows.append(
            [f'<th class="name" id="{row_anchor(test)}">{esc(test)}</th>']
            + [test_cell(at, ctx, c, test) for c in block]
            + [stat_header(h) for h in STAT_HEADERS]
        )
        rows.extend(_metric_row(ctx, block, m) for m in metrics if m.test == test)
    return table(head, rows, css="checkouts")


def build_cell(at: str, ctx: SeriesContext, c: CheckoutData) -> str:
    """The checkout's build status, linked to its log, with how long it took."""
    row = c.row
    return status_cell(
        row.build_status,
        layout.href(at, layout.logs_page(ctx.id, row.idx, layout.log_anchor(row.build_log_id)))
        if row.build_log_id
        else None,
        f"{row.build_seconds:.1f} s" if row.build_seconds is not None else "",
    )


def commits_cell(at: str, ctx: SeriesContext, c: CheckoutData) -> str:
    target = layout.href(at, layout.commits_page(ctx.id, c.row.idx))
    return f"<td>{link(target, f'commits/{c.row.commit_count}')}</td>"


def quirks_cell(c: CheckoutData) -> str:
    quirks = c.row.quirks
    return f'<td class="quirk">{esc("quirks/" + ",".join(quirks)) if quirks else ""}</td>'


def test_cell(at: str, ctx: SeriesContext, c: CheckoutData, test: str) -> str:
    """A test's worst status at the checkout, linked to its row on the checkout's page."""
    target = layout.href(at, layout.checkout_page(ctx.id, c.row.idx, row_anchor(test)))
    return status_cell(c.statuses.get(test), target)


def repetitions_cell(ctx: SeriesContext, count: int) -> str:
    """How many repetitions a checkout has; with adaptive repetitions, what they say
    (as many as needed, or the most allowed: marked ``unstable``)."""
    text = f"{count}/{esc(ctx.series.between)}"
    said = needed(ctx.series, count)
    if not said:
        return f"<td>{text}</td>"
    measuring = ctx.series.measuring
    most = measuring is not None and count >= (measuring.repetitions_max or 0)
    css = ' class="unstable"' if most else ""
    return f'<td{css} title="{esc(said)}">{text}</td>'


def commit_cell(ctx: SeriesContext, c: CheckoutData) -> str:
    target = ctx.commit_href(c.row.sha)
    if target:
        return f"<td>{link(target, c.row.sha[:10], title=c.row.sha)}</td>"
    return f'<td><code title="{esc(c.row.sha)}">{esc(c.row.sha[:10])}</code></td>'


def zoom_cell(at: str, ctx: SeriesContext, c: CheckoutData) -> str:
    zooms = ctx.zooms.get(c.row.idx, ())
    return (
        "<td>"
        + "<br>".join(
            link(layout.href(at, layout.series_page(z.series_id)), z.label) for z in zooms
        )
        + "</td>"
    )


def _metric_row(ctx: SeriesContext, block: Sequence[CheckoutData], key: MetricKey) -> list[str]:
    cells = [metric_name_cell(key)]
    marks = CellMarks.of(ctx, key)
    shown: list[float] = []
    for c in block:
        cell, value = metric_cell(marks, c, key)
        cells.append(cell)
        shown.append(math.nan if value is None else value)
    cells.append(f"<td>{esc(key.unit)}</td>")
    if ctx.series.kind == "try":
        per_side = [side_texts(c, key) for c in block]
        cells.extend(
            "<td>" + "<br>".join(texts[stat] or "-" for texts in per_side) + "</td>"
            for stat in range(len(STAT_HEADERS) - 1)
        )
    else:
        cells.extend(
            f"<td>{t}</td>" for t in row_level_texts(ctx, key, [c.row.idx for c in block], shown)
        )
    return cells


def metric_name_cell(key: MetricKey) -> str:
    return f'<td class="name">{esc(key.name)} <small>({esc(key.direction)} is better)</small></td>'


@dataclass(frozen=True)
class CellMarks:
    """The changes and excursions of one metric of a series, to mark its cells."""

    changes: Sequence[ListedChange]
    excursions: Sequence[ListedEpisode]

    @classmethod
    def of(cls, ctx: SeriesContext, key: MetricKey) -> CellMarks:
        return cls(
            [c for c in ctx.changes if c.test == key.test and c.name == key.name],
            [
                e
                for e in ctx.episodes
                if e.kind == "excursion" and e.test == key.test and e.name == key.name
            ],
        )


def metric_cell(marks: CellMarks, c: CheckoutData, key: MetricKey) -> tuple[str, float | None]:
    """The cell of ``key`` at checkout ``c`` (its summary, marked), and the summary
    (None when there is none)."""
    m = c.index.get(key)
    value = c.chosen[m] if m is not None else math.nan
    if value != value:  # noqa: PLR0124 (NaN: no summary)
        return "<td></td>", None
    change = None
    if marks.changes:
        change = next((x for x in marks.changes if x.after_idx == c.row.idx), None)
    excursion = None
    if marks.excursions:
        excursion = next((x for x in marks.excursions if x.spans(c.row.idx)), None)
    if m not in c.marks and change is None and excursion is None:
        return f"<td><em>{esc(number(value, key.unit))}</em></td>", value
    # only marked cells carry a tooltip: pages of 5 000 cells stay small
    cell = c.cell(key)
    assert cell is not None
    classes: list[str] = []
    tips = [
        f"n={cell.n} mean={number(cell.mean, key.unit)} min={number(cell.min, key.unit)} "
        f"max={number(cell.max, key.unit)} sd={number(cell.sd, key.unit)} "
        f"relative={percent(cell.rsd)}"
    ]
    if cell.unstable:
        classes.append("unstable")
        tips.append(f"unstable: relative deviation {percent(cell.rsd)}")
    if cell.outliers:
        classes.append("outlier")
        worst = max(
            abs(v - cell.summary) / abs(cell.summary) if cell.summary else 0.0
            for v in (cell.min, cell.max)
        )
        tips.append(f"outlier: a value {percent(worst)} from the summary")
    if change is not None:
        classes.append("unconfirmed" if change.unconfirmed else change.word)
        tips.append(change.describe())
    if excursion is not None:  # not a change: a neutral mark, whichever way it went
        classes.append("excursion")
        tips.append(excursion.describe())
    return (
        f'<td class="{" ".join(classes)}" title="{esc("; ".join(tips))}">'
        f"<em>{esc(number(value, key.unit))}</em></td>",
        value,
    )


def row_level_texts(
    ctx: SeriesContext, key: MetricKey, idxs: Sequence[int], points: Sequence[float]
) -> list[str]:
    """The figures a row of ``ctx`` gives (its checkouts ``idxs`` on the page, their
    summaries ``points``): the series' level that its last checkout with a summary
    belongs to, as the series page lists it (:mod:`perfwalk.report.series_levels`);
    without the series' levels, the last level among the page's checkouts."""
    found = ctx.levels.get((key.test, key.name)) if ctx.levels is not None else None
    if found is None:
        return level_texts(idxs, points, ctx.level_starts(key.test, key.name), key.unit)
    return shown_texts(found.shown(idxs[0], idxs[-1]) if idxs else None, key.unit)


def shown_texts(shown: Shown | None, unit: str = "") -> list[str]:
    """from, median, relative deviation, extremes, count of a level ("" each for none)."""
    if shown is None:
        return [""] * (len(STAT_HEADERS) - 1)
    cut = "" if shown.whole else " (the newest level: as far as this page goes)"
    return _level_cells(shown.first, shown.last, shown.level, unit, cut)


def level_texts(
    idxs: Sequence[int], points: Sequence[float], starts: Sequence[int], unit: str = ""
) -> list[str]:
    """The figures of the last level of a row (checkouts ``idxs``, their summaries
    ``points``, NaN for none) whose levels begin at the checkouts ``starts``: from,
    median, relative deviation, extremes, count ("" each for no value)."""
    begins = set(starts)
    found = levels(points, [pos for pos, idx in enumerate(idxs) if idx in begins])
    if not found:
        return [""] * (len(STAT_HEADERS) - 1)
    last = found[-1]
    return _level_cells(idxs[last.first], idxs[last.last], last, unit)


def _level_cells(first: int, last: int, level: Level, unit: str, note: str = "") -> list[str]:
    """A level's cells (checkouts ``first`` to ``last``): from (its mean and deviation
    as tooltip), median, relative deviation, extremes, count."""
    title = (
        f"checkouts {first}–{last}: mean {number(level.mean, unit)}, "
        f"sd {number(level.sd, unit)}{note}"
    )
    return [f'<span title="{esc(title)}">#{first}</span>', *level_figures(level, unit)]


def side_texts(c: CheckoutData, key: MetricKey) -> list[str]:
    """A try's side (checkout ``c``): the figures of its own repetitions of ``key``."""
    cell = c.cell(key)
    if cell is None:
        return [""] * (len(STAT_HEADERS) - 1)
    side = "AB"[c.row.idx] if c.row.idx in (0, 1) else f"#{c.row.idx}"
    return [side, *level_figures(cell, key.unit)]
