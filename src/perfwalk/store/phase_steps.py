"""The ``step`` table: every step of a multi-host test and of a conductor trial.

Steps of a repetition are written in the repetition's own transaction (by
:meth:`perfwalk.store.Store.add_repetition`); steps of a conductor trial by
:class:`perfwalk.store.conduct.ConductRecords`. A fetched file is a step of kind
``fetch`` whose stdout log holds the file's bytes (bounded like any log).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Row, select

from perfwalk.model import Status
from perfwalk.store import logs, schema
from perfwalk.store.records import NewStep, StepRow

_st = schema.step
_log = schema.log

#: The kind of a step whose stdout is a file fetched from a host.
FETCH = "fetch"
#: The kind of a step that power-cycled a host that hung (its message says how it went).
POWER_CYCLE = "power cycle"


def insert_steps(
    conn: Connection,
    steps: Sequence[NewStep],
    secrets: Sequence[bytes] = (),
    *,
    repetition_id: int | None = None,
    conduct_id: int | None = None,
    trial: int | None = None,
) -> None:
    """Store ``steps`` (with their logs) for a repetition or a conductor trial."""
    if not steps:
        return
    packed = [logs.pack(log, secrets) for new in steps for log in (new.stdout, new.stderr)]
    query = _log.insert().returning(_log.c.id, sort_by_parameter_order=True)
    log_ids = [int(row.id) for row in conn.execute(query, packed)]
    counters: dict[tuple[str, str, str], int] = {}
    rows: list[dict[str, Any]] = []
    for number, new in enumerate(steps):
        key = (new.test, new.phase, new.role)
        idx = counters.get(key, 0)
        counters[key] = idx + 1
        rows.append(
            {
                "repetition_id": repetition_id,
                "conduct_id": conduct_id,
                "trial": trial,
                "test": new.test,
                "phase": new.phase,
                "role": new.role,
                "host": new.host,
                "idx": idx,
                "kind": new.kind,
                "name": new.name,
                "command": new.command,
                "status": int(new.status),
                "message": new.message,
                "exit_code": new.exit_code,
                "started_at": new.started_at,
                "finished_at": new.finished_at,
                "stdout_log_id": log_ids[2 * number],
                "stderr_log_id": log_ids[2 * number + 1],
            }
        )
    conn.execute(_st.insert(), rows)


def read_steps(conn: Connection, where: Any) -> list[StepRow]:
    """The steps matching ``where`` (a column condition), in the order stored."""
    return [_row(row) for row in conn.execute(select(_st).where(where).order_by(_st.c.id))]


def _row(row: Row[Any]) -> StepRow:
    return StepRow(
        id=row.id,
        repetition_id=row.repetition_id,
        conduct_id=row.conduct_id,
        trial=row.trial,
        test=row.test,
        phase=row.phase,
        role=row.role,
        host=row.host,
        idx=row.idx,
        kind=row.kind,
        name=row.name,
        command=row.command,
        status=Status(row.status),
        message=row.message,
        exit_code=row.exit_code,
        started_at=row.started_at,
        finished_at=row.finished_at,
        stdout_log_id=row.stdout_log_id,
        stderr_log_id=row.stderr_log_id,
    )
