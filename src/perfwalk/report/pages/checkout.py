"""One checkout: one column per repetition with every value, each status linking to
its log; the build, the quirks applied and the host fingerprint."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from perfwalk.report import layout
from perfwalk.report.collect import CheckoutData, metrics_of
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc, link, number, page, percent, status_cell, table
from perfwalk.report.pages.table import STAT_HEADERS, row_anchor, row_statistics
from perfwalk.report.summaries import MetricKey
from perfwalk.store.store import BlockResult


def result_anchor(result_id: int) -> str:
    return f"result-{result_id}"


def checkout_page(ctx: SeriesContext, data: CheckoutData, table_page: int) -> str:
    sid, row = ctx.id, data.row
    at = layout.checkout_page(sid, row.idx)

    def to(path: str) -> str:
        return layout.href(at, path)

    logs = layout.logs_page(sid, row.idx)
    reps = [r.idx for r in data.repetitions]
    head = ['<th class="name">test / value</th>'] + [f"<th>{r:03d}</th>" for r in reps]
    head += [f"<th>{h}</th>" for h in STAT_HEADERS]
    rows: list[list[str]] = []
    if any(r.between_status is not None for r in data.repetitions):
        rows.append(
            ['<td class="name">between</td>']
            + [
                status_cell(
                    r.between_status,
                    to(logs + "#" + layout.log_anchor(r.between_log_id))
                    if r.between_log_id
                    else None,
                )
                for r in data.repetitions
            ]
            + ["<td></td>"] * len(STAT_HEADERS)
        )
    metrics = metrics_of([data])
    results: dict[str, dict[int, BlockResult]] = {}
    for stored in data.results:
        results.setdefault(stored.test, {})[stored.repetition_idx] = stored
    for test in sorted(results):
        by_rep = results[test]
        cells = [f'<th class="name" id="{row_anchor(test)}">{esc(test)}</th>']
        for rep in reps:
            result = by_rep.get(rep)
            if result is None:
                cells.append("<td></td>")
                continue
            tip = result.message or (
                f"{result.duration:.2f} s" if result.duration is not None else ""
            )
            cells.append(status_cell(result.status, to(logs + "#" + result_anchor(result.id)), tip))
        rows.append(cells + [f"<th>{h}</th>" for h in STAT_HEADERS])
        for key in (m for m in metrics if m.test == test):
            rows.append(_value_row(data, key, reps))
    build = (
        link(to(logs + "#" + layout.log_anchor(row.build_log_id)), "build log")
        if row.build_log_id
        else "not built"
    )
    commit_href = ctx.commit_href(row.sha)
    commit = link(commit_href, row.sha) if commit_href else f"<code>{esc(row.sha)}</code>"
    position = ctx.position(row.idx)
    around = []
    if position > 0:
        before = ctx.checkouts[position - 1]
        around.append(link(to(layout.checkout_page(sid, before.idx)), f"‹ checkout {before.idx}"))
    if position + 1 < len(ctx.checkouts):
        after = ctx.checkouts[position + 1]
        around.append(link(to(layout.checkout_page(sid, after.idx)), f"checkout {after.idx} ›"))
    status = row.build_status.name if row.build_status else "no build"
    seconds = f" in {row.build_seconds:.1f} s" if row.build_seconds is not None else ""
    facts = (
        f"<p>commit {commit} · {esc(f'{row.date:%Y-%m-%d %H:%M %z}')}</p>\n"
        f'<p>build <span class="{esc(status)}">{esc(status)}</span>{esc(seconds)} · {build} · '
        + link(to(layout.commits_page(sid, row.idx)), f"{row.commit_count} commits since previous")
        + " · "
        + link(to(logs), "every log of this checkout")
        + (" · " + " · ".join(around) if around else "")
        + "</p>\n"
    )
    body = (
        facts
        + _quirks(to, ctx, data)
        + (table(head, rows, css="repetitions") if reps else "<p>No repetition stored.</p>")
        + _host(to, ctx)
    )
    return page(
        at,
        f"checkout {row.idx} of series {sid}",
        body,
        crumbs=_crumbs(ctx, table_page),
    )


def _value_row(data: CheckoutData, key: MetricKey, reps: list[int]) -> list[str]:
    """One value name: each repetition's value (outliers marked, their distance from
    the summary as tooltip), then the unit and the statistics of the PASS values."""
    summary = data.summaries.get(key)
    outliers: set[int] = set()
    if summary is not None and summary.outliers:
        summarised = data.summarised[key]
        outliers = {summarised[i] for i in summary.outliers}
    values = {rep: value for rep, value, _status in data.points[key]}
    cells = [f'<td class="name">{esc(key.name)}</td>']
    for rep in reps:
        value = values.get(rep)
        if value is None:
            cells.append("<td></td>")
        elif rep in outliers and summary is not None:
            cells.append(
                f'<td class="outlier" title="{percent(summary.deviation(value))} from the summary '
                f'{number(summary.summary)}">{number(value)}</td>'
            )
        else:
            cells.append(f"<td>{number(value)}</td>")
    cells.append(f"<td>{esc(key.unit)}</td>")
    if summary is None:
        cells.extend(row_statistics([]))
    else:
        rsd_css = ' class="unstable"' if summary.unstable else ""
        cells += [
            f"<td>{number(summary.mean)}</td>",
            f"<td>{number(summary.min)}</td>",
            f"<td>{number(summary.max)}</td>",
            f"<td>{number(summary.sd)}</td>",
            f'<td{rsd_css} title="relative deviation">{percent(summary.rsd)}</td>',
        ]
    return cells


def _crumbs(ctx: SeriesContext, table_page: int) -> list[tuple[str, str]]:
    crumbs = [(layout.INDEX, "all series"), (layout.series_page(ctx.id), f"series {ctx.id}")]
    if len(ctx.checkouts) > layout.TABLE_COLUMNS:
        crumbs.append((layout.table_page(ctx.id, table_page), f"table {table_page + 1}"))
    return crumbs


def _quirks(to: Callable[[str], str], ctx: SeriesContext, data: CheckoutData) -> str:
    crossed = ", ".join(data.row.quirks)
    runs = data.row.quirk_runs
    if not crossed and not runs:
        return ""
    comments = {q.letter: q.comment for q in ctx.series.quirks}
    logs = layout.logs_page(ctx.id, data.row.idx)
    rows: Sequence[list[str]] = [
        [
            f'<td class="quirk">{esc(run.letter)}</td>',
            status_cell(run.status, to(logs + "#" + layout.log_anchor(run.log_id))),
            f'<td class="name">{esc(comments.get(run.letter, ""))}</td>',
        ]
        for run in runs
    ]
    listed = f"<p>quirks in force: {esc(crossed)}</p>" if crossed else ""
    return (
        "<h2>Quirks applied</h2>\n"
        + listed
        + (
            table(["<th>quirk</th>", "<th>status</th>", '<th class="name">comment</th>'], rows)
            if rows
            else ""
        )
    )


def _host(to: Callable[[str], str], ctx: SeriesContext) -> str:
    fp = [
        [f'<td class="name">{esc(k)}</td>', f'<td class="name">{esc(v)}</td>']
        for k, v in sorted(ctx.series.fingerprint.items())
    ]
    return (
        f"<h2>Host {esc(ctx.series.host)}</h2>\n"
        + table(['<th class="name">fact</th>', '<th class="name">value</th>'], fp)
        + f"<p>{link(to(layout.setup_page(ctx.id)), 'setup: configuration and commands')}</p>"
    )
