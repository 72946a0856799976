"""One series: what was walked, its plots, and its checkouts as columns (the newest
table page shown, the others linked)."""

from __future__ import annotations

from collections.abc import Sequence

from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc, link, page, quirk_legend, status_legend
from perfwalk.report.pages.plots import PlotSpec, plot_divs


def table_pages(ctx: SeriesContext) -> list[tuple[int, str]]:
    """(page number, label) of every table page of the series."""
    rows = ctx.checkouts
    size = layout.TABLE_COLUMNS
    return [
        (n, f"{rows[start].date:%Y-%m-%d} … {rows[min(start + size, len(rows)) - 1].date:%Y-%m-%d}")
        for n, start in enumerate(range(0, len(rows), size))
    ]


def _facts(at: str, ctx: SeriesContext, *, changing: bool = True) -> str:
    """The walk's facts; ``changing`` adds those that change as it runs (the number of
    checkouts, the state), which only the series page shows."""
    s = ctx.series
    running = f"{len(ctx.checkouts)} checkouts · " if changing else ""
    state = f" · {esc(s.state)}" if changing else ""
    parent = (
        " · zoom of "
        + link(layout.href(at, layout.series_page(s.parent_id)), f"series {s.parent_id}")
        if s.parent_id
        else ""
    )
    return (
        f"<p>{esc(s.kind)} of {esc(s.project)} from {esc(s.from_spec or 'the first commit')} to "
        f"{esc(s.to_spec)} by {esc(s.step)} · {running}"
        f"{s.repetitions}/{esc(s.between)} · host {esc(s.host)}{state}{parent} · "
        + link(layout.href(at, layout.setup_page(s.id)), "setup")
        + "</p>\n"
    )


def _legend(ctx: SeriesContext) -> str:
    return quirk_legend(
        [(q.letter, f"{q.at_date:%Y-%m-%d %H:%M}", q.comment) for q in ctx.series.quirks]
    )


def series_page(
    ctx: SeriesContext, specs: Sequence[PlotSpec], newest_table: str, drill: str = ""
) -> str:
    """The page of a series; ``newest_table`` is the table of its newest checkouts
    rendered for this page, ``drill`` the drill section of a drill."""
    at = layout.series_page(ctx.id)
    pages = table_pages(ctx)
    paging = ""
    if len(pages) > 1:
        paging = (
            "<p>checkouts by table page: "
            + " · ".join(
                link(layout.href(at, layout.table_page(ctx.id, n)), label) for n, label in pages
            )
            + "</p>\n<h2>Newest checkouts</h2>\n"
        )
    body = (
        _facts(at, ctx)
        + drill
        + plot_divs([ctx.id], specs)
        + "\n<h2>Checkouts</h2>\n"
        + paging
        + (newest_table or "<p>No checkout yet.</p>")
        + _legend(ctx)
        + status_legend()
    )
    title = f"series {ctx.id}: {ctx.series.name}"
    return page(at, title, body, crumbs=[(layout.INDEX, "all series")], plots=bool(specs))


def table_page(ctx: SeriesContext, number: int, table_html: str) -> str:
    at = layout.table_page(ctx.id, number)
    pages = table_pages(ctx)
    around = []
    if number > 0:
        around.append(link(layout.href(at, layout.table_page(ctx.id, number - 1)), "‹ older"))
    if number + 1 < len(pages):
        around.append(link(layout.href(at, layout.table_page(ctx.id, number + 1)), "newer ›"))
    body = (
        _facts(at, ctx, changing=False)
        + (f"<p>{' · '.join(around)}</p>\n" if around else "")
        + table_html
        + _legend(ctx)
        + status_legend()
    )
    crumbs = [(layout.INDEX, "all series"), (layout.series_page(ctx.id), f"series {ctx.id}")]
    label = pages[number][1] if number < len(pages) else ""
    return page(at, f"series {ctx.id}: {ctx.series.name}, {label}", body, crumbs=crumbs)
