"""Breaks as changes: the builds broken and tests newly failing of the walks
(:mod:`perfwalk.analysis.breaks` finds them in the stored statuses), each a change of its
own kind with its commit range, listed, drilled, notified and triaged like a speed
change. A status is noise-free: a break is confirmed as found, and its drill bisects on
the status (:attr:`perfwalk.drill.DrillState.exact`)."""

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
from perfwalk.orchestrate.findings.change_events import CheckoutRef
from perfwalk.store import Store
from perfwalk.store.records import SeriesRow

#: the series whose breaks are looked for: walks (a drill's or a try's series is
#: answered elsewhere; a variant's build is the walk's or its own patch's)
_KINDS = frozenset({"walk"})


@dataclass(frozen=True)
class BreakEvent:
    """A build broken (``kind`` build) or a test newly failing (``kind`` test) in a
    series: passing at ``before``, failing at ``after``, with the commits between
    (after ``before``, up to ``after``)."""

    series_id: int
    series_name: str
    kind: str
    test: str
    before: CheckoutRef
    after: CheckoutRef
    commits: tuple[Commit, ...]
    passed: Status
    failed: Status
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
        """ "build broken: PASS → NOEXIST", "test check newly failing: PASS → NOEXIT"."""
        what = "build broken" if self.kind == BUILD else f"test {self.test} newly failing"
        return f"{what}: {self.passed.name} → {self.failed.name}"


def series_breaks(store: Store, series: Iterable[SeriesRow]) -> list[BreakEvent]:
    """The breaks of the walks among ``series``, by series, in checkout order."""
    found: list[BreakEvent] = []
    for s in series:
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
                    before=CheckoutRef(before.idx, before.sha, before.date),
                    after=CheckoutRef(after.idx, after.sha, after.date),
                    commits=tuple(
                        commit
                        for r in rows
                        if b.before_idx < r.idx <= b.after_idx
                        for commit in store.commits_since(r.id)
                    ),
                    passed=b.before,
                    failed=b.after,
                )
            )
    return found
