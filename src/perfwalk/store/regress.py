"""The regress matrix in the result store: runs of functional suites, one status per test.

A run is written whole, results and logs with it, in ONE transaction: an import
that fails half-way, or a run killed before its end, stores nothing. With its
results a run keeps a summary of them (a byte per test id, the messages), so the
matrix reads each run's column as one row: two queries (runs, tests) whatever
the number of cells, and a year of nightly runs on eight hosts is more than a
million cells. The logs of many runs are read in bulk, as stored (zlib), for the
pages to decompress (:meth:`RegressRecords.stored_logs`).

The runs of a host that record their commit are also the checkouts of a series of kind
``regress``, one per project and host (:meth:`RegressRecords.series_of`), so that a
test failing after it passed is a change like a walk's: named, triaged and told by
that series and its commit range.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from operator import itemgetter
from types import MappingProxyType
from typing import Any, Literal

from sqlalchemy import Connection, bindparam, func, select

from perfwalk.errors import StoreError
from perfwalk.model import Log, Status
from perfwalk.store import logs, schema
from perfwalk.store.bulk import chunks, insert_or_keep, insert_returning_ids
from perfwalk.store.coltypes import safe_text
from perfwalk.store.connect import StorePart

_s = schema.series
_t = schema.regress_test
_r = schema.regress_run
_x = schema.regress_result
_log = schema.log

Build = Literal["stock", "custom", "unknown"]
BUILDS: tuple[Build, ...] = ("stock", "custom", "unknown")
#: Where a run's results came from: a run of the configured suite, or an imported format.
ORIGINS = ("run", "junit", "tap", "markers")
#: The kind of the series whose checkouts are a host's runs tied to commits.
REGRESS_KIND = "regress"


@dataclass(frozen=True)
class NewRegressResult:
    """One test's outcome, to be stored with its run."""

    test: str
    status: Status
    log: Log
    message: str = ""
    duration: float | None = None
    source: str | None = None


@dataclass(frozen=True)
class NewRegressRun:
    """A run of a suite on a host (or an imported results file) with all its results."""

    host: str
    started_at: datetime
    finished_at: datetime
    results: tuple[NewRegressResult, ...]
    arch: str = ""
    os: str = ""
    kernel: str = ""
    build: Build = "unknown"
    commit: str | None = None
    origin: str = "run"
    label: str = ""
    fingerprint: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    log: Log | None = None  # the runner's whole output, or the imported file


@dataclass(frozen=True)
class RegressRunRow:
    """A stored run, with how many results of each status it has."""

    id: int
    host: str
    started_at: datetime
    finished_at: datetime
    arch: str
    os: str
    kernel: str
    build: Build
    commit: str | None
    origin: str
    label: str
    fingerprint: Mapping[str, str]
    log_id: int | None
    counts: Mapping[Status, int]


@dataclass(frozen=True)
class RegressTestRow:
    id: int
    name: str
    source: str | None


@dataclass(frozen=True)
class RegressResultRow:
    """One result of a run, with its test's name."""

    test_id: int
    test: str
    status: Status
    message: str
    duration: float | None
    log_id: int


@dataclass(frozen=True)
class MatrixRun:
    """A run as the matrix needs it: the run, and its column of statuses.

    ``statuses[i]`` is the severity of the test with id ``i`` in this run (0: not
    run; the bytes end after the highest id it ran); ``messages`` maps test ids to
    the messages of the results that have one.
    """

    run: RegressRunRow
    statuses: bytes
    messages: Mapping[int, str]


@dataclass(frozen=True)
class StoredLog:
    """A log as the store keeps it: ``data`` is a zlib stream of ``Log.data``."""

    data: bytes
    total: int
    truncated: bool


@dataclass(frozen=True)
class StoredLogs:
    """The logs of some runs' results, as stored (zlib streams, not decompressed):
    ``data`` holds them run after run (ascending ids), each run's in test id order;
    ``counts`` says how many each run has. ``cut`` gives, per run and test id, the
    bytes produced of the logs truncated to their head and tail; ``runner`` each
    run's own output, when it has one."""

    data: Sequence[bytes]
    counts: Mapping[int, int]
    cut: Mapping[int, Mapping[int, int]]
    runner: Mapping[int, StoredLog]


@dataclass(frozen=True)
class MatrixRows:
    """Everything the matrix pages show: the runs (newest first) and the tests."""

    runs: list[MatrixRun]
    tests: list[RegressTestRow]


class RegressRecords(StorePart):
    """The regress runs of a store; get it from :attr:`perfwalk.store.Store.regress`."""

    # -- writing -------------------------------------------------------------------

    def add_run(self, new: NewRegressRun) -> int:
        """Store a run with all its results and logs in one transaction; return its id."""
        if new.build not in BUILDS:
            raise ValueError(f"build must be one of {BUILDS}, not {new.build!r}")
        new = _clean_names(new)
        names = [result.test for result in new.results]
        if len(set(names)) != len(names):
            twice = sorted({name for name in names if names.count(name) > 1})
            raise ValueError(f"test names repeat within the run: {twice[:3]}")
        secrets = self._db.log_secrets
        packed = [logs.pack(result.log, secrets) for result in new.results]
        run_log = logs.pack(new.log, secrets) if new.log is not None else None
        with self._write(f"store a regress run of host {new.host!r}") as conn:
            test_ids = self._test_ids(conn, new.results)
            log_ids = insert_returning_ids(conn, _log, packed)
            vector = bytearray(max(test_ids.values(), default=0) + 1)
            for result in new.results:
                vector[test_ids[result.test]] = int(result.status)
            messages = {str(test_ids[r.test]): r.message for r in new.results if r.message}
            run_id = int(
                conn.execute(
                    _r.insert()
                    .values(
                        host=new.host,
                        started_at=new.started_at,
                        finished_at=new.finished_at,
                        arch=new.arch,
                        os=new.os,
                        kernel=new.kernel,
                        build=new.build,
                        commit=new.commit,
                        origin=new.origin,
                        label=new.label,
                        fingerprint=dict(new.fingerprint),
                        log_id=(
                            insert_returning_ids(conn, _log, [run_log])[0] if run_log else None
                        ),
                        statuses=zlib.compress(bytes(vector)),
                        messages=messages,
                    )
                    .returning(_r.c.id)
                ).scalar_one()
            )
            if new.results:
                conn.execute(
                    _x.insert(),
                    [
                        {
                            "run_id": run_id,
                            "test_id": test_ids[result.test],
                            "status": int(result.status),
                            "message": result.message,
                            "duration": result.duration,
                            "log_id": log_id,
                        }
                        for result, log_id in zip(new.results, log_ids, strict=True)
                    ],
                )
        return run_id

    def series_of(self, project: str, host: str, at: datetime) -> tuple[int, bool]:
        """The regress series of ``project`` on ``host`` (kind ``regress``, named
        "regress on HOST"), made when there is none (started ``at``); whether it was."""
        where = (_s.c.kind == REGRESS_KIND, _s.c.project == project, _s.c.host == host)
        with self._write(f"find the regress series of host {host!r}") as conn:
            found = conn.scalar(select(func.min(_s.c.id)).where(*where))
            if found is not None:
                return int(found), False
            made = conn.execute(
                _s.insert()
                .values(
                    name=f"regress on {host}",
                    project=project,
                    repo="",
                    from_spec="",
                    to_spec="",
                    step=REGRESS_KIND,
                    repetitions=1,
                    between_mode="none",
                    host=host,
                    state="finished",
                    started_at=at,
                    finished_at=at,
                    config_hash="",
                    config_text="",
                    commands={},
                    fingerprint={},
                    parent_id=None,
                    kind=REGRESS_KIND,
                    planned_checkouts=None,
                    order_mode="checkout",
                )
                .returning(_s.c.id)
            )
            return int(made.scalar_one()), True

    def _test_ids(self, conn: Connection, results: Sequence[NewRegressResult]) -> dict[str, int]:
        """The id of every test name, new names inserted; newer sources replace older."""
        insert = insert_or_keep(conn)
        names = [result.test for result in results]
        for chunk in chunks(names):
            conn.execute(
                insert(_t).on_conflict_do_nothing(index_elements=["name"]),
                [{"name": name, "source": None} for name in chunk],
            )
        ids: dict[str, int] = {}
        sources: dict[str, str | None] = {}
        for chunk in chunks(names):
            query = select(_t.c.name, _t.c.id, _t.c.source).where(_t.c.name.in_(chunk))
            for row in conn.execute(query):
                ids[row.name] = int(row.id)
                sources[row.name] = row.source
        changed = [
            {"tid": ids[r.test], "new_source": r.source}
            for r in results
            if r.source is not None and r.source != sources.get(r.test)
        ]
        if changed:
            conn.execute(
                _t.update()
                .where(_t.c.id == bindparam("tid"))
                .values(source=bindparam("new_source")),
                changed,
            )
        return ids

    # -- reading -------------------------------------------------------------------

    def runs(self, host: str | None = None) -> list[RegressRunRow]:
        """The runs (of one host), newest first, with their status counts."""
        query = select(*_RUN_COLUMNS).order_by(_r.c.started_at.desc(), _r.c.id.desc())
        if host is not None:
            query = query.where(_r.c.host == host)
        with self._read("read the regress runs") as conn:
            return [_run_row(row, _statuses(row)) for row in conn.execute(query)]

    def run(self, run_id: int) -> RegressRunRow:
        """The run ``run_id``; an unknown id is a StoreError naming it."""
        with self._read(f"read regress run {run_id}") as conn:
            row = conn.execute(select(*_RUN_COLUMNS).where(_r.c.id == run_id)).first()
        if row is None:
            raise StoreError(
                f"result store {self._db.shown}: no regress run with id {run_id}",
                hint="`perfwalk regress runs` lists them",
            )
        return _run_row(row, _statuses(row))

    def matrix(self, host: str | None = None) -> MatrixRows:
        """Every run (of one host; newest first) with its column of statuses and
        messages, and every test: two queries, whatever the number of cells."""
        query = select(*_RUN_COLUMNS, _r.c.messages).order_by(
            _r.c.started_at.desc(), _r.c.id.desc()
        )
        if host is not None:
            query = query.where(_r.c.host == host)
        with self._read("read the regress matrix") as conn:
            runs = []
            for row in conn.execute(query):
                statuses = _statuses(row)
                messages = {int(key): str(text) for key, text in row.messages.items()}
                runs.append(MatrixRun(_run_row(row, statuses), statuses, messages))
            tests = [
                RegressTestRow(id=row.id, name=row.name, source=row.source)
                for row in conn.execute(select(_t).order_by(_t.c.id))
            ]
        return MatrixRows(runs=runs, tests=tests)

    def results(self, run_id: int) -> list[RegressResultRow]:
        """The results of one run, by test name."""
        query = (
            select(_x, _t.c.name)
            .join(_t, _x.c.test_id == _t.c.id)
            .where(_x.c.run_id == run_id)
            .order_by(_t.c.name)
        )
        with self._read(f"read the results of regress run {run_id}") as conn:
            return [
                RegressResultRow(
                    test_id=row.test_id,
                    test=row.name,
                    status=Status(row.status),
                    message=row.message,
                    duration=row.duration,
                    log_id=row.log_id,
                )
                for row in conn.execute(query)
            ]

    def result_logs(self, run_id: int) -> Iterator[tuple[int, Log]]:
        """``(test_id, log)`` of every result of a run, decompressed: one query."""
        query = (
            select(_x.c.test_id, _log)
            .join(_log, _x.c.log_id == _log.c.id)
            .where(_x.c.run_id == run_id)
        )
        with self._read(f"read the logs of regress run {run_id}") as conn:
            rows = conn.execute(query).all()
        for row in rows:
            yield row.test_id, _unpacked(row)

    def stored_logs(self, run_ids: Sequence[int]) -> StoredLogs:
        """The logs of the results of runs ``run_ids`` (up to a few hundred at a time)
        and of the runs themselves, as stored. Four queries, and no work per log but
        fetching its bytes: they come straight from the driver's cursor, and only the
        rare truncated logs are read with their sizes."""
        joined = _x.join(_log, _x.c.log_id == _log.c.id)
        wanted = _x.c.run_id.in_(run_ids)
        ordered = (_x.c.run_id, _x.c.test_id)
        counts = select(_x.c.run_id, func.count()).where(wanted).group_by(_x.c.run_id)
        results = select(_log.c.data).select_from(joined).where(wanted).order_by(*ordered)
        unusual = (
            select(_x.c.run_id, _x.c.test_id, _log.c.compression, _log.c.total)
            .select_from(joined)
            .where(wanted, _log.c.truncated | (_log.c.compression != logs.COMPRESSION))
        )
        own = (
            select(_r.c.id, _log.c.compression, _log.c.data, _log.c.total, _log.c.truncated)
            .join(_log, _r.c.log_id == _log.c.id)
            .where(_r.c.id.in_(run_ids))
        )
        with self._read(f"read the logs of {len(run_ids)} regress runs") as conn:
            found = conn.execute(results)
            rows = found.cursor.fetchall()  # the driver's tuples: no row objects
            found.close()
            per_run = {int(run): int(n) for run, n in conn.execute(counts)}
            unusual_rows = conn.execute(unusual).all()
            runner_rows = conn.execute(own).all()
        cut: dict[int, dict[int, int]] = {}
        for row in unusual_rows:
            if row.compression != logs.COMPRESSION:
                where = f"test id {row.test_id} of regress run {row.run_id}"
                raise _unknown_compression(row.compression, where)
            cut.setdefault(int(row.run_id), {})[int(row.test_id)] = int(row.total)
        runner = {}
        for own_row in runner_rows:
            if own_row.compression != logs.COMPRESSION:
                raise _unknown_compression(own_row.compression, f"regress run {own_row.id}")
            runner[int(own_row.id)] = StoredLog(
                bytes(own_row.data), int(own_row.total), bool(own_row.truncated)
            )
        data = list(map(itemgetter(0), rows))
        return StoredLogs(data, per_run, cut, runner)


def _clean_names(new: NewRegressRun) -> NewRegressRun:
    """The run with its test names as the store keeps them (see ``safe_text``)."""
    if all(safe_text(r.test) == r.test for r in new.results):
        return new
    results = tuple(replace(r, test=safe_text(r.test)) for r in new.results)
    return replace(new, results=results)


_RUN_COLUMNS = tuple(column for column in _r.c if column.name != "messages")


def _statuses(row: Any) -> bytes:
    try:
        return zlib.decompress(row.statuses)
    except zlib.error as err:
        raise StoreError(
            f"regress run {row.id} is damaged: {err}", hint="the store file may be corrupt"
        ) from err


def _run_row(row: Any, statuses: bytes) -> RegressRunRow:
    counts = {status: statuses.count(int(status)) for status in Status}
    return RegressRunRow(
        id=row.id,
        host=row.host,
        started_at=row.started_at,
        finished_at=row.finished_at,
        arch=row.arch,
        os=row.os,
        kernel=row.kernel,
        build=row.build,
        commit=row.commit,
        origin=row.origin,
        label=row.label,
        fingerprint=MappingProxyType(dict(row.fingerprint)),
        log_id=row.log_id,
        counts=MappingProxyType({status: n for status, n in counts.items() if n}),
    )


def _unknown_compression(compression: str, where: str) -> StoreError:
    return StoreError(
        f"the log of {where} is stored with compression {compression!r}, unknown to this perfwalk",
        hint="upgrade perfwalk to read it",
    )


def _unpacked(row: Any) -> Log:
    return logs.unpack(
        row.id,
        compression=row.compression,
        data=row.data,
        size=row.size,
        total=row.total,
        truncated=row.truncated,
    )
