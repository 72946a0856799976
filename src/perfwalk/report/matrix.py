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
when the machine has the cores (two forked processes take half each, see
:mod:`perfwalk.report.forked`).

The pages are in :mod:`~perfwalk.report.matrix_pages`, the data the script draws in
:mod:`~perfwalk.report.matrix_data`, the paths in :mod:`~perfwalk.report.matrix_paths`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from perfwalk.model import Commit, Status
from perfwalk.regress.grid import HostGrid, host_grids
from perfwalk.regress.history import decayed_severity, failing_since, is_flaky
from perfwalk.report import layout, matrix_logs
from perfwalk.report.files import SiteFolder, SiteWriter
from perfwalk.report.forked import can_fork, in_forks
from perfwalk.report.matrix_data import Failing, host_script_data, tests, tests_data
from perfwalk.report.matrix_logs import (
    PACK_NAME,
    Packer,
    Parts,
    RunFacts,
    index_script,
    script_call,
)
from perfwalk.report.matrix_pages import commits_html, log_html, matrix_html, run_html
from perfwalk.report.matrix_paths import (
    ASSETS,
    DIR,
    INDEX,
    LOG_PAGE,
    PUBLISHED,
    TESTS_DATA,
    commits_page,
    host_data,
    host_page,
    run_page,
)
from perfwalk.report.times import UTC_TIMES, SiteTimes
from perfwalk.store import Store
from perfwalk.store.regress import MatrixRun, RegressRunRow

#: runs whose logs are read from the store in one go
BATCH = 200
#: a publish with fewer runs to write does not start a second process
SHARED_FROM = 400

#: the commits after the first id up to the second, oldest first; None when unknown
CommitLookup = Callable[[str, str], Sequence[Commit] | None]


@dataclass(frozen=True)
class MatrixOptions:
    """``source_url``: ``{path}``/``{commit}`` template of a test's source;
    ``commit_url``: ``{commit}`` template of a commit; ``full``: rewrite every file;
    ``times``: the site's time zone, the pages' times written in it."""

    source_url: str = ""
    commit_url: str = ""
    full: bool = False
    times: SiteTimes = UTC_TIMES


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
class _Written:
    """What writing a share of the runs did: where each run's logs are, and the files."""

    parts: Parts
    files: int
    largest: tuple[str, int]


def publish_matrix(
    store: Store,
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
        store: Store,
        out: Path,
        options: MatrixOptions,
        commits: CommitLookup | None,
    ) -> None:
        self.started = time.perf_counter()
        self.store = store
        self.options = options
        self.commits = commits
        self.files = SiteWriter(out)
        self.rows = store.regress.matrix()
        newest_commit = next((m.run.commit for m in self.rows.runs if m.run.commit), None)
        self.tests = tests(self.rows, options.source_url, newest_commit)
        self.index_of = {test.id: index for index, test in enumerate(self.tests)}
        self.by_test_id = {test.id: test for test in self.tests}
        self.by_id = {m.run.id: m for m in self.rows.runs}
        self.ranges: dict[tuple[str, str], tuple[str, int] | None] = {}

    def publish(self) -> MatrixReport:
        files, tests = self.files, self.tests
        files.site.remove_stale_temporaries(DIR)  # what a killed publish left
        written = self.publish_runs()  # first: the matrix pages link to pages that exist
        grids = host_grids((m.run.id, m.run.host, m.statuses) for m in self.rows.runs)
        for name, asset in [*ASSETS.items(), ("style.css", layout.STYLE)]:
            # the site's style too: the statuses' colours are defined there only
            static = resources.files("perfwalk.report").joinpath("static", name)
            files.write(asset, static.read_bytes())
        files.write(TESTS_DATA, script_call("perfwalkMatrix.tests", tests_data(tests)))
        everywhere: list[Failing] = []
        for grid in grids.values():
            runs = [self.by_id[run_id].run for run_id in grid.run_ids]
            failing = self.failing(grid, runs)
            everywhere += failing
            data = host_script_data(
                grid, runs, failing, self.index_of, self.by_id, times=self.options.times
            )
            files.write(host_data(grid.host), script_call("perfwalkMatrix.host", data))
            at = host_page(grid.host)
            files.write(at, matrix_html(at, [grid.host], failing, tests, self.options.times))
        everywhere.sort(key=lambda f: (-f.score, tests[f.test].name, f.host))
        files.write(INDEX, matrix_html(INDEX, list(grids), everywhere, tests, self.options.times))
        files.write(LOG_PAGE, log_html())
        weight = sum(files.sizes.get(path, 0) for path in [INDEX, TESTS_DATA, *ASSETS.values()])
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
                    page_text = commits_html(
                        path, last, first, found, self.options.commit_url, times=self.options.times
                    )
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
            (
                m
                for m in self.rows.runs
                if published.get(m.run.id, ("", []))[0] != self.stamp(m.run)
            ),
            key=lambda m: m.run.id,
        )
        if any(m.run.id in published for m in todo):  # another store's runs: start afresh
            published = {}
            todo = sorted(self.rows.runs, key=lambda m: m.run.id)
        written = self.write_runs(todo)
        for run_id, parts in written.items():
            published[run_id] = (self.stamp(self.by_id[run_id].run), parts)
        published = {run_id: found for run_id, found in published.items() if run_id in self.by_id}
        where = {run_id: parts for run_id, (_stamp_text, parts) in published.items()}
        files.write(matrix_logs.INDEX, index_script(where))
        files.write(PUBLISHED, _published_json(published))
        _remove_stale_logs(files.site, {name for parts in where.values() for name, _test in parts})
        return len(written)

    def stamp(self, run: RegressRunRow) -> str:
        """What tells a run of this store from another run with the same id, and a
        page written in another time zone."""
        return f"{run.host}\n{run.started_at.isoformat()}\n{self.options.times.zone}"

    def write_runs(self, todo: Sequence[MatrixRun]) -> Parts:
        """Write the pages and logs of ``todo`` (ascending ids): two forked processes
        take half each when there are many and a second core to run one."""
        if len(todo) < SHARED_FROM or not self.can_fork():
            return self.write_share(todo, self.files)
        half = _halves(todo)
        shares = (todo[:half], todo[half:])
        done = in_forks(
            lambda number: self.write_alone(shares[number]),
            len(shares),
            len(shares),
            what="the matrix's runs",
            start=self.store.forget_inherited_connections,
        )
        parts: Parts = {}
        for written in done:
            self.files.add(written.files, written.largest)
            parts.update(written.parts)
        return parts

    def can_fork(self) -> bool:
        """Forking is safe and worth it (:func:`perfwalk.report.forked.can_fork`) with
        a store that a forked process can open again."""
        return can_fork() and self.store.opens_own_connections()

    def write_alone(self, share: Sequence[MatrixRun]) -> _Written:
        """In a forked process: write ``share``, and say what was written."""
        files = SiteWriter(self.files.out)
        parts = self.write_share(share, files)
        return _Written(parts, files.written, files.largest)

    def write_share(self, share: Sequence[MatrixRun], files: SiteWriter) -> Parts:
        """Write the run pages and the log packs of ``share`` (ascending ids)."""
        packer = Packer(files.write)
        names, commit_url, times = self.by_test_id, self.options.commit_url, self.options.times
        for start in range(0, len(share), BATCH):
            batch = share[start : start + BATCH]
            stored = self.store.regress.stored_logs([m.run.id for m in batch])
            packer.add(stored, [(m.run.id, RunFacts(m.statuses, m.messages)) for m in batch])
            for matrix_run in batch:
                files.write(
                    run_page(matrix_run.run.id), run_html(matrix_run, names, commit_url, times)
                )
        packer.flush()
        return packer.parts


def _halves(todo: Sequence[MatrixRun]) -> int:
    """Where to cut ``todo`` so that both shares hold about as many results."""
    sizes = [len(m.statuses) - m.statuses.count(0) for m in todo]
    total, running = sum(sizes), 0
    for position, size in enumerate(sizes):
        running += size
        if 2 * running >= total:
            return position + 1
    return len(todo)


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
