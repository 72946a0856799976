"""The static site: all series → one series → one checkout → one log, and the
commit log between neighbouring checkouts. Plain files, no script, no CDN."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from perfwalk.config.model import Config
from perfwalk.model import Status
from perfwalk.report.html import (
    STYLE,
    esc,
    link,
    page,
    quirk_legend,
    status_cell,
    status_legend,
    table,
)
from perfwalk.report.summaries import MetricKey, SeriesTable, series_table
from perfwalk.store import Store
from perfwalk.store.records import CheckoutRow, SeriesRow


def publish(store: Store, config: Config | None, out: Path) -> Path:
    """Write the whole site under ``out``; returns the index page."""
    out.mkdir(parents=True, exist_ok=True)
    _write(out / "style.css", STYLE)
    every = store.list_series()
    tables = {s.id: series_table(store, config, s) for s in every}
    _write(out / "index.html", _index(every, tables))
    for series in every:
        folder = out / f"series-{series.id}"
        folder.mkdir(exist_ok=True)
        _write(out / f"series-{series.id}.html", _series_page(config, tables[series.id]))
        for row in tables[series.id].checkouts:
            _write(folder / f"checkout-{row.idx}.html", _checkout_page(store, series, row))
            _write(folder / f"commits-{row.idx}.html", _commits_page(store, series, row))
        for log_id in _log_ids(store, tables[series.id]):
            _write_log(store, folder, log_id)
    return out / "index.html"


def _write(path: Path, text: str) -> None:
    """Write atomically: a reader never sees half a page."""
    tmp = path.with_name(path.name + ".new")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _index(every: Sequence[SeriesRow], tables: dict[int, SeriesTable]) -> str:
    tests = sorted({t for tbl in tables.values() for (t, _idx) in tbl.statuses})
    header = [
        '<th class="name">series</th>',
        "<th>host</th>",
        "<th>state</th>",
        "<th>first</th>",
        "<th>last</th>",
        "<th>steps</th>",
        "<th>repetitions</th>",
    ]
    header += [f"<th>{esc(t)}</th>" for t in tests]
    rows = []
    for s in every:
        tbl = tables[s.id]
        first = tbl.checkouts[0] if tbl.checkouts else None
        last = tbl.checkouts[-1] if tbl.checkouts else None
        cores = s.fingerprint.get("cores", "?")
        row = [
            f'<td class="name">{link(f"series-{s.id}.html", f"{s.id}: {s.name}")}</td>',
            f"<td>{esc(s.host)}/{esc(cores)}</td>",
            f"<td>{esc(s.state)}</td>",
            f"<td>{esc(f'{first.date:%Y-%m-%d}' if first else '-')}</td>",
            f"<td>{esc(f'{last.date:%Y-%m-%d}' if last else '-')}</td>",
            f"<td>{len(tbl.checkouts)}/{esc(s.step)}</td>",
            f"<td>{s.repetitions}/{esc(s.between)}</td>",
        ]
        for test in tests:
            found = [st for (t, _i), st in tbl.statuses.items() if t == test]
            worst = Status.worst(found) if found else None
            row.append(status_cell(worst, f"series-{s.id}.html#{test}" if worst else None))
        rows.append(row)
    body = table(header, rows) if rows else "<p>No series yet: run <code>perfwalk run</code>.</p>"
    return page("perfwalk: all series", body + status_legend())


def _number(value: float) -> str:
    return f"{value:.4g}"


def _series_page(config: Config | None, tbl: SeriesTable) -> str:
    s = tbl.series
    base = f"series-{s.id}"
    commit_url = config.project.commit_url if config is not None else ""
    head = ['<th class="name">checkout</th>'] + [
        f"<th>{link(f'{base}/checkout-{c.idx}.html', f'{c.date:%Y-%m-%d %H:%M}')}</th>"
        for c in tbl.checkouts
    ]
    rows = [
        ['<td class="name">commit</td>']
        + [f"<td>{_commit_link(c.sha, commit_url)}</td>" for c in tbl.checkouts],
        ['<td class="name">build</td>']
        + [
            status_cell(
                c.build_status,
                f"{base}/log-{c.build_log_id}.html" if c.build_log_id else None,
                f"{c.build_seconds:.1f} s" if c.build_seconds is not None else "",
            )
            for c in tbl.checkouts
        ],
        ['<td class="name">commits</td>']
        + [
            f"<td>{link(f'{base}/commits-{c.idx}.html', f'commits/{c.commit_count}')}</td>"
            for c in tbl.checkouts
        ],
        ['<td class="name">quirks</td>']
        + [f'<td class="quirk">{esc(",".join(c.quirks))}</td>' for c in tbl.checkouts],
        ['<td class="name">repetitions</td>']
        + [f"<td>{s.repetitions}/{esc(s.between)}</td>" for c in tbl.checkouts],
    ]
    for test in sorted({m.test for m in tbl.metrics} | {t for (t, _i) in tbl.statuses}):
        rows.append(
            [f'<th class="name" id="{esc(test)}">{esc(test)}</th>']
            + [
                status_cell(tbl.statuses.get((test, c.idx)), f"{base}/checkout-{c.idx}.html")
                for c in tbl.checkouts
            ]
        )
        rows.extend(_metric_row(tbl, m) for m in tbl.metrics if m.test == test)
    legend = quirk_legend([(q.letter, f"{q.at_date:%Y-%m-%d %H:%M}", q.comment) for q in s.quirks])
    body = (
        f"<p>{link('index.html', 'all series')} · from {esc(s.from_spec or 'the first commit')}"
        f" to {esc(s.to_spec)} by {esc(s.step)} · host {esc(s.host)} · {esc(s.state)}</p>\n"
        + table(head, rows)
        + legend
        + status_legend()
    )
    return page(f"series {s.id}: {s.name}", body)


def _metric_row(tbl: SeriesTable, metric: MetricKey) -> list[str]:
    cells = [
        f'<td class="name">{esc(metric.name)} [{esc(metric.unit)}] '
        f"({esc(metric.direction.value)} is better)</td>"
    ]
    for c in tbl.checkouts:
        cell = tbl.cells.get((metric, c.idx))
        if cell is None:
            cells.append("<td></td>")
            continue
        tip = (
            f"n={cell.n} mean={_number(cell.mean)} min={_number(cell.min)} "
            f"max={_number(cell.max)} sd={_number(cell.sd)} relative={cell.rsd:.2%}"
        )
        css = ' class="unstable"' if cell.unstable else ""
        cells.append(f'<td{css} title="{esc(tip)}"><em>{esc(_number(cell.summary))}</em></td>')
    return cells


def _commit_link(sha: str, template: str) -> str:
    if template:
        return link(template.replace("{commit}", sha), sha[:10], title=sha)
    return f'<code title="{esc(sha)}">{esc(sha[:10])}</code>'


def _checkout_page(store: Store, series: SeriesRow, row: CheckoutRow) -> str:
    reps = store.repetitions(row.id)
    head = ['<th class="name">test / value</th>'] + [f"<th>{r.idx:03d}</th>" for r in reps]
    head += ["<th>unit</th>"]
    keys: dict[tuple[str, str], str] = {}
    for rep in reps:
        for result in rep.results:
            keys.setdefault((result.test, ""), "")
            for v in result.values:
                keys.setdefault((result.test, v.name), v.unit)
    rows = []
    for (test, name), unit in keys.items():
        cells = [f'<td class="name">{esc(test if not name else "  " + name)}</td>']
        for rep in reps:
            found = next((r for r in rep.results if r.test == test), None)
            if found is None:
                cells.append("<td></td>")
            elif not name:
                cells.append(
                    status_cell(found.status, f"log-{found.stdout_log_id}.html", found.message)
                )
            else:
                value = next((v.value for v in found.values if v.name == name), None)
                cells.append(f"<td>{'' if value is None else esc(_number(value))}</td>")
        cells.append(f"<td>{esc(unit)}</td>")
        rows.append(cells)
    build = link(f"log-{row.build_log_id}.html", "build log") if row.build_log_id else "no build"
    fp = "".join(
        f'<tr><td class="name">{esc(k)}</td><td class="name">{esc(v)}</td></tr>'
        for k, v in sorted(series.fingerprint.items())
    )
    quirk_runs = "".join(
        f"<li>{esc(q.letter)}: {link(f'log-{q.log_id}.html', q.status.name)}</li>"
        for q in row.quirk_runs
    )
    body = (
        f"<p>{link(f'../series-{series.id}.html', f'series {series.id}')} · commit "
        f"<code>{esc(row.sha)}</code> · {esc(f'{row.date:%Y-%m-%d %H:%M}')} · {build}"
        f" · {link(f'commits-{row.idx}.html', f'{row.commit_count} commits since previous')}</p>"
        + (f"<h2>Quirks applied</h2><ul>{quirk_runs}</ul>" if quirk_runs else "")
        + table(head, rows)
        + f"<h2>Host</h2><table>{fp}</table>"
    )
    return page(f"checkout {row.idx} of series {series.id}", body, css="../style.css")


def _commits_page(store: Store, series: SeriesRow, row: CheckoutRow) -> str:
    commits = store.commits_since(row.id)
    items = []
    for c in reversed(commits):
        files = "".join(f"<li><code>{esc(f)}</code></li>" for f in c.files)
        items.append(
            f"<h3><code>{esc(c.id[:12])}</code> {esc(c.subject)}</h3>"
            f"<p>{esc(f'{c.date:%Y-%m-%d %H:%M %z}')} · {esc(c.author)}</p>"
            f"<pre>{esc(c.body)}</pre><ul>{files}</ul>"
        )
    body = (
        f"<p>{link(f'../series-{series.id}.html', f'series {series.id}')} · "
        f"{len(commits)} commits up to checkout {row.idx}</p>" + "\n".join(items)
    )
    return page(f"commits up to checkout {row.idx}", body, css="../style.css")


def _log_ids(store: Store, tbl: SeriesTable) -> set[int]:
    ids = {c.build_log_id for c in tbl.checkouts if c.build_log_id}
    for c in tbl.checkouts:
        ids.update(q.log_id for q in c.quirk_runs)
        for rep in store.repetitions(c.id):
            if rep.between_log_id:
                ids.add(rep.between_log_id)
            for result in rep.results:
                ids.update((result.stdout_log_id, result.stderr_log_id))
    return ids


def _write_log(store: Store, folder: Path, log_id: int) -> None:
    log = store.log(log_id)
    (folder / f"log-{log_id}.txt").write_bytes(log.data)
    lines = log.text().splitlines()
    numbered = "\n".join(
        f'<span id="L{n}"><a href="#L{n}">{n:>5}</a>  {esc(line)}</span>'
        for n, line in enumerate(lines, 1)
    )
    note = f"<p>{log.total} bytes produced; head and tail kept.</p>" if log.truncated else ""
    body = f"<p>{link(f'log-{log_id}.txt', 'download')}</p>{note}<pre>{numbered}</pre>"
    _write(folder / f"log-{log_id}.html", page(f"log {log_id}", body, css="../style.css"))
