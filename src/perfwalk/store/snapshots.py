"""The ``snapshot`` table: the counters of each ``[[snapshot]]`` around a test.

Written in the repetition's own transaction (by
:meth:`perfwalk.store.Store.add_repetition`); the outputs they were read from are
steps of the repetition (phases ``snapshot-before`` and ``snapshot-after``). The
counters are kept as read, integers exact, in the order the command printed them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, select

from perfwalk.model import Status
from perfwalk.store import schema
from perfwalk.store.records import NewSnapshot, SnapshotRow, SnapshotSpan

_sn = schema.snapshot
_st = schema.step
_rp = schema.repetition
_ck = schema.checkout

#: The phases of the steps that ran a snapshot's command.
BEFORE = "snapshot-before"
AFTER = "snapshot-after"


def insert_snapshots(conn: Connection, repetition_id: int, found: Sequence[NewSnapshot]) -> None:
    """Store the snapshots of one repetition."""
    if not found:
        return
    conn.execute(
        _sn.insert(),
        [
            {
                "repetition_id": repetition_id,
                "test": new.test,
                "name": new.name,
                "role": new.role,
                "host": new.host,
                "parser": new.parser,
                "before": _plain(new.before),
                "after": _plain(new.after),
                "status": int(new.status),
                "message": new.message,
            }
            for new in found
        ],
    )


def read_snapshots(conn: Connection, where: Any) -> list[SnapshotRow]:
    """The snapshots matching ``where`` (a condition on the table or a join), by id."""
    query = select(_sn).where(where).order_by(_sn.c.id)
    return [
        SnapshotRow(
            id=row.id,
            repetition_id=row.repetition_id,
            test=row.test,
            name=row.name,
            role=row.role,
            host=row.host,
            parser=row.parser,
            before=row.before,
            after=row.after,
            status=Status(row.status),
            message=row.message,
        )
        for row in conn.execute(query)
    ]


def _plain(counters: Mapping[str, int | float] | None) -> dict[str, int | float] | None:
    return None if counters is None else dict(counters)


def series_snapshots(conn: Connection, series_id: int) -> list[SnapshotSpan]:
    """Every snapshot of a series that read its counters on both sides, with its
    checkout and repetition and the seconds between its two commands: two queries
    (the snapshots, their steps), whatever their number."""
    where = _ck.c.series_id == series_id
    rows = conn.execute(
        select(
            _sn.c.repetition_id,
            _sn.c.test,
            _sn.c.name,
            _sn.c.role,
            _sn.c.before,
            _sn.c.after,
            _ck.c.idx.label("checkout_idx"),
            _rp.c.idx.label("repetition_idx"),
        )
        .join(_rp, _sn.c.repetition_id == _rp.c.id)
        .join(_ck, _rp.c.checkout_id == _ck.c.id)
        .where(where, _sn.c.status == int(Status.PASS))
        .order_by(_ck.c.idx, _rp.c.idx, _sn.c.id)
    ).all()
    if not rows:
        return []
    times: dict[tuple[int, str, str, str, str], Any] = {}
    steps = (
        select(
            _st.c.repetition_id,
            _st.c.test,
            _st.c.name,
            _st.c.role,
            _st.c.phase,
            _st.c.started_at,
            _st.c.finished_at,
        )
        .join(_rp, _st.c.repetition_id == _rp.c.id)
        .join(_ck, _rp.c.checkout_id == _ck.c.id)
        .where(where, _st.c.phase.in_((BEFORE, AFTER)))
    )
    for step in conn.execute(steps):
        at = step.finished_at if step.phase == BEFORE else step.started_at
        times[(step.repetition_id, step.test, step.name, step.role, step.phase)] = at
    found = []
    for row in rows:
        if row.before is None or row.after is None:
            continue
        key = (row.repetition_id, row.test, row.name, row.role)
        first, last = times.get((*key, BEFORE)), times.get((*key, AFTER))
        seconds = (last - first).total_seconds() if first and last else None
        found.append(
            SnapshotSpan(
                checkout_idx=row.checkout_idx,
                repetition_idx=row.repetition_idx,
                test=row.test,
                name=row.name,
                role=row.role,
                before=row.before,
                after=row.after,
                seconds=seconds,
            )
        )
    return found
