"""The failures of a checkout as the site shows them: a build that did not pass, a
test whose status is not PASS. The plots draw each as a gap in the line and a
marker, the index counts them in a walk's worst status per test, and the checkout's
page shows why, before its tables: the first error line of the log and its last
lines (:mod:`perfwalk.log_excerpt`), computed here when the site is published (a
failure's logs are read, bounded; an ordinary checkout's never are).

Log text is untrusted: it stays text in the data files (pages.js and plot.js put it
into the page as text).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfwalk.errors import PerfwalkError
from perfwalk.log_excerpt import first_error_line, last_lines, matching_line
from perfwalk.model import Status
from perfwalk.report.collect import CheckoutData
from perfwalk.store import CheckoutRow, Store

#: the word of a failure that is the checkout's build, not a test
BUILD = "build"
#: the failures of one checkout whose logs are read (the build first, then the tests,
#: the most severe first); the others are listed without an excerpt
EXCERPTS = 4
#: from this status on, a test's logs are read for an excerpt (XPASS and worse, as
#: the regress matrix counts failing); a SKIP or XFAIL is marked, not explained
EXPLAINED = Status.XPASS


@dataclass(frozen=True)
class Failure:
    """A build that failed (``what`` is :data:`BUILD`) or a test that did not pass,
    with the first error line and the last lines of its log (empty when not read)."""

    what: str
    status: Status
    first_error: str = ""
    tail: tuple[str, ...] = ()
    log_id: int | None = None

    @property
    def is_build(self) -> bool:
        return self.what == BUILD

    def describe(self) -> str:
        """ "build failed (NOEXIST) — main.c:3: error: …", "checksum FAIL — …"."""
        said = (
            f"build failed ({self.status.name})"
            if self.is_build
            else f"{self.what} {self.status.name}"
        )
        return f"{said} — {self.first_error}" if self.first_error else said

    def as_data(self) -> dict[str, Any]:
        """What a checkout's data file carries of it (pages.js shows it as text)."""
        return {
            "what": self.what,
            "status": self.status.name,
            "line": self.first_error,
            "tail": list(self.tail),
            "log": self.log_id,
        }


def build_failed(row: CheckoutRow) -> bool:
    return row.build_status is not None and row.build_status is not Status.PASS


def has_failures(c: CheckoutData) -> bool:
    return build_failed(c.row) or any(s is not Status.PASS for s in c.statuses.values())


def failures_of(store: Store, c: CheckoutData) -> list[Failure]:
    """The failures of the checkout ``c``: its build's, then its tests' that did not
    pass (the most severe first, then by name); the first :data:`EXCERPTS` of them
    explained by their logs."""
    found: list[Failure] = []
    row = c.row
    if build_failed(row):
        assert row.build_status is not None
        found.append(_explained(store, BUILD, row.build_status, [row.build_log_id], ""))
    failed = sorted(
        ((test, status) for test, status in c.statuses.items() if status is not Status.PASS),
        key=lambda ts: (-ts[1], ts[0]),
    )
    results = _results(c.detail) if failed else []
    for test, status in failed:
        if len(found) >= EXCERPTS or status < EXPLAINED:
            found.append(Failure(test, status))
            continue
        result = next((r for r in results if r[2] == test and r[3] == status.name), None)
        if result is None:
            found.append(Failure(test, status))
            continue
        message = str(result[4] or "")
        found.append(_explained(store, test, status, [result[8], result[7]], message))
    return found


def _results(detail: str) -> list[list[Any]]:
    if not detail:
        return []
    results: list[list[Any]] = json.loads(detail).get("results", [])
    return results


def _explained(
    store: Store, what: str, status: Status, log_ids: Sequence[int | None], message: str
) -> Failure:
    """The failure with the first error line of its logs (``log_ids``: stderr before
    stdout; the first with an error line, else the first not empty) and their tail."""
    texts: list[tuple[int, str]] = []
    for log_id in log_ids:
        if log_id is None:
            continue
        try:
            text = store.log(log_id).text()
        except PerfwalkError:  # a log removed by retention: the failure stays
            continue
        if text.strip():
            texts.append((log_id, text))
    for log_id, text in texts:
        line = matching_line(text)
        if line:
            return Failure(what, status, line, last_lines(text), log_id)
    if texts:
        log_id, text = texts[0]
        return Failure(what, status, message or first_error_line(text), last_lines(text), log_id)
    return Failure(what, status, message)


# -- the worst status of a walk's tests, counted --------------------------------------


def status_counts(block: Sequence[CheckoutData]) -> tuple[dict[str, dict[str, int]], int]:
    """Per test, how many checkouts of ``block`` had each worst status (by severity,
    as text: the site's manifest is JSON); and how many checkouts did not build and
    ran no test (each a NOEXIST of every test of the walk: see :func:`walk_counts`)."""
    counts: dict[str, Counter[int]] = {}
    unbuilt = 0
    for c in block:
        if not c.statuses and build_failed(c.row):
            unbuilt += 1
        for test, status in c.statuses.items():
            counts.setdefault(test, Counter())[int(status)] += 1
    told = {
        test: {str(sev): n for sev, n in sorted(found.items())} for test, found in counts.items()
    }
    return told, unbuilt


def walk_counts(
    blocks: Sequence[tuple[Mapping[str, Mapping[str, int]], int]],
) -> dict[str, dict[Status, int]]:
    """Per test of a walk, how many of its checkouts had each worst status, from its
    blocks' :func:`status_counts`: a checkout that did not build counts as a NOEXIST
    of every test."""
    counts: dict[str, Counter[Status]] = {}
    unbuilt = 0
    for per_test, not_built in blocks:
        unbuilt += not_built
        for test, found in per_test.items():
            mine = counts.setdefault(test, Counter())
            for sev, n in found.items():
                mine[Status(int(sev))] += n
    for mine in counts.values():
        if unbuilt:
            mine[Status.NOEXIST] += unbuilt
    return {test: dict(found) for test, found in counts.items()}


def counted(counts: Mapping[Status, int]) -> str:
    """ "NOEXIST ×1 · PASS ×44": each status with its count, the most severe first."""
    return " · ".join(
        f"{status.name} ×{n}" for status, n in sorted(counts.items(), reverse=True) if n
    )


def plot_marks(
    block: Sequence[CheckoutData], failures: Mapping[int, Sequence[Failure]], test: str
) -> list[list[Any]]:
    """The failures the plot of ``test`` marks in ``block``: [position in the block,
    severity, what it says], one per checkout (its build's failure, else the test's)."""
    marks: list[list[Any]] = []
    for pos, c in enumerate(block):
        found = failures.get(c.row.idx, ())
        mine = next((f for f in found if f.is_build), None) or next(
            (f for f in found if f.what == test), None
        )
        if mine is not None:
            marks.append([pos, int(mine.status), mine.describe()])
    return marks
