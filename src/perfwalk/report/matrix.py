"""The regress matrix pages: which tests broke, since when, on which machines.

Under ``regress/`` of the site:

- ``index.html``: every host; ``host-<host>.html``: one host. Columns are runs,
  newest first, under a header that stays in view (pass rate, date → the run,
  build, architecture → its system, host → its page); rows are tests (→ their
  source in the web viewer, when ``regress.source_url`` is set) sorted by
  decayed severity; each cell is a status (→ its log, its message as tooltip).
  The grid is drawn by ``matrix.js`` from ``data/tests.js`` and one
  ``data/host-<host>.js`` per host (a character per cell), and only the rows and
  columns in view are in the page: a year of runs on eight hosts opens at once.
  Below it, in plain HTML, the tests failing now with their first failing run,
  the commits since their last passing run, and a flaky mark.
- ``runs/<id>.html``: a run (date, host, architecture, OS, kernel, build,
  commit, counts) with its system (``#system``) and the results not PASS.
- ``log.html#run=<id>&test=<test id>``: one log, which ``log.js`` finds through
  ``logs/index.js`` in a pack of logs (``logs/<run>-<test>.js``, see
  :mod:`perfwalk.report.matrix_logs`): the store's zlib streams, never decompressed
  here, some 150 files for a year of eight hosts.
- ``commits/<a>-<b>.html``: the commits between a last passing and a first
  failing run.

A run's pages and logs never change once written: a publish writes those of new
runs only (``full`` rewrites everything; ``logs/published.json`` lists what is
written), plus the matrix pages and data. Many runs are written by two processes
when the machine has the cores (a forked child takes half of them).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import posixpath
import re
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from perfwalk.errors import PerfwalkError
from perfwalk.model import Commit, Status
from perfwalk.regress.grid import HostGrid, host_grids
from perfwalk.regress.history import (
    FailingSince,
    decayed_severity,
    failing_since,
    is_flaky,
    pass_rate,
)
from perfwalk.report import layout, matrix_logs
from perfwalk.report.files import SiteFolder
from perfwalk.report.html import esc, link, page, status_legend, table
from perfwalk.report.matrix_logs import (
    PACK_NAME,
    STATUS_LETTERS,
    Packer,
    Parts,
    RunFacts,
    index_script,
    script_call,
)
from perfwalk.store.regress import MatrixRows, MatrixRun, RegressRunRow, RegressStore

DIR = layout.MATRIX_DIR
INDEX = layout.MATRIX_INDEX
LOG_PAGE = f"{DIR}/log.html"
TESTS_DATA = f"{DIR}/data/tests.js"
_ASSETS = {
    "matrix.js": f"{DIR}/matrix.js",
    "log.js": f"{DIR}/log.js",
    "matrix.css": f"{DIR}/matrix.css",
}
#: what the site holds of each run: {run id: {"stamp": …, "parts": …}} (not a page)
PUBLISHED = f"{DIR}/logs/published.json"
#: runs whose logs are read from the store in one go
BATCH = 200
#: a publish with fewer runs to write does not start a second process
SHARED_FROM = 400
_PREFIX = f"{DIR}/"
#: a result neither PASS (1) nor absent (0) in a run's column of statuses
_NOT_PASS = re.compile(b"[\\x02-\\x0b]")
_NAMES = {int(status): status.name for status in Status}
_RUNS_DIR = f"{DIR}/runs"
_SAFE = re.compile(r"[^A-Za-z0-9._-]")
_REPEATED = re.compile(r"([.a-k])\1{2,}")

#: the commits after the first id up to the second, oldest first; None when unknown
CommitLookup = Callable[[str, str], Sequence[Commit] | None]


def encode_row(history: bytes) -> str:
    """A test's history as the data files hold it: a letter per run (``.`` no result,
    ``a`` PASS … ``k`` NOEXIST), a run of three or more alike written once with its
    length (``a120``); ``matrix.js`` expands it."""
    letters = history.translate(STATUS_LETTERS).decode("ascii")
    return _REPEATED.sub(lambda m: f"{m.group(1)}{len(m.group(0))}", letters)


def host_key(host: str) -> str:
    """A file-name-safe key of a host name, distinct for distinct names."""
    safe = _SAFE.sub("_", host)[:40]
    if safe == host and safe not in ("", ".", ".."):
        return safe
    return f"{safe}-{hashlib.sha1(host.encode(), usedforsecurity=False).hexdigest()[:8]}"


def host_page(host: str) -> str:
    return f"{DIR}/host-{host_key(host)}.html"


def host_data(host: str) -> str:
    return f"{DIR}/data/host-{host_key(host)}.js"


def run_page(run_id: int) -> str:
    return f"{DIR}/runs/{run_id}.html"


def log_link(run_id: int, test: int | str) -> str:
    return f"{LOG_PAGE}#run={run_id}&test={test}"


def commits_page(after: str, until: str) -> str:
    return f"{DIR}/commits/{after[:12]}-{until[:12]}.html"


def href(at: str, target: str) -> str:
    """The link from page ``at`` to ``target``, both site paths (``#…`` kept)."""
    if target.startswith("#"):
        return target
    here = at.rpartition("/")[0]
    if here == DIR and target.startswith(_PREFIX):  # the common cases, quickly
        return target[len(_PREFIX) :]
    if here == _RUNS_DIR and target.startswith(_PREFIX) and "/" not in target[len(_PREFIX) :]:
        return "../" + target[len(_PREFIX) :]
    path, hash_, fragment = target.partition("#")
    return posixpath.relpath(path, here or ".") + hash_ + fragment


@dataclass(frozen=True)
class MatrixOptions:
    """``source_url``: ``{path}``/``{commit}`` template of a test's source;
    ``commit_url``: ``{commit}`` template of a commit; ``full``: rewrite every file."""

    source_url: str = ""
    commit_url: str = ""
    full: bool = False


@dataclass(frozen=True)
class MatrixReport:
    index: Path
    hosts: int
    runs: int
    tests: int
    runs_written: int  # runs whose pages and logs this publish wrote
    files_written: int
    largest: tuple[str, int]  # the largest file written: site path, bytes
    index_weight: int  # bytes the all-hosts page loads (page, scripts, data, style)
    seconds: float


@dataclass(frozen=True)
class Failing:
    """A test failing now on a host: where it began, and what changed before it."""

    host: str
    test: int  # index in the sorted tests
    status: Status
    message: str
    newest_run: int  # the run of the newest result
    score: float
    since: FailingSince
    first: RegressRunRow
    last_passing: RegressRunRow | None
    commits: tuple[str, int] | None  # (site path of the commit page, number of commits)
    flaky: bool


@dataclass(frozen=True)
class _Test:
    id: int
    name: str
    link: str


class _Files:
    """Writes the site's files and keeps count: each replaced atomically, never through
    a link (see :mod:`perfwalk.report.files`)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.site = SiteFolder(out)
        self.written = 0
        self.largest = ("", 0)
        self.sizes: dict[str, int] = {}

    def write(self, path: str, data: str | bytes) -> None:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        self.site.write(path, raw)
        self.count(path, len(raw))

    def count(self, path: str, size: int) -> None:
        self.written += 1
        self.sizes[path] = size
        if size > self.largest[1]:
            self.largest = (path, size)


@dataclass(frozen=True)
class _Written:
    """What writing a share of the runs did: where each run's logs are, and the files."""

    parts: Parts
    files: int
    largest: tuple[str, int]


def publish_matrix(
    store: RegressStore,
    out: Path,
    options: MatrixOptions = MatrixOptions(),
    commits: CommitLookup | None = None,
) -> MatrixReport:
    """Write (or bring up to date) the matrix pages under ``out/regress``."""
    return _Publisher(store, out, options, commits).publish()


class _Publisher:
    """One publish: the matrix as read once from the store, and the files written."""

    def __init__(
        self,
        store: RegressStore,
        out: Path,
        options: MatrixOptions,
        commits: CommitLookup | None,
    ) -> None:
        self.started = time.perf_counter()
        self.store = store
        self.options = options
        self.commits = commits
        self.files = _Files(out)
        self.rows = store.matrix()
        newest_commit = next((m.run.commit for m in self.rows.runs if m.run.commit), None)
        self.tests = _tests(self.rows, options.source_url, newest_commit)
        self.index_of = {test.id: index for index, test in enumerate(self.tests)}
        self.by_test_id = {test.id: test for test in self.tests}
        self.by_id = {m.run.id: m for m in self.rows.runs}
        self.ranges: dict[tuple[str, str], tuple[str, int] | None] = {}

    def publish(self) -> MatrixReport:
        files, tests = self.files, self.tests
        files.site.remove_stale_temporaries(layout.MATRIX_DIR)  # what a killed publish left
        written = self.publish_runs()  # first: the matrix pages link to pages that exist
        grids = host_grids((m.run.id, m.run.host, m.statuses) for m in self.rows.runs)
        for name, asset in _ASSETS.items():
            static = resources.files("perfwalk.report").joinpath("static", name)
            files.write(asset, static.read_bytes())
        files.write(TESTS_DATA, script_call("perfwalkMatrix.tests", _tests_data(tests)))
        everywhere: list[Failing] = []
        for grid in grids.values():
            runs = [self.by_id[run_id].run for run_id in grid.run_ids]
            failing = self.failing(grid, runs)
            everywhere += failing
            data = self.host_data(grid, runs, failing)
            files.write(host_data(grid.host), script_call("perfwalkMatrix.host", data))
            at = host_page(grid.host)
            files.write(at, _matrix_page(at, [grid.host], failing, tests))
        everywhere.sort(key=lambda f: (-f.score, tests[f.test].name, f.host))
        files.write(INDEX, _matrix_page(INDEX, list(grids), everywhere, tests))
        files.write(LOG_PAGE, _log_shell())
        weight = sum(files.sizes.get(path, 0) for path in [INDEX, TESTS_DATA, *_ASSETS.values()])
        weight += sum(files.sizes.get(host_data(host), 0) for host in grids)
        return MatrixReport(
            index=files.out / INDEX,
            hosts=len(grids),
            runs=len(self.rows.runs),
            tests=len(tests),
            runs_written=written,
            files_written=files.written,
            largest=files.largest,
            index_weight=weight,
            seconds=time.perf_counter() - self.started,
        )

    def host_data(
        self, grid: HostGrid, runs: Sequence[RegressRunRow], failing: Sequence[Failing]
    ) -> dict[str, object]:
        index_of = self.index_of
        rows = {
            str(index_of[test_id]): encode_row(row)
            for test_id, row in grid.rows.items()
            if test_id in index_of
        }
        messages: dict[str, int] = {}
        cells: dict[str, list[int]] = {}
        for position, run_id in enumerate(grid.run_ids):
            for test_id, text in self.by_id[run_id].messages.items():
                if test_id in index_of:
                    number = messages.setdefault(text, len(messages))
                    cells.setdefault(str(index_of[test_id]), []).extend((position, number))
        since = {
            str(f.test): [
                f.since.first_failing,
                -1 if f.since.last_passing is None else f.since.last_passing,
                href(INDEX, f.commits[0]) if f.commits else "",
                f.commits[1] if f.commits else 0,
            ]
            for f in failing
        }
        flaky = sorted(
            index_of[test_id]
            for test_id, row in grid.rows.items()
            if test_id in index_of and is_flaky(row)
        )
        return {
            "host": grid.host,
            "page": href(INDEX, host_page(grid.host)),
            "runs": [_run_tuple(run) for run in runs],
            "rows": rows,
            "messages": list(messages),
            "cells": cells,
            "since": since,
            "flaky": flaky,
        }

    def failing(self, grid: HostGrid, runs: Sequence[RegressRunRow]) -> list[Failing]:
        """The tests whose newest result on this host fails, worst first."""
        found = []
        for test_id, row in grid.rows.items():
            since = failing_since(row)
            if since is None or test_id not in self.index_of:
                continue
            newest = next(position for position, severity in enumerate(row) if severity)
            first = runs[since.first_failing]
            last = None if since.last_passing is None else runs[since.last_passing]
            found.append(
                Failing(
                    host=grid.host,
                    test=self.index_of[test_id],
                    status=Status(row[newest]),
                    message=self.by_id[grid.run_ids[newest]].messages.get(test_id, ""),
                    newest_run=grid.run_ids[newest],
                    score=decayed_severity(row),
                    since=since,
                    first=first,
                    last_passing=last,
                    commits=self.commit_range(last, first),
                    flaky=is_flaky(row),
                )
            )
        found.sort(key=lambda f: (-f.score, self.tests[f.test].name))
        return found

    def commit_range(
        self, last: RegressRunRow | None, first: RegressRunRow
    ) -> tuple[str, int] | None:
        """The commit page between two runs (written once) and its number of commits."""
        if last is None or not last.commit or not first.commit or self.commits is None:
            return None
        key = (last.commit, first.commit)
        if key not in self.ranges:
            found = self.commits(*key)
            if found is None:
                self.ranges[key] = None
            else:
                path = commits_page(*key)
                if self.options.full or not self.files.site.exists(path):
                    page_text = _commits_page(path, last, first, found, self.options.commit_url)
                    self.files.write(path, page_text)
                self.ranges[key] = (path, len(found))
        return self.ranges[key]

    # -- the runs' pages and logs ------------------------------------------------------

    def publish_runs(self) -> int:
        """Write the pages and logs of the runs the site lacks, then the index of the
        packs and the list of runs written; how many runs were written."""
        files = self.files
        published = {} if self.options.full else _read_published(files.site)
        todo = sorted(
            (m for m in self.rows.runs if published.get(m.run.id, ("", []))[0] != _stamp(m.run)),
            key=lambda m: m.run.id,
        )
        if any(m.run.id in published for m in todo):  # another store's runs: start afresh
            published = {}
            todo = sorted(self.rows.runs, key=lambda m: m.run.id)
        written = self.write_runs(todo)
        for run_id, parts in written.items():
            published[run_id] = (_stamp(self.by_id[run_id].run), parts)
        published = {run_id: found for run_id, found in published.items() if run_id in self.by_id}
        where = {run_id: parts for run_id, (_stamp_text, parts) in published.items()}
        files.write(matrix_logs.INDEX, index_script(where))
        files.write(PUBLISHED, _published_json(published))
        _remove_stale_logs(files.site, {name for parts in where.values() for name, _test in parts})
        return len(written)

    def write_runs(self, todo: Sequence[MatrixRun]) -> Parts:
        """Write the pages and logs of ``todo`` (ascending ids): a forked child takes
        the second half when there are many and a second core to run it."""
        if len(todo) < SHARED_FROM or not self.can_fork():
            found = self.write_share(todo, self.files)
            return found.parts
        half = _halves(todo)
        context = multiprocessing.get_context("fork")
        receiver, sender = context.Pipe(duplex=False)
        child = context.Process(
            target=self.child, args=(todo[half:], sender), name="perfwalk-matrix-runs"
        )
        child.start()
        sender.close()
        try:
            mine = self.write_share(todo[:half], self.files)
            theirs = _received(receiver, child)
        finally:
            receiver.close()
            if child.is_alive():
                child.terminate()
            child.join()
        self.files.written += theirs.files
        if theirs.largest[1] > self.files.largest[1]:
            self.files.largest = theirs.largest
        return {**mine.parts, **theirs.parts}

    def can_fork(self) -> bool:
        """Forking is safe with one thread (no lock held elsewhere) and a store that the
        child can open again, and worth it with a second core."""
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
        return (
            cores > 1
            and threading.active_count() == 1
            and "fork" in multiprocessing.get_all_start_methods()
            and self.store.opens_own_connections()
        )

    def child(self, share: Sequence[MatrixRun], sender: Any) -> None:
        """The forked child: its share of the runs, and what it did (or its error) sent
        back to the parent."""
        self.store.forget_inherited_connections()
        try:
            files = _Files(self.files.out)
            found = self.write_share(share, files)
            sender.send(("done", _Written(found.parts, files.written, files.largest)))
        except BaseException as error:  # everything goes to the parent
            try:
                sender.send(("error", error))
            except Exception:  # an error that does not pickle
                sender.send(("crash", traceback.format_exc()))
        finally:
            sender.close()

    def write_share(self, share: Sequence[MatrixRun], files: _Files) -> _Written:
        """Write the run pages and the log packs of ``share`` (ascending ids)."""
        packer = Packer(files.write)
        names, commit_url = self.by_test_id, self.options.commit_url
        for start in range(0, len(share), BATCH):
            batch = share[start : start + BATCH]
            stored = self.store.stored_logs([m.run.id for m in batch])
            packer.add(stored, [(m.run.id, RunFacts(m.statuses, m.messages)) for m in batch])
            for matrix_run in batch:
                files.write(run_page(matrix_run.run.id), _run_page(matrix_run, names, commit_url))
        packer.flush()
        return _Written(packer.parts, files.written, files.largest)


def _halves(todo: Sequence[MatrixRun]) -> int:
    """Where to cut ``todo`` so that both shares hold about as many results."""
    sizes = [len(m.statuses) - m.statuses.count(0) for m in todo]
    total, running = sum(sizes), 0
    for position, size in enumerate(sizes):
        running += size
        if 2 * running >= total:
            return position + 1
    return len(todo)


def _received(receiver: Any, child: multiprocessing.process.BaseProcess) -> _Written:
    """What the child sent: its work, or its error raised here."""
    try:
        kind, value = receiver.recv()
    except EOFError:
        child.join()
        raise PerfwalkError(
            f"the process writing half of the matrix's runs ended (exit status "
            f"{child.exitcode}) before it was done",
            hint="publish again; if it keeps failing, publish with --full",
        ) from None
    if kind == "done":
        assert isinstance(value, _Written)
        return value
    if kind == "error":
        raise value
    raise RuntimeError(f"the process writing half of the matrix's runs failed:\n{value}")


def _stamp(run: RegressRunRow) -> str:
    """What tells a run of this store from another run with the same id."""
    return f"{run.host}\n{run.started_at.isoformat()}"


def _read_published(site: SiteFolder) -> dict[int, tuple[str, list[tuple[str, int]]]]:
    """The runs a previous publish wrote (nothing, when it cannot be read)."""
    try:
        data = json.loads(site.read(PUBLISHED) or b"{}")
        return {
            int(run): (
                str(found["stamp"]),
                [(str(name), int(test)) for name, test in found["parts"]],
            )
            for run, found in data.items()
        }
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}


def _published_json(published: Mapping[int, tuple[str, Sequence[tuple[str, int]]]]) -> str:
    return json.dumps(
        {str(run): {"stamp": stamp, "parts": parts} for run, (stamp, parts) in published.items()},
        separators=(",", ":"),
        allow_nan=False,
    )


def _remove_stale_logs(site: SiteFolder, packs: set[str]) -> None:
    """Remove the packs no run refers to any more, and the log folders of older
    publishes (``logs/<run id>/``)."""
    folder = f"{DIR}/logs"
    for name, is_dir in site.entries(folder):
        found = PACK_NAME.fullmatch(name)
        if found and not is_dir and name[: -len(".js")] not in packs:
            site.remove(f"{folder}/{name}")
        elif name.isdigit() and is_dir:
            site.remove_tree(f"{folder}/{name}")


# -- data ---------------------------------------------------------------------------


def _tests(rows: MatrixRows, template: str, commit: str | None) -> list[_Test]:
    found = [_Test(t.id, t.name, _source_link(template, t.source, commit)) for t in rows.tests]
    return sorted(found, key=lambda t: t.name)


def _source_link(template: str, path: str | None, commit: str | None) -> str:
    if not template or not path:
        return ""
    return template.replace("{commit}", quote(commit or "HEAD", safe="")).replace(
        "{path}", quote(path, safe="/")
    )


def _tests_data(tests: Sequence[_Test]) -> dict[str, object]:
    return {
        "names": [t.name for t in tests],
        "ids": [t.id for t in tests],
        "links": [t.link for t in tests],
    }


def _run_tuple(run: RegressRunRow) -> list[object]:
    rate = _counted(run.counts)
    system = f"{run.os} · {run.kernel}".strip(" ·")
    return [
        run.id,
        run.started_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        run.started_at.strftime("%Y-%m-%d"),
        run.arch or "?",
        run.build if run.build != "unknown" else "",
        (run.commit or "")[:12],
        rate[0],
        rate[1],
        system,
        run.label,
        run.started_at.strftime("%m-%d"),
    ]


def _counted(counts: Mapping[Status, int]) -> tuple[int, int]:
    """(PASS, all − SKIP − XFAIL) of a run."""
    total = sum(counts.values()) - counts.get(Status.SKIP, 0) - counts.get(Status.XFAIL, 0)
    return counts.get(Status.PASS, 0), total


def _assets(at: str, scripts: Iterable[str]) -> str:
    tags = [f'<link rel="stylesheet" href="{esc(href(at, _ASSETS["matrix.css"]))}">']
    tags += [f'<script src="{esc(href(at, path))}" defer></script>' for path in scripts]
    return "\n".join(tags) + "\n"


def _crumbs(at: str) -> list[tuple[str, str]]:
    return [] if at == INDEX else [(INDEX, "regress matrix")]


def _matrix_page(
    at: str, hosts: Sequence[str], failing: Sequence[Failing], tests: Sequence[_Test]
) -> str:
    one = at != INDEX
    scripts = [_ASSETS["matrix.js"], TESTS_DATA, *(host_data(h) for h in hosts)]
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
        + _failing_table(at, failing, tests, with_host=not one)
        + status_legend()
    )
    title = f"regress matrix: {hosts[0]}" if one else "regress matrix: all hosts"
    return _page(at, title, body)


def _page(at: str, title: str, body: str) -> str:
    crumbs = _crumbs(at)
    return page(at, title, body, crumbs=crumbs)


def _failing_table(
    at: str, failing: Sequence[Failing], tests: Sequence[_Test], *, with_host: bool
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
            f"<td>{link(href(at, run_page(first_run)), f'{f.first.started_at:%Y-%m-%d %H:%M}')}"
            "</td>",
            "<td>"
            + (
                link(href(at, run_page(f.last_passing.id)), f"{f.last_passing.started_at:%Y-%m-%d}")
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


def _log_shell() -> str:
    body = (
        _assets(LOG_PAGE, [_ASSETS["log.js"], TESTS_DATA])
        + '<div id="pw-log"><noscript>The log is read by a script.</noscript></div>\n'
    )
    return _page(LOG_PAGE, "log", body)


def _run_page(matrix_run: MatrixRun, by_id: Mapping[int, _Test], commit_url: str) -> str:
    run = matrix_run.run
    at = run_page(run.id)
    rate = pass_rate(run.counts)
    commit = "unknown"
    if run.commit:
        url = commit_url.replace("{commit}", run.commit) if commit_url else ""
        commit = link(url, run.commit) if url else f"<code>{esc(run.commit)}</code>"
    facts = [
        ("host", link(href(at, host_page(run.host)), run.host)),
        ("started", esc(f"{run.started_at:%Y-%m-%d %H:%M:%S} UTC")),
        ("finished", esc(f"{run.finished_at:%Y-%m-%d %H:%M:%S} UTC")),
        ("what", esc(f"{run.origin}: {run.label}")),
        ("architecture", esc(run.arch or "unknown")),
        ("OS", esc(run.os or "unknown")),
        ("kernel", esc(run.kernel or "unknown")),
        ("build", esc(run.build)),
        ("commit", commit),
        ("pass rate", esc("-" if rate is None else f"{rate:.1%}")),
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
    return _page(at, f"regress run {run.id}: {run.host}, {run.started_at:%Y-%m-%d %H:%M}", body)


def _commits_page(
    at: str,
    last: RegressRunRow,
    first: RegressRunRow,
    commits: Sequence[Commit],
    commit_url: str,
) -> str:
    items = []
    for c in reversed(commits):  # newest first
        url = commit_url.replace("{commit}", c.id) if commit_url else ""
        title = link(url, c.id[:12], title=c.id) if url else f"<code>{esc(c.id[:12])}</code>"
        files = "".join(f"<li>{esc(f)}</li>" for f in c.files)
        body = f"<pre>{esc(c.body)}</pre>" if c.body.strip() else ""
        items.append(
            f'<article class="commit"><h3>{title} {esc(c.subject)}</h3>'
            f"<p>{esc(f'{c.date:%Y-%m-%d %H:%M %z}')} · {esc(c.author)}</p>"
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
    return _page(at, f"commits {(last.commit or '')[:12]}..{(first.commit or '')[:12]}", text)
