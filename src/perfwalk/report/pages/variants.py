"""A walk measured with A/B variants (``[[variant]]``, ``perfwalk run --variants``):
its table with the variants as adjacent columns, and what each variant came to.

Each variant is a series of its own (kind ``variant``, the walk its parent) with the
walk's checkouts: the walk's table shows, for every checkout, a column for the plain
checkout (the variant ``base``, the walk's own series) then one per variant, under a
header that groups them by checkout. Each column is its variant's own: its build (a
variant whose patch did not apply is NOEXIST there while the others built), its
repetitions, its statuses and summaries linked to its own checkout page, its
changes marked. What the checkouts share (the commit, the commits since the one
before, the quirks, the zooms) spans the group. Each value row ends with its
statistics per variant, one line each, in the columns' order.

Variant names are letters, digits, ``_`` and ``-`` (the configuration checks them):
they are escaped all the same.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from perfwalk.model import Status
from perfwalk.report import layout
from perfwalk.report.collect import CheckoutData, metrics_of, tests_of
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc, link, status_cell, table
from perfwalk.report.pages.index import changes_text, episodes_text
from perfwalk.report.pages.table import (
    STAT_HEADERS,
    CellMarks,
    build_cell,
    commit_cell,
    commits_cell,
    metric_cell,
    metric_name_cell,
    quirks_cell,
    repetitions_cell,
    row_anchor,
    row_level_texts,
    stat_header,
    test_cell,
    zoom_cell,
)
from perfwalk.report.summaries import MetricKey

#: the statistics columns of a table with variants: one line per variant in each
VARIANT_STAT_HEADERS = (STAT_HEADERS[0], "variant", *STAT_HEADERS[1:])


@dataclass(frozen=True)
class VariantBlock:
    """A variant's checkouts of a block of its walk's table, by checkout index (a
    checkout the variant did not reach yet is missing)."""

    ctx: SeriesContext
    data: Mapping[int, CheckoutData]


@dataclass(frozen=True)
class _Column:
    """One column: a variant (``ctx``: its series) at a checkout (None: not reached)."""

    ctx: SeriesContext
    data: CheckoutData | None


def variant_table(
    at: str, ctx: SeriesContext, block: Sequence[CheckoutData], variants: Sequence[VariantBlock]
) -> str:
    """The table of ``block`` (consecutive checkouts of the walk ``ctx``) with each of
    ``variants`` in a column beside the walk's own at every checkout."""
    groups = [
        [_Column(ctx, c), *(_Column(v.ctx, v.data.get(c.row.idx)) for v in variants)] for c in block
    ]
    width = 1 + len(variants)
    stats = len(VARIANT_STAT_HEADERS)
    pad = ["<td></td>"] * stats

    def spanned(cell: str) -> str:
        """A cell that spans its checkout's group of columns."""
        return f'<td colspan="{width}"' + cell.removeprefix("<td") if width > 1 else cell

    def each(cell_of: Callable[[SeriesContext, CheckoutData], str]) -> list[str]:
        """A cell per column (an empty one where the variant has no such checkout)."""
        return [
            cell_of(col.ctx, col.data) if col.data is not None else "<td></td>"
            for group in groups
            for col in group
        ]

    def build(v: SeriesContext, c: CheckoutData) -> str:
        return build_cell(at, v, c)

    def repetitions(v: SeriesContext, c: CheckoutData) -> str:
        return repetitions_cell(v, len(c.reps))

    def shared(name: str, cell_of: Callable[[CheckoutData], str]) -> list[str]:
        """A row of what a checkout's columns share: one cell over its group."""
        return [f'<td class="name">{name}</td>', *(spanned(cell_of(c)) for c in block), *pad]

    rows: list[list[str]] = [
        shared("commit", partial(commit_cell, ctx)),
        ['<td class="name">build</td>', *each(build), *pad],
        shared("commits", partial(commits_cell, at, ctx)),
        shared("quirks", quirks_cell),
        ['<td class="name">repetitions</td>', *each(repetitions), *pad],
        shared("zoom", partial(zoom_cell, at, ctx)),
    ]
    every = [col.data for group in groups for col in group if col.data is not None]
    metrics = metrics_of(every)
    names = "<br>".join(esc(c.variant_name) for c in (ctx, *(v.ctx for v in variants)))
    for test in tests_of(every) or sorted({m.test for m in metrics}):
        rows.append(
            [
                f'<th class="name" id="{row_anchor(test)}">{esc(test)}</th>',
                *each(partial(_test_cell, at, test)),
                *(stat_header(h) for h in VARIANT_STAT_HEADERS),
            ]
        )
        rows.extend(_metric_row(groups, key, names) for key in metrics if key.test == test)
    return _grouped_table(at, block, groups, rows, css="checkouts variants")


def _test_cell(at: str, test: str, v: SeriesContext, c: CheckoutData) -> str:
    return test_cell(at, v, c, test)


def _metric_row(groups: Sequence[Sequence[_Column]], key: MetricKey, names: str) -> list[str]:
    """A value's row: each column's summary (marked as its own series' changes and
    findings say), the unit, then the figures of each variant's last level in the row
    (after its own last change there), a line each."""
    width = len(groups[0]) if groups else 0
    marks = [CellMarks.of(col.ctx, key) for col in groups[0]] if groups else []
    shown: list[list[float]] = [[] for _ in range(width)]
    idxs: list[list[int]] = [[] for _ in range(width)]
    cells = [metric_name_cell(key)]
    for group in groups:
        for n, col in enumerate(group):
            if col.data is None:
                cells.append("<td></td>")
                continue
            cell, value = metric_cell(marks[n], col.data, key)
            cells.append(cell)
            shown[n].append(math.nan if value is None else value)
            idxs[n].append(col.data.row.idx)
    cells.append(f"<td>{esc(key.unit)}</td>")
    cells.append(f'<td class="variant">{names}</td>')
    per_variant = [
        row_level_texts(col.ctx, key, idxs[n], shown[n])
        for n, col in enumerate(groups[0] if groups else ())
    ]
    cells.extend(
        "<td>" + "<br>".join(texts[stat] or "-" for texts in per_variant) + "</td>"
        for stat in range(len(VARIANT_STAT_HEADERS) - 2)
    )
    return cells


def _grouped_table(
    at: str,
    block: Sequence[CheckoutData],
    groups: Sequence[Sequence[_Column]],
    rows: Sequence[Sequence[str]],
    *,
    css: str,
) -> str:
    """The table with two header rows: the checkouts (each over its group of
    columns), then each column's variant, linked to its checkout page."""
    width = len(groups[0]) if groups else 1

    def to(path: str) -> str:
        return layout.href(at, path)

    top = ['<th class="name" rowspan="2">checkout</th>'] + [
        f'<th colspan="{width}">'
        + link(
            to(layout.checkout_page(group[0].ctx.id, c.row.idx)),
            group[0].ctx.times.minute(c.row.date),
        )
        + f"<br><small>#{c.row.idx}</small></th>"
        for c, group in zip(block, groups, strict=True)
    ]
    top += [stat_header(h, ' rowspan="2"') for h in VARIANT_STAT_HEADERS]
    second = [
        '<th class="variant">'
        + (
            link(to(layout.checkout_page(col.ctx.id, c.row.idx)), col.ctx.variant_name)
            if col.data is not None
            else esc(col.ctx.variant_name)
        )
        + "</th>"
        for c, group in zip(block, groups, strict=True)
        for col in group
    ]
    columns = (
        "<colgroup><col></colgroup>"
        + f'<colgroup class="checkout" span="{width}"></colgroup>' * len(groups)
        + f'<colgroup span="{len(VARIANT_STAT_HEADERS)}"></colgroup>'
    )
    body = "\n".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return (
        f'<table class="{esc(css)}">\n{columns}\n'
        f"<thead><tr>{''.join(top)}</tr>\n<tr>{''.join(second)}</tr></thead>\n"
        f"<tbody>\n{body}\n</tbody>\n</table>"
    )


def variants_section(at: str, ctx: SeriesContext, worst: Mapping[int, Mapping[str, Status]]) -> str:
    """What each variant of the walk ``ctx`` came to, the plain checkout first: its
    series, checkouts, builds that failed, changes and other findings, and per test
    its worst status (``worst``: by series id) linked to the test's rows of its
    page ("" for a walk without variants)."""
    if not ctx.variants:
        return ""
    every = (ctx, *ctx.variants)
    tests = sorted({t for v in every for t in worst.get(v.id, {})})
    head = [
        '<th class="name">variant</th>',
        "<th>series</th>",
        "<th>checkouts</th>",
        "<th>builds failed</th>",
        "<th>changes</th>",
        "<th>other findings</th>",
        *(f"<th>{esc(test)}</th>" for test in tests),
    ]
    rows = []
    for v in every:
        failed = [r for r in v.checkouts if r.build_status not in (None, Status.PASS)]
        statuses = worst.get(v.id, {})
        page = layout.series_page(v.id)
        rows.append(
            [
                f'<td class="name">{esc(v.variant_name)}</td>',
                f"<td>{link(layout.href(at, page), f'series {v.id}')}</td>",
                f"<td>{len(v.checkouts)}</td>",
                f"<td>{len(failed)}</td>",
                f'<td class="changes">{esc(changes_text(v.changes))}</td>',
                f'<td class="findings">{esc(episodes_text(v.episodes))}</td>',
                *(
                    status_cell(statuses.get(test), layout.href(at, f"{page}#{row_anchor(test)}"))
                    for test in tests
                ),
            ]
        )
    return (
        "<h2>Variants</h2>\n<p>Each checkout measured plain (<i>base</i>) and with each "
        "variant, their repetitions interleaved; the table below shows them side by "
        "side, the plots a line per variant.</p>\n" + table(head, rows, css="variants") + "\n"
    )
