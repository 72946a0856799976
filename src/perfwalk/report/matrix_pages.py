"""The regress matrix's HTML pages: a host's (or every host's) matrix, the log page,
a run's page and the commits between two runs. Every text from a run is escaped."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from perfwalk.model import Commit, Status
from perfwalk.quantities import format_share
from perfwalk.regress.history import pass_rate
from perfwalk.report.html import esc, link, page, status_legend, table
from perfwalk.report.matrix_data import Failing, MatrixTest
from perfwalk.report.matrix_paths import (
    ASSETS,
    INDEX,
    LOG_PAGE,
    TESTS_DATA,
    host_data,
    host_page,
    href,
    log_link,
    run_page,
)
from perfwalk.report.times import SiteTimes
from perfwalk.store.regress import MatrixRun, RegressRunRow
from perfwalk.untrusted import commit_address

#: a result neither PASS (1) nor absent (0) in a run's column of statuses
_NOT_PASS = re.compile(b"[\\x02-\\x0b]")
_NAMES = {int(status): status.name for status in Status}


def _assets(at: str, scripts: Iterable[str]) -> str:
    tags = [f'<link rel="stylesheet" href="{esc(href(at, ASSETS["matrix.css"]))}">']
    tags += [f'<script src="{esc(href(at, path))}" defer></script>' for path in scripts]
    return "\n".join(tags) + "\n"


def _crumbs(at: str) -> list[tuple[str, str]]:
    return [] if at == INDEX else [(INDEX, "regress matrix")]


def matrix_html(
    at: str,
    hosts: Sequence[str],
    failing: Sequence[Failing],
    tests: Sequence[MatrixTest],
    times: SiteTimes,
) -> str:
    one = at != INDEX
    scripts = [ASSETS["matrix.js"], TESTS_DATA, *(host_data(h) for h in hosts)]
    others = " · ".join(link(href(at, host_page(h)), h) for h in hosts) if not one else ""
    grid = (
        '<div id="pw-matrix"><div class="pw-filters"></div>'
        '<div class="pw-scroll"><div class="pw-inner"><div class="pw-view"></div></div></div>'
        "</div>\n"
        "<noscript><p>The matrix is drawn by a script; the tests failing now are listed "
        "below.</p></noscript>\n"
    )
    if not hosts:
        empty = "<p>No regress runs yet: run <code>perfwalk regress</code> or import results.</p>"
        return _page(at, "regress matrix: all hosts", empty + "\n" + status_legend())
    body = (
        _assets(at, scripts)
        + (f"<p>hosts: {others}</p>\n" if others else "")
        + grid
        + _failing_table(at, failing, tests, times, with_host=not one)
        + status_legend()
    )
    title = f"regress matrix: {hosts[0]}" if one else "regress matrix: all hosts"
    return _page(at, title, body, times)


def _page(at: str, title: str, body: str, times: SiteTimes | None = None) -> str:
    """A page of the matrix; ``times`` when it shows times (their zone is said)."""
    crumbs = _crumbs(at)
    return page(at, title, body, crumbs=crumbs, times=times)


def _failing_table(
    at: str,
    failing: Sequence[Failing],
    tests: Sequence[MatrixTest],
    times: SiteTimes,
    *,
    with_host: bool,
) -> str:
    if not failing:
        return "<h2>Failing now</h2>\n<p>Nothing: every test's newest result passes.</p>\n"
    header = ['<th class="name">test</th>']
    header += ["<th>host</th>"] if with_host else []
    header += [
        "<th>status</th>",
        '<th class="name">message</th>',
        "<th>failing since</th>",
        "<th>last passed</th>",
        "<th>commits</th>",
        "<th>flaky</th>",
    ]
    rows = []
    for f in failing:
        test = tests[f.test]
        name = link(test.link, test.name) if test.link else esc(test.name)
        first_run = f.first.id
        row = [f'<td class="name">{name}</td>']
        if with_host:
            row.append(f'<td class="name">{link(href(at, host_page(f.host)), f.host)}</td>')
        row += [
            f'<td class="{f.status.name}">'
            f"{link(href(at, log_link(f.newest_run, test.id)), f.status.name)}</td>",
            f'<td class="name">{esc(f.message)}</td>',
            f"<td>{link(href(at, run_page(first_run)), times.minute(f.first.started_at))}</td>",
            "<td>"
            + (
                link(href(at, run_page(f.last_passing.id)), times.day(f.last_passing.started_at))
                if f.last_passing
                else "never"
            )
            + "</td>",
            "<td>"
            + (link(href(at, f.commits[0]), f"{f.commits[1]} commits") if f.commits else "")
            + "</td>",
            f"<td>{'flaky' if f.flaky else ''}</td>",
        ]
        rows.append(row)
    return f"<h2>Failing now ({len(failing)})</h2>\n" + table(header, rows, css="failing") + "\n"


def log_html() -> str:
    body = (
        _assets(LOG_PAGE, [ASSETS["log.js"], TESTS_DATA])
        + '<div id="pw-log"><noscript>The log is read by a script.</noscript></div>\n'
    )
    return _page(LOG_PAGE, "log", body)


def run_html(
    matrix_run: MatrixRun, by_id: Mapping[int, MatrixTest], commit_url: str, times: SiteTimes
) -> str:
    run = matrix_run.run
    at = run_page(run.id)
    rate = pass_rate(run.counts)
    commit = "unknown"
    if run.commit:
        url = commit_address(commit_url, run.commit) if commit_url else ""
        commit = link(url, run.commit) if url else f"<code>{esc(run.commit)}</code>"
    facts = [
        ("host", link(href(at, host_page(run.host)), run.host)),
        ("started", esc(times.second(run.started_at))),
        ("finished", esc(times.second(run.finished_at))),
        ("what", esc(f"{run.origin}: {run.label}")),
        ("architecture", esc(run.arch or "unknown")),
        ("OS", esc(run.os or "unknown")),
        ("kernel", esc(run.kernel or "unknown")),
        ("build", esc(run.build)),
        ("commit", commit),
        ("pass rate", esc("-" if rate is None else format_share(rate))),
        (
            "results",
            " ".join(
                f'<span class="{s.name}">{s.name} {run.counts[s]}</span>'
                for s in Status
                if run.counts.get(s)
            ),
        ),
    ]
    if run.log_id is not None:
        facts.append(("output", link(href(at, log_link(run.id, "run")), "the run's own output")))
    info = "\n".join(
        f'<tr><th class="name">{name}</th><td class="name">{value}</td></tr>'
        for name, value in facts
    )
    to_log = esc(href(at, log_link(run.id, "")))  # + the test id
    statuses = matrix_run.statuses
    bad = sorted(
        (-statuses[test_id], by_id[test_id].name, test_id)
        for found in _NOT_PASS.finditer(statuses)
        if (test_id := found.start()) in by_id
    )
    messages = matrix_run.messages
    rows = [
        [
            f'<td class="name">{esc(name)}</td>',
            f'<td class="{_NAMES[-severity]}"><a href="{to_log}{test_id}">'
            f"{_NAMES[-severity]}</a></td>",
            f'<td class="name">{esc(messages.get(test_id, ""))}</td>',
        ]
        for severity, name, test_id in bad
    ]
    header = ['<th class="name">test</th>', "<th>status</th>", '<th class="name">message</th>']
    results = table(header, rows) if rows else "<p>Every test passed.</p>"
    system = "\n".join(
        f'<tr><th class="name">{esc(key)}</th><td class="name">{esc(value)}</td></tr>'
        for key, value in sorted(run.fingerprint.items())
    )
    body = (
        _assets(at, [])
        + f"<table>\n{info}\n</table>\n"
        + f"<h2>Results not PASS ({len(rows)})</h2>\n{results}\n"
        + '<h2 id="system">System</h2>\n'
        + (f"<table>\n{system}\n</table>\n" if system else "<p>Not recorded (imported).</p>\n")
    )
    title = f"regress run {run.id}: {run.host}, {times.minute(run.started_at)}"
    return _page(at, title, body, times)


def commits_html(
    at: str,
    last: RegressRunRow,
    first: RegressRunRow,
    commits: Sequence[Commit],
    commit_url: str,
    *,
    times: SiteTimes,
) -> str:
    items = []
    for c in reversed(commits):  # newest first
        url = commit_address(commit_url, c.id) if commit_url else ""
        title = link(url, c.id[:12], title=c.id) if url else f"<code>{esc(c.id[:12])}</code>"
        files = "".join(f"<li>{esc(f)}</li>" for f in c.files)
        body = f"<pre>{esc(c.body)}</pre>" if c.body.strip() else ""
        items.append(
            f'<article class="commit"><h3>{title} {esc(c.subject)}</h3>'
            f"<p>{esc(times.minute(c.date))} · {esc(c.author)}</p>"
            f'{body}<ul class="files">{files}</ul></article>'
        )
    text = (
        f"<p><strong>{len(commits)}</strong> commits after "
        + link(href(at, run_page(last.id)), f"run {last.id}")
        + f" (last passing, <code>{esc((last.commit or '')[:12])}</code>) up to "
        + link(href(at, run_page(first.id)), f"run {first.id}")
        + f" (first failing, <code>{esc((first.commit or '')[:12])}</code>)</p>\n"
        + "\n".join(items)
    )
    title = f"commits {(last.commit or '')[:12]}..{(first.commit or '')[:12]}"
    return _page(at, title, text, times)
