"""The repetitions of a checkout: each stored whole with its results, values,
histograms, logs, phase steps, snapshots and machine states, and read back.

Part of :class:`perfwalk.store.Store` (which inherits it); one call is one transaction,
so a killed run loses at most the repetition in flight.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any, cast

from sqlalchemy import select

from perfwalk.errors import StoreError
from perfwalk.model import MachineState, Status
from perfwalk.store import logs, packs, schema
from perfwalk.store.bulk import insert_returning_ids
from perfwalk.store.histograms import insert_histograms
from perfwalk.store.known_rows import KnownRows
from perfwalk.store.machine import insert_state, series_states
from perfwalk.store.phase_steps import FETCH, POWER_CYCLE, insert_steps, read_steps
from perfwalk.store.records import (
    DirectionName,
    NewRepetition,
    RepetitionRow,
    ResultRow,
    SnapshotRow,
    SnapshotSpan,
    StepRow,
    StoredValue,
    stored_direction,
)
from perfwalk.store.snapshots import insert_snapshots, read_snapshots, series_snapshots

_s = schema.series
_ck = schema.checkout
_rp = schema.repetition
_rs = schema.result
_v = schema.value
_log = schema.log


class RepetitionRecords(KnownRows):
    """The repetitions of a store; reached as methods of :class:`perfwalk.store.Store`."""

    def add_repetition(self, checkout_id: int, rep: NewRepetition) -> int:
        """Store a repetition with its results, values and logs in ONE transaction.

        Either all of it is stored or nothing. A repetition already stored at that
        index is a StoreError (check :meth:`done_repetitions` first).
        """
        directions = [[stored_direction(d) for _, d in result.values] for result in rep.results]
        secrets = self._db.log_secrets
        packed = [logs.pack(rep.between_log, secrets)] if rep.between_log is not None else []
        for result in rep.results:
            packed += [logs.pack(result.stdout, secrets), logs.pack(result.stderr, secrets)]
        action = f"store repetition {rep.idx} of checkout {checkout_id}"
        with self._write(action) as conn:
            self._require(conn, _ck, checkout_id, "checkout")
            taken = conn.scalar(
                select(_rp.c.id).where(_rp.c.checkout_id == checkout_id, _rp.c.idx == rep.idx)
            )
            if taken is not None:
                raise StoreError(
                    f"result store {self._db.shown}: repetition {rep.idx} of checkout "
                    f"{checkout_id} is already stored",
                    hint="a resumed run skips the repetitions done_repetitions() reports",
                )
            log_ids = insert_returning_ids(conn, _log, packed)
            between_log_id = log_ids.pop(0) if rep.between_log is not None else None
            repetition_id = int(
                conn.execute(
                    _rp.insert()
                    .values(
                        checkout_id=checkout_id,
                        idx=rep.idx,
                        started_at=rep.started_at,
                        finished_at=rep.finished_at,
                        between_status=None
                        if rep.between_status is None
                        else int(rep.between_status),
                        between_log_id=between_log_id,
                    )
                    .returning(_rp.c.id)
                ).scalar_one()
            )
            if rep.results:
                result_ids = insert_returning_ids(
                    conn,
                    _rs,
                    [
                        result.row(repetition_id, log_ids[2 * i], log_ids[2 * i + 1])
                        for i, result in enumerate(rep.results)
                    ],
                )
                value_params = [
                    {
                        "result_id": result_id,
                        "name": value.name,
                        "unit": value.unit,
                        "value": value.value,
                        "direction": direction,
                    }
                    for result, result_id, dirs in zip(
                        rep.results, result_ids, directions, strict=True
                    )
                    for (value, _), direction in zip(result.values, dirs, strict=True)
                ]
                if value_params:
                    conn.execute(_v.insert(), value_params)
                insert_histograms(conn, rep.results, result_ids)
            insert_steps(conn, rep.steps, secrets, repetition_id=repetition_id)
            insert_snapshots(conn, repetition_id, rep.snapshots)
            for host, state in sorted(rep.machines.items()):
                insert_state(conn, repetition_id, host, state)
            packs.refresh(conn, checkout_id)
        return repetition_id

    def machine_states(self, series_id: int) -> dict[tuple[int, int], dict[str, MachineState]]:
        """The machine's state of every repetition of a series that has one, by
        (checkout idx, repetition idx): the state of each of its hosts, by host name."""
        with self._read(f"read the machine states of series {series_id}") as conn:
            self._require(conn, _s, series_id, "series")
            return series_states(conn, series_id)

    def steps(self, repetition_id: int) -> list[StepRow]:
        """The phase steps of a repetition (multi-host tests, reboots), in the order run."""
        with self._read(f"read the steps of repetition {repetition_id}") as conn:
            return read_steps(conn, schema.step.c.repetition_id == repetition_id)

    def snapshots(self, repetition_id: int) -> list[SnapshotRow]:
        """The counters of the [[snapshot]]s around the tests of a repetition, in the
        order stored."""
        with self._read(f"read the snapshots of repetition {repetition_id}") as conn:
            return read_snapshots(conn, schema.snapshot.c.repetition_id == repetition_id)

    def series_snapshots(self, series_id: int) -> list[SnapshotSpan]:
        """Every snapshot of a series that read its counters before and after its test,
        by checkout and repetition, with the seconds between its two commands."""
        with self._read(f"read the snapshots of series {series_id}") as conn:
            self._require(conn, _s, series_id, "series")
            return series_snapshots(conn, series_id)

    def artifacts(self, repetition_id: int) -> list[StepRow]:
        """The files fetched from the hosts in a repetition; the bytes are the stdout log."""
        return [row for row in self.steps(repetition_id) if row.kind == FETCH]

    def done_repetitions(
        self, series_id: int, *, through: int | None = None
    ) -> set[tuple[int, int]]:
        """(checkout idx, repetition idx) of every stored repetition of a series (with
        ``through``: of those whose id is not above it, stored before an extension)."""
        query = (
            select(_ck.c.idx.label("checkout_idx"), _rp.c.idx.label("repetition_idx"))
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
        )
        if through is not None:
            query = query.where(_rp.c.id <= through)
        with self._read(f"read the repetitions of series {series_id}") as conn:
            self._require(conn, _s, series_id, "series")
            return {(row.checkout_idx, row.repetition_idx) for row in conn.execute(query)}

    def recent_repetitions(self, series_id: int, last: int) -> list[tuple[datetime, datetime]]:
        """(started, finished) of the ``last`` repetitions of a series to finish, the
        newest first: the pace of a walk that runs."""
        query = (
            select(_rp.c.started_at, _rp.c.finished_at)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
            .order_by(_rp.c.finished_at.desc(), _rp.c.id.desc())
            .limit(last)
        )
        with self._read(f"read the repetitions of series {series_id}") as conn:
            return [(row.started_at, row.finished_at) for row in conn.execute(query)]

    def power_cycles(self, series_id: int) -> list[tuple[int, int, StepRow]]:
        """The power cycles of hosts that hung in the repetitions of a series, as
        (checkout index, repetition index, step), in the order they ran."""
        where = (
            select(_rp.c.id, _ck.c.idx.label("checkout"), _rp.c.idx.label("repetition"))
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
        )
        with self._read(f"read the power cycles of series {series_id}") as conn:
            self._require(conn, _s, series_id, "series")
            at = {row.id: (row.checkout, row.repetition) for row in conn.execute(where)}
            ids = select(where.subquery().c.id)
            steps = read_steps(
                conn, (schema.step.c.kind == POWER_CYCLE) & schema.step.c.repetition_id.in_(ids)
            )
        return [(*at[cast(int, step.repetition_id)], step) for step in steps]

    def repetitions(self, checkout_id: int) -> list[RepetitionRow]:
        """The repetitions of a checkout in index order, with results and values.

        Three queries (repetitions, results, values), whatever their number.
        """
        reps_query = select(_rp).where(_rp.c.checkout_id == checkout_id).order_by(_rp.c.idx)
        results_query = (
            select(_rs)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .where(_rp.c.checkout_id == checkout_id)
            .order_by(_rs.c.id)
        )
        values_query = (
            select(_v)
            .join(_rs, _v.c.result_id == _rs.c.id)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .where(_rp.c.checkout_id == checkout_id)
            .order_by(_v.c.id)
        )
        with self._read(f"read the repetitions of checkout {checkout_id}") as conn:
            self._require(conn, _ck, checkout_id, "checkout")
            reps = conn.execute(reps_query).all()
            results = conn.execute(results_query).all()
            values: dict[int, list[StoredValue]] = defaultdict(list)
            for v in conn.execute(values_query):
                values[v.result_id].append(stored_value(v))
        by_rep: dict[int, list[ResultRow]] = defaultdict(list)
        for r in results:
            by_rep[r.repetition_id].append(result_row(r, tuple(values.get(r.id, ()))))
        return [
            RepetitionRow(
                id=rep.id,
                checkout_id=rep.checkout_id,
                idx=rep.idx,
                started_at=rep.started_at,
                finished_at=rep.finished_at,
                between_status=_status_or_none(rep.between_status),
                between_log_id=rep.between_log_id,
                results=tuple(by_rep.get(rep.id, ())),
            )
            for rep in reps
        ]


def stored_value(row: Any) -> StoredValue:
    """The :class:`StoredValue` of a ``value`` row."""
    return StoredValue(
        name=row.name,
        unit=row.unit,
        value=row.value,
        direction=cast(DirectionName, row.direction),
    )


def result_row(row: Any, values: tuple[StoredValue, ...]) -> ResultRow:
    """The :class:`ResultRow` of a ``result`` row, with its ``values``."""
    return ResultRow(
        id=row.id,
        test=row.test,
        status=Status(row.status),
        message=row.message,
        duration=row.duration,
        exit_code=row.exit_code,
        command=row.command,
        stdout_log_id=row.stdout_log_id,
        stderr_log_id=row.stderr_log_id,
        values=values,
        role=row.role,
        host=row.host,
    )


def _status_or_none(status: int | None) -> Status | None:
    return None if status is None else Status(status)
