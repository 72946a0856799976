"""Who walks a series: one ``walker`` row per series, the newest process that walked it.

A walk (``run``, ``run --resume``, a drill) records itself when it starts: its
machine, PID and process start time (so that a reused PID is told apart), and
the random marker every process it starts carries in its environment
(:data:`perfwalk.hosts.leftovers.WALK_MARKER`). A walker is *gone* when it is a
process of this machine that no longer runs: a series it left ``running`` is in
fact interrupted (``kill -9``, a power cut), and the processes it left behind
are found by its marker.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Row, select

from perfwalk.store import schema
from perfwalk.store.bulk import chunks
from perfwalk.store.connect import StorePart
from perfwalk.store.leases import Holder, process_start
from perfwalk.store.records import UNFINISHED_STATES

_w = schema.walker
_s = schema.series

#: alive: runs on this machine; gone: was of this machine, runs no more;
#: elsewhere: of another machine, cannot be told from here.
Liveness = Literal["alive", "gone", "elsewhere"]


@dataclass(frozen=True, kw_only=True)
class WalkerRow:
    """The process that walks (or walked) a series."""

    series_id: int
    token: str
    machine: str
    pid: int
    process_start: str
    started_at: datetime

    def liveness(self) -> Liveness:
        if self.machine != socket.gethostname():
            return "elsewhere"
        return "alive" if process_start(self.pid) == self.process_start else "gone"

    def describe(self) -> str:
        """``pid 4242 on lab1 since 2024-05-01 10:00:00 UTC``."""
        return f"pid {self.pid} on {self.machine} since {self.started_at:%Y-%m-%d %H:%M:%S} UTC"


class Walkers(StorePart):
    """The walkers of a store; get it from :attr:`perfwalk.store.Store.walkers`."""

    def record(self, series_id: int, holder: Holder, now: datetime) -> None:
        """``holder`` walks ``series_id`` from ``now`` on (in place of any earlier walker)."""
        with self._write(f"record the walker of series {series_id}") as conn:
            conn.execute(_w.delete().where(_w.c.series_id == series_id))
            conn.execute(
                _w.insert().values(
                    series_id=series_id,
                    token=holder.token,
                    machine=holder.machine,
                    pid=holder.pid,
                    process_start=holder.process_start,
                    started_at=now,
                )
            )

    def of(self, series_ids: Sequence[int]) -> dict[int, WalkerRow]:
        """The walkers of ``series_ids`` that have one (series stored before walkers
        were recorded have none)."""
        found: dict[int, WalkerRow] = {}
        with self._read("read the walkers") as conn:
            for chunk in chunks(list(series_ids)):
                query = select(_w).where(_w.c.series_id.in_(chunk))
                found.update((row.series_id, _row(row)) for row in conn.execute(query))
        return found

    def unfinished(self, machine: str) -> list[WalkerRow]:
        """The walkers on ``machine`` of every series not finished (running or
        interrupted), oldest first."""
        query = (
            select(_w)
            .join(_s, _s.c.id == _w.c.series_id)
            .where(_w.c.machine == machine, _s.c.state.in_(UNFINISHED_STATES))
            .order_by(_w.c.series_id)
        )
        with self._read("read the walkers of unfinished series") as conn:
            return [_row(row) for row in conn.execute(query)]


def _row(row: Row[Any]) -> WalkerRow:
    return WalkerRow(
        series_id=row.series_id,
        token=row.token,
        machine=row.machine,
        pid=row.pid,
        process_start=row.process_start,
        started_at=row.started_at,
    )
