"""The releases overview (``releases.html``): one column per release window, newest
first, the checkouts of every walk in it merged (:mod:`perfwalk.report.release_levels`);
one row per test with its worst status, and under it one row per metric with its
level, its change from the older release's column and the changes the walks found
inside. Each release has a page of its own (``releases/release-N.html``): the same
rows, its merged column first, then one column per series with checkouts in it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from perfwalk.quantities import format_change, format_share, many
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc, link, newest_first, number, page, status_legend
from perfwalk.report.pages.table import row_anchor
from perfwalk.report.release_levels import Cell, Column, MetricKey, TestKey
from perfwalk.report.times import SiteTimes

#: a column as a page shows it: its heading (ready HTML), its figures and where a
#: test's status links to (None: nowhere)
Shown = tuple[str, Column, Callable[[TestKey], str] | None]


def overview_page(
    columns: Sequence[Column], released: bool, left_out: int, times: SiteTimes
) -> str:
    """The overview of ``columns`` (newest first); ``released``: whether the project
    has releases at all; ``left_out``: the checkouts of series not merged."""
    at = layout.RELEASES
    title = "perfwalk: levels per release"
    crumbs = [(layout.INDEX, "all series")]
    if not released:
        body = (
            "<p>No releases: declare the project's releases (<code>[[release]]</code> "
            "<code>name</code> and <code>at</code>, a date or a commit-ish) to see each "
            "metric's level per release here (docs/report.md).</p>\n"
        )
        return page(at, title, body, crumbs=crumbs)
    if not columns:
        body = "<p>No checkout of a walk falls in a release window yet.</p>\n"
        return page(at, title, body, crumbs=crumbs)
    shown: list[Shown] = []
    for c in columns:
        to = layout.href(at, layout.release_page(c.window.place))
        shown.append((link(to, c.window.name), c, _rows_at(to, _anchor)))
    note = (
        "<p>Each column merges the checkouts of every walk between a release and the "
        "next; a level is the median of the checkouts' summaries, its change is from "
        "the older release's column. Variants, tries and drills are not merged"
        + (f" ({many(left_out, 'checkout')} left out)" if left_out else "")
        + ".</p>\n"
    )
    return page(
        at,
        title,
        note + _table(shown, times) + status_legend(),
        crumbs=crumbs,
        times=times,
    )


def release_page(
    merged: Column, parts: Sequence[tuple[SeriesContext, Column]], times: SiteTimes
) -> str:
    """The page of one release window: its ``merged`` column, then the ``parts`` of
    each series in it."""
    at = layout.release_page(merged.window.place)
    shown: list[Shown] = [("all walks", merged, None)]
    for ctx, part in parts:
        to = layout.href(at, layout.series_page(ctx.id))
        shown.append((link(to, _label(ctx)), part, _rows_at(to, lambda key: row_anchor(key[1]))))
    note = (
        "<p>The first column merges the walks' checkouts in this window (as on "
        + link(layout.href(at, layout.RELEASES), "the overview")
        + "); then each walk's own, its change from its own level in the release "
        "before.</p>\n"
    )
    return page(
        at,
        f"perfwalk: release {merged.window.name}",
        note + _table(shown, times) + status_legend(),
        crumbs=[(layout.INDEX, "all series"), (layout.RELEASES, "releases")],
        times=times,
    )


def _label(ctx: SeriesContext) -> str:
    return f"{ctx.id}: {ctx.series.name}"


def _table(shown: Sequence[Shown], times: SiteTimes) -> str:
    """The rows of every test and metric of ``shown`` (their union), a column each."""
    tests: set[TestKey] = set()
    metrics: set[MetricKey] = set()
    for _head, col, _to in shown:
        tests.update(col.statuses)
        metrics.update(col.cells)
    tests.update((host, test) for host, test, _name in metrics)
    head = ['<th class="name">test / metric</th>', "<th>host</th>"]
    head += [f"<th>{heading}</th>" for heading, _col, _to in shown]

    rows = [
        '<tr><th class="name">checkouts</th><td></td>'
        + "".join(f"<td>{_dates(col, times)}</td>" for _h, col, _to in shown)
        + "</tr>",
        '<tr><th class="name">measured</th><td></td>'
        + "".join(
            f"<td>{esc(many(col.checkouts, 'checkout'))} of "
            f"{esc(many(len(col.series), 'series'))}</td>"
            for _h, col, _to in shown
        )
        + "</tr>",
    ]
    for host, test in sorted(tests):
        cells = "".join(_status(col, (host, test), to) for _h, col, to in shown)
        rows.append(
            f'<tr class="top" id="{_anchor((host, test))}">'
            f'<td class="name">{esc(test)}</td><td>{esc(host)}</td>{cells}</tr>'
        )
        for key in sorted(k for k in metrics if k[:2] == (host, test)):
            unit = next((c.cells[key].unit for _h, c, _to in shown if key in c.cells), "")
            name = f"{key[2]} ({unit})" if unit else key[2]
            values = "".join(_level(col.cells.get(key)) for _h, col, _to in shown)
            rows.append(
                f'<tr class="nested"><td class="name depth-1">↳ {esc(name)}</td><td></td>'
                f"{values}</tr>"
            )
    return newest_first(
        '<table class="series releases">\n<thead><tr>'
        + "".join(head)
        + "</tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + "\n</tbody>\n</table>"
    )


def _dates(col: Column, times: SiteTimes) -> str:
    """The first and last checkout of a column."""
    if col.first is None or col.last is None:
        return "-"
    return f"{esc(times.minute(col.first))} … {esc(times.minute(col.last))}"


def _rows_at(page_href: str, anchor: Callable[[TestKey], str]) -> Callable[[TestKey], str]:
    """Where a test's status links: its row (``anchor``) on the page at ``page_href``."""
    return lambda key: f"{page_href}#{anchor(key)}"


def _anchor(key: TestKey) -> str:
    """The id of a test's row on a release's page (a test per host)."""
    return row_anchor(f"{key[0]} {key[1]}")


def _status(col: Column, key: TestKey, to: Callable[[TestKey], str] | None) -> str:
    found = col.statuses.get(key)
    if found is None:
        return "<td></td>"
    status, count = found
    text = f"{status.name} ×{count}" if status.name != "PASS" else "PASS"
    tip = f"worst status of {key[1]} over {many(col.checkouts, 'checkout')} in this window"
    told = link(to(key), text, title=tip) if to is not None else esc(text)
    return f'<td class="{status.name}">{told}</td>'


def _level(cell: Cell | None) -> str:
    if cell is None:
        return "<td></td>"
    parts = [esc(number(cell.level, cell.unit))]
    if cell.change is not None:
        css = "worse" if cell.worse else "better" if cell.mattering else ""
        told = esc(format_change(cell.change))
        parts.append(f'<span class="{css}">{told}</span>' if css else told)
    if cell.changes:
        parts.append(esc(many(cell.changes, "change")))
    tip = f"median of the summaries of {many(cell.summaries, 'checkout')}"
    if cell.min_change:
        tip += f"; a change from {format_share(cell.min_change)} matters"
    return f'<td class="level" title="{esc(tip)}">' + " · ".join(parts) + "</td>"
