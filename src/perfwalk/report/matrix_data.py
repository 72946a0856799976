"""What the regress matrix's script draws: the tests, and a host's runs and rows
(``data/tests.js``, ``data/host-<host>.js``), with the tests failing now."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from perfwalk.model import Status
from perfwalk.regress.grid import HostGrid
from perfwalk.regress.history import FailingSince, is_flaky
from perfwalk.report.matrix_logs import STATUS_LETTERS
from perfwalk.report.matrix_paths import INDEX, host_page, href
from perfwalk.report.times import SiteTimes
from perfwalk.store.regress import MatrixRows, MatrixRun, RegressRunRow

_REPEATED = re.compile(r"([.a-k])\1{2,}")


@dataclass(frozen=True)
class MatrixTest:
    """A test as the matrix shows it: its id, name and link to its source."""

    id: int
    name: str
    link: str


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


def encode_row(history: bytes) -> str:
    """A test's history as the data files hold it: a letter per run (``.`` no result,
    ``a`` PASS … ``k`` NOEXIST), a run of three or more alike written once with its
    length (``a120``); ``matrix.js`` expands it."""
    letters = history.translate(STATUS_LETTERS).decode("ascii")
    return _REPEATED.sub(lambda m: f"{m.group(1)}{len(m.group(0))}", letters)


def host_script_data(
    grid: HostGrid,
    runs: Sequence[RegressRunRow],
    failing: Sequence[Failing],
    index_of: Mapping[int, int],
    by_id: Mapping[int, MatrixRun],
    *,
    times: SiteTimes,
) -> dict[str, object]:
    """A host's data file: its runs (newest first), a row per test, the messages, the
    tests failing now; ``index_of`` gives a test id's place in the sorted tests,
    ``by_id`` the runs by id; the runs' times in the site's ``times``."""
    rows = {
        str(index_of[test_id]): encode_row(row)
        for test_id, row in grid.rows.items()
        if test_id in index_of
    }
    messages: dict[str, int] = {}
    cells: dict[str, list[int]] = {}
    for position, run_id in enumerate(grid.run_ids):
        for test_id, text in by_id[run_id].messages.items():
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
        "runs": [run_tuple(run, times) for run in runs],
        "rows": rows,
        "messages": list(messages),
        "cells": cells,
        "since": since,
        "flaky": flaky,
    }


def tests(rows: MatrixRows, template: str, commit: str | None) -> list[MatrixTest]:
    found = [MatrixTest(t.id, t.name, _source_link(template, t.source, commit)) for t in rows.tests]
    return sorted(found, key=lambda t: t.name)


def _source_link(template: str, path: str | None, commit: str | None) -> str:
    if not template or not path:
        return ""
    return template.replace("{commit}", quote(commit or "HEAD", safe="")).replace(
        "{path}", quote(path, safe="/")
    )


def tests_data(tests: Sequence[MatrixTest]) -> dict[str, object]:
    return {
        "names": [t.name for t in tests],
        "ids": [t.id for t in tests],
        "links": [t.link for t in tests],
    }


def run_tuple(run: RegressRunRow, times: SiteTimes) -> list[object]:
    """A run as ``matrix.js`` reads it: [id, start in UTC (to sort by), its day, arch,
    build, commit, passed, counted, system, label, its month and day, its start to the
    minute], the days and the minute in the site's ``times``."""
    rate = _counted(run.counts)
    system = f"{run.os} · {run.kernel}".strip(" ·")
    return [
        run.id,
        run.started_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        times.day(run.started_at),
        run.arch or "?",
        run.build if run.build != "unknown" else "",
        (run.commit or "")[:12],
        rate[0],
        rate[1],
        system,
        run.label,
        times.day(run.started_at)[5:],
        times.minute(run.started_at),
    ]


def _counted(counts: Mapping[Status, int]) -> tuple[int, int]:
    """(PASS, all − SKIP − XFAIL) of a run."""
    total = sum(counts.values()) - counts.get(Status.SKIP, 0) - counts.get(Status.XFAIL, 0)
    return counts.get(Status.PASS, 0), total
