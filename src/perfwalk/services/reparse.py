"""``perfwalk reparse``: the stored outputs of a series read again by its tests'
parsers as the configuration gives them now (a regex fixed after the walk, an option
added), without running anything again.

Each result is parsed as the walk parsed it (:mod:`perfwalk.orchestrate.phases.reparsing`:
its status follows; a result whose output was cut is not parsed again), by the parser
of its test, or of the quirk that replaces it where the checkout says the quirk holds.
A dry run by default: it says per checkout what would change (the values before and
after, the metrics gained and lost). Applied, the new values replace the old ones in
one transaction, and the old ones are kept (:mod:`perfwalk.store.reparses`): an undo
puts back what the newest reparse not undone replaced. What the parsers lost is found
again over the series (the checkout pages' marks). The analysis, the pages and
``perfwalk changes`` read the new values; a publish writes the pages of the checkouts
whose values changed again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from perfwalk.config.model import Config, QuirkConfig, TestConfig
from perfwalk.errors import UsageError
from perfwalk.letters import quirk_index
from perfwalk.model import Status
from perfwalk.orchestrate.phases.reparsing import (
    Reparsed,
    ResultParsers,
    StoredLogs,
    reparse_result,
)
from perfwalk.orchestrate.walk.parsing import ParseWorker
from perfwalk.orchestrate.walk.walk_parsers import record_parser_losses
from perfwalk.parsers import Parser, get_parser
from perfwalk.store import CheckoutRow, SeriesRow, Store, StoredValue
from perfwalk.store.leases import user_at_machine
from perfwalk.store.reparses import ReparseRow, Replacement

#: checkouts read (with their logs) at a time: a long series is never in memory whole
CHUNK = 25


@dataclass(frozen=True)
class MetricChange:
    """The PASS values of a metric at a checkout before and after."""

    test: str
    name: str
    unit: str
    before: tuple[float, ...]
    after: tuple[float, ...]

    @property
    def gained(self) -> bool:
        return not self.before and bool(self.after)

    @property
    def lost(self) -> bool:
        return bool(self.before) and not self.after


@dataclass(frozen=True)
class StatusChange:
    """``count`` results of ``test`` at a checkout go from ``before`` to ``after``."""

    test: str
    before: Status
    after: Status
    count: int


@dataclass(frozen=True)
class CheckoutChange:
    """What a reparse changes at one checkout, and the results it does not parse again."""

    idx: int
    sha: str
    results: int  # results that change
    statuses: tuple[StatusChange, ...]
    metrics: tuple[MetricChange, ...]
    refused: tuple[str, ...]  # "repetition 1, latency: its output was cut …"


@dataclass(frozen=True)
class ReparseOutcome:
    """What a reparse (or the undo of one) changes, or changed when ``applied``."""

    series: SeriesRow
    checkouts: tuple[CheckoutChange, ...]  # those that change or have a result refused
    looked: int  # checkouts read
    results: int  # results read
    changed: int  # results that change
    refused: int  # results not parsed again
    skipped: tuple[str, ...] = ()  # tests of the series the configuration has not
    applied: int | None = None  # the id of the reparse (or undo) stored
    undoes: ReparseRow | None = None  # an undo: the reparse it undoes
    why: str = ""  # the parsers and configuration used

    @property
    def changed_checkouts(self) -> int:
        return sum(1 for c in self.checkouts if c.results)


@dataclass(frozen=True)
class Scope:
    """What a reparse reads: the checkouts ``first`` to ``last`` (indexes, both
    included; None: from the first, to the last) and the test ``test`` (None: all)."""

    first: int | None = None
    last: int | None = None
    test: str | None = None


def reparse_series(
    store: Store,
    config: Config,
    series_id: int,
    scope: Scope = Scope(),
    *,
    apply: bool = False,
    who: str | None = None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> ReparseOutcome:
    """Parse the stored outputs of series ``series_id`` (within ``scope``) again with
    the parsers of ``config``; ``apply``: replace the values that change (the old ones
    kept), else say only what would change."""
    series = store.series(series_id)
    if series.kind == "push":
        raise UsageError(
            f"series {series_id} holds pushed values: nothing of it was parsed here",
            hint="reparse a series a walk, drill or try measured",
        )
    if apply:
        _not_walked(store, series)
    tests = {test.name: test for test in config.tests}
    ran = {t for statuses in store.test_statuses(series_id).values() for t in statuses}
    if scope.test is not None and scope.test not in tests:
        raise UsageError(
            f"--test {scope.test}: no such test in {config.path}",
            hint="its tests: " + (", ".join(sorted(tests)) or "none"),
        )
    if scope.test is not None and scope.test not in ran:
        raise UsageError(
            f"--test {scope.test}: series {series_id} ran no such test",
            hint="its tests: " + (", ".join(sorted(ran)) or "none yet"),
        )
    wanted = [scope.test] if scope.test is not None else sorted(ran & set(tests))
    skipped = tuple(
        f"test {name} of series {series_id} is not in {config.path}: its values are kept"
        for name in sorted(ran - set(tests))
        if scope.test is None
    )
    rows = _in_scope(store.checkouts(series_id), scope, series_id)
    reparsed: list[Reparsed] = []
    summary: list[CheckoutChange] = []
    results = 0
    with ParseWorker() as worker:
        choose = _Parsers(config, worker)
        for start in range(0, len(rows), CHUNK):
            chunk = rows[start : start + CHUNK]
            stored = store.reparses.results(series_id, [r.idx for r in chunk], wanted)
            ids = {r.result.stdout_log_id for r in stored} | {
                r.result.stderr_log_id for r in stored
            }
            ids |= {i for r in stored for logs in r.role_logs.values() for i in logs}
            logs = StoredLogs(*store.reparses.logs(ids))
            found = [
                reparse_result(r, choose.of(tests[r.result.test], r.quirks), logs) for r in stored
            ]
            results += len(found)
            reparsed += [r for r in found if r.changed]
            summary += _checkouts(chunk, found)
    named = ", ".join(f"{name} ({tests[name].parser})" for name in wanted) or "none"
    why = (
        f"the parsers of test{'s' if len(wanted) != 1 else ''} {named} in {config.path} "
        f"(configuration {config.hash[:12]})"
    )
    applied = None
    if apply and reparsed:
        changes = [Replacement(r.stored.result.id, r.status, r.message, r.values) for r in reparsed]
        applied = store.reparses.replace(
            series_id, changes, why=why, who=who or user_at_machine(), at=clock()
        )
        record_parser_losses(store, series_id)
    return ReparseOutcome(
        series=series,
        checkouts=tuple(c for c in summary if c.results or c.refused),
        looked=len(rows),
        results=results,
        changed=len(reparsed),
        refused=sum(len(c.refused) for c in summary),
        skipped=skipped,
        applied=applied,
        why=why,
    )


def undo_reparse(
    store: Store,
    series_id: int,
    *,
    apply: bool = False,
    who: str | None = None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> ReparseOutcome:
    """Put back what the newest reparse of series ``series_id`` not undone yet
    replaced; ``apply``: do it (what it replaces kept in turn), else say only what
    would change."""
    series = store.series(series_id)
    last = store.reparses.last_applied(series_id)
    if last is None:
        raise UsageError(
            f"series {series_id} has no reparse to undo",
            hint=f"`perfwalk reparse {series_id}` says what a reparse would change",
        )
    if apply:
        _not_walked(store, series)
    old = {r.result_id: r for r in store.reparses.replaced(last.id)}
    current = [r for r in store.reparses.results(series_id) if r.result.id in old]
    back = [Reparsed(r, *_as_was(old[r.result.id])) for r in current]
    at = {r.checkout_idx for r in current}
    rows = [row for row in store.checkouts(series_id) if row.idx in at]
    why = f"the undo of reparse {last.id} ({last.at:%Y-%m-%d %H:%M} UTC by {last.who})"
    applied = None
    if apply:
        changes = [Replacement(r.stored.result.id, r.status, r.message, r.values) for r in back]
        applied = store.reparses.replace(
            series_id, changes, why=why, who=who or user_at_machine(), at=clock(), undoes=last.id
        )
        record_parser_losses(store, series_id)
    summary = _checkouts(rows, back)
    return ReparseOutcome(
        series=series,
        checkouts=tuple(summary),
        looked=len(rows),
        results=len(back),
        changed=sum(1 for r in back if r.changed),
        refused=0,
        applied=applied,
        undoes=last,
        why=why,
    )


def _not_walked(store: Store, series: SeriesRow) -> None:
    """Refuse to replace values of a series a walk is measuring."""
    if series.state != "running":
        return
    walker = store.walkers.of([series.id]).get(series.id)
    if walker is not None and walker.liveness() != "gone":
        raise UsageError(
            f"series {series.id} is being walked ({walker.describe()}): its values are not "
            "replaced under it",
            hint=f"reparse it when the walk ends (`perfwalk status {series.id}`)",
        )


def _as_was(replaced: Replacement) -> tuple[Status, str, tuple[StoredValue, ...]]:
    """What a result was before a reparse: its status, message and values."""
    return replaced.status, replaced.message, replaced.values


def _in_scope(rows: Sequence[CheckoutRow], scope: Scope, series_id: int) -> list[CheckoutRow]:
    found = [
        row
        for row in rows
        if (scope.first is None or row.idx >= scope.first)
        and (scope.last is None or row.idx <= scope.last)
    ]
    if not found:
        have = f"{rows[0].idx} to {rows[-1].idx}" if rows else "none yet"
        raise UsageError(
            f"--checkouts: series {series_id} has no checkout there",
            hint=f"its checkouts: {have}",
        )
    return found


@dataclass
class _Parsers:
    """The parsers of each test, and of the quirks that replace them, made once each,
    bounded by the test's ``parse_timeout`` in ``worker``."""

    config: Config
    worker: ParseWorker
    made: dict[tuple[str, str], ResultParsers] = field(default_factory=dict)

    def of(self, test: TestConfig, letters: Sequence[str]) -> ResultParsers:
        """The parsers of ``test`` at a checkout where the quirks ``letters`` hold: as a
        walk chooses them, the parser of the last quirk that replaces something of the
        test when it replaces the parser (or its options), else the test's own."""
        applied, key, letter = test, f"test.{test.name}.parser", ""
        for found in reversed(letters):
            quirk = self._quirk(found)
            replaced = quirk.tests.get(test.name) if quirk is not None else None
            if replaced is None:
                continue
            if replaced.parser or replaced.parser_options:
                applied = replaced.applied(test)
                key, letter = f"quirk[{quirk_index(found)}].test.{test.name}.parser", found
            break
        made = self.made.get((test.name, letter))
        if made is None:
            made = self.made[(test.name, letter)] = ResultParsers(
                test=applied,
                main=self._bounded(test, applied.parser, applied.parser_options, key),
                roles={
                    role: self._bounded(
                        test, phases.parser, phases.parser_options, f"test.{test.name}.roles.{role}"
                    )
                    for role, phases in test.roles.items()
                    if phases.parser
                },
            )
        return made

    def _quirk(self, letter: str) -> QuirkConfig | None:
        try:
            index = quirk_index(letter)
        except ValueError:
            return None
        return self.config.quirks[index] if index < len(self.config.quirks) else None

    def _bounded(
        self, test: TestConfig, name: str, options: Mapping[str, object], key: str
    ) -> Parser:
        return self.worker.bounded(
            get_parser(name, options, key=key),
            limit=test.parse_timeout,
            label=f"parser {name!r} of test {test.name}",
            setting=f"test.{test.name}.parse_timeout",
        )


def _checkouts(rows: Sequence[CheckoutRow], found: Iterable[Reparsed]) -> list[CheckoutChange]:
    """Per checkout of ``rows``, what ``found`` (its results parsed again) changes."""
    by_idx: dict[int, list[Reparsed]] = {}
    for r in found:
        by_idx.setdefault(r.stored.checkout_idx, []).append(r)
    changes = []
    for row in rows:
        mine = by_idx.get(row.idx, [])
        statuses: dict[tuple[str, Status, Status], int] = {}
        for r in mine:
            old = r.stored.result
            if r.status is not old.status:
                key = (old.test, old.status, r.status)
                statuses[key] = statuses.get(key, 0) + 1
        changes.append(
            CheckoutChange(
                idx=row.idx,
                sha=row.sha,
                results=sum(1 for r in mine if r.changed),
                statuses=tuple(StatusChange(*key, n) for key, n in statuses.items()),
                metrics=tuple(_metrics(mine)),
                refused=tuple(
                    f"repetition {r.stored.repetition_idx}, {r.stored.result.test}: {r.refused}"
                    for r in mine
                    if r.refused
                ),
            )
        )
    return changes


def _metrics(found: Sequence[Reparsed]) -> Iterable[MetricChange]:
    """The metrics whose PASS values at a checkout change."""
    before: dict[tuple[str, str, str], list[float]] = {}
    after: dict[tuple[str, str, str], list[float]] = {}
    for r in found:
        old = r.stored.result
        if old.status is Status.PASS:
            for v in old.values:
                before.setdefault((old.test, v.name, v.unit), []).append(v.value)
        if r.status is Status.PASS:
            for v in r.values:
                after.setdefault((old.test, v.name, v.unit), []).append(v.value)
    for key in sorted(before.keys() | after.keys()):
        was, now = tuple(before.get(key, ())), tuple(after.get(key, ()))
        if sorted(map(repr, was)) != sorted(map(repr, now)):
            yield MetricChange(*key, was, now)
