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
from perfwalk.store.records import NewSnapshot, SnapshotRow

_sn = schema.snapshot

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
