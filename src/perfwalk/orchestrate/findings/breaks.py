"""Breaks as changes: the builds broken and tests newly failing of the walks
(:mod:`perfwalk.analysis.breaks` finds them in the stored statuses), and the regress
suite's tests newly failing on a host (:func:`perfwalk.regress.history.newly_failing`:
twice in a row after a pass, not flaky before, over the host's runs that record their
commit: the checkouts of its regress series,
:mod:`perfwalk.orchestrate.checkout.regress_checkouts`), each a change of its own kind
with its commit range, listed, drilled, notified and triaged like a speed change. A
status is noise-free: a break is confirmed as found, and its drill bisects on the
status (:attr:`perfwalk.drill.DrillState.exact`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from perfwalk.analysis.breaks import (
    BUILD,
    BUILD_TEST,
    STATUS,
    TEST,
    CheckoutStatuses,
    find_breaks,
)
from perfwalk.change_ids import change_id, names_change
from perfwalk.model import Commit, Status
from perfwalk.orchestrate.findings.change_events import CheckoutRef, checkout_ref
from perfwalk.regress.grid import host_grids
from perfwalk.regress.history import newly_failing
from perfwalk.store import Store
from perfwalk.store.records import CheckoutRow, SeriesRow
from perfwalk.store.regress import REGRESS_KIND

#: the series whose breaks are looked for: walks (a drill's or a try's series is
#: answered elsewhere; a variant's build is the walk's or its own patch's)
_KINDS = frozenset({"walk"})


@dataclass(frozen=True)
class BreakEvent:
    """A build broken (``kind`` build) or a test newly failing (``kind`` test) in a
    series: passing at ``before``, failing at ``after``, with the commits between
    (after ``before``, up to ``after``). ``suite`` says whose test: a walk's, or the
    regress suite's (its series is a host's regress runs, each checkout a run)."""

    series_id: int
    series_name: str
    kind: str
    test: str
    before: CheckoutRef
    after: CheckoutRef
    commits: tuple[Commit, ...]
    passed: Status
    failed: Status
    suite: str = "walk"  # or "regress"
    host: str = ""  # the host of its series
    #: a break is the walk's own (a variant's series is not looked at)
    variant: None = None
    variant_of: None = None

    @property
    def id(self) -> str:
        return change_id(self.series_id, self.after.idx, self.after.sha, digits=None)

    def named(self, text: str) -> bool:
        return names_change(text, self.series_id, self.after.idx, self.after.sha)

    @property
    def drilled(self) -> tuple[str, str]:
        """The test and value its drill names."""
        return (self.test if self.kind == TEST else BUILD_TEST), STATUS

    def said(self) -> str:
        """ "build broken: PASS → NOEXIST", "test check newly failing: PASS → NOEXIT",
        "regress test check newly failing on lab-amd64: PASS → NOEXIT"."""
        what = "build broken" if self.kind == BUILD else f"test {self.test} newly failing"
        if self.suite == REGRESS_KIND:
            what = f"regress {what} on {self.host}"
        return f"{what}: {self.passed.name} → {self.failed.name}"


def series_breaks(store: Store, series: Iterable[SeriesRow]) -> list[BreakEvent]:
    """The breaks of the walks and of the regress series among ``series``, by series, in
    checkout order (a regress series': by first failing run)."""
    found: list[BreakEvent] = []
    for s in series:
        if s.kind == REGRESS_KIND:
            found.extend(regress_breaks(store, s))
        if s.kind not in _KINDS:
            continue
        rows = store.checkouts(s.id)
        tests = store.test_statuses(s.id)
        at = {row.idx: row for row in rows}
        line = [CheckoutStatuses(r.idx, r.build_status, tests.get(r.idx, {})) for r in rows]
        for b in find_breaks(line):
            before, after = at[b.before_idx], at[b.after_idx]
            found.append(
                BreakEvent(
                    series_id=s.id,
                    series_name=s.name,
                    kind=b.kind,
                    test=b.test,
                    before=checkout_ref(before),
                    after=checkout_ref(after),
                    commits=tuple(
                        commit
                        for r in rows
                        if b.before_idx < r.idx <= b.after_idx
                        for commit in store.commits_since(r.id)
                    ),
                    passed=b.before,
                    failed=b.after,
                    host=s.host,
                )
            )
    return found


def regress_breaks(store: Store, series: SeriesRow) -> list[BreakEvent]:
    """The regress tests newly failing on the host of a regress ``series``, in the order
    of their first failing run, over the host's runs that are checkouts of it."""
    checkouts = {row.idx: row for row in store.checkouts(series.id)}
    rows = store.regress.matrix(series.host)
    runs = [m for m in rows.runs if m.run.id in checkouts]  # newest first
    names = {test.id: test.name for test in rows.tests}
    grid = host_grids((m.run.id, series.host, m.statuses) for m in runs).get(series.host)
    if grid is None:
        return []
    line = [checkouts[run_id] for run_id in grid.run_ids]  # newest first
    found = []
    for test_id, history in grid.rows.items():
        for broke in newly_failing(history):
            before, after = line[broke.last_passing], line[broke.first_failing]
            found.append(
                BreakEvent(
                    series_id=series.id,
                    series_name=series.name,
                    kind=TEST,
                    test=names[test_id],
                    before=checkout_ref(before),
                    after=checkout_ref(after),
                    commits=_commits(store, line[broke.first_failing : broke.last_passing]),
                    passed=Status(history[broke.last_passing]),
                    failed=Status(history[broke.first_failing]),
                    suite=REGRESS_KIND,
                    host=series.host,
                )
            )
    return sorted(found, key=lambda b: (b.after.date, b.after.idx, b.test))


def _commits(store: Store, newest_first: list[CheckoutRow]) -> tuple[Commit, ...]:
    """The commits since the previous checkout of each of these, oldest first."""
    return tuple(c for row in reversed(newest_first) for c in store.commits_since(row.id))
