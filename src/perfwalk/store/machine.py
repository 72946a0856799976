"""The machine's state of each repetition in the ``machine_state`` table, one row per
host the repetition ran on: written with its repetition, read back by series for the
analysis and by checkout for the pages."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, select

from perfwalk.model import MachineState
from perfwalk.store import schema

_ms = schema.machine_state
_rp = schema.repetition
_ck = schema.checkout


def insert_state(conn: Connection, repetition_id: int, host: str, state: MachineState) -> None:
    """Store the state of ``host`` over one repetition."""
    conn.execute(
        _ms.insert().values(
            repetition_id=repetition_id,
            host=host,
            seconds=_finite(state.seconds),
            load1=_finite(state.load1),
            cores=state.cores,
            others_cpu=_finite(state.others_cpu),
            busy=[[name, share] for name, share in state.busy if math.isfinite(share)],
            steal=_finite(state.steal),
            mem_available=state.mem_available,
            freq_mhz=_finite(state.freq_mhz),
            governor=state.governor,
            turbo=state.turbo,
            runnable=_finite(state.runnable),
        )
    )


def series_states(
    conn: Connection, series_id: int
) -> dict[tuple[int, int], dict[str, MachineState]]:
    """The states of every repetition of a series that has one, by (checkout idx,
    repetition idx): each host's, by host name."""
    query = (
        select(_ck.c.idx.label("checkout_idx"), _rp.c.idx.label("repetition_idx"), _ms)
        .select_from(_ms)
        .join(_rp, _ms.c.repetition_id == _rp.c.id)
        .join(_ck, _rp.c.checkout_id == _ck.c.id)
        .where(_ck.c.series_id == series_id)
    )
    found: dict[tuple[int, int], dict[str, MachineState]] = {}
    for row in conn.execute(query.order_by(_ms.c.host)):
        found.setdefault((row.checkout_idx, row.repetition_idx), {})[row.host] = state_of(row)
    return found


def checkout_states(
    conn: Connection, checkout_ids: Sequence[int]
) -> dict[int, dict[str, MachineState]]:
    """The states of every repetition of ``checkout_ids`` that has one, by repetition
    id: each host's, by host name."""
    query = (
        select(_ms)
        .join(_rp, _ms.c.repetition_id == _rp.c.id)
        .where(_rp.c.checkout_id.in_(list(checkout_ids)))
        .order_by(_ms.c.host)
    )
    found: dict[int, dict[str, MachineState]] = {}
    for row in conn.execute(query):
        found.setdefault(row.repetition_id, {})[row.host] = state_of(row)
    return found


def state_of(row: Any) -> MachineState:
    """A ``machine_state`` row as a record."""
    return MachineState(
        seconds=row.seconds,
        load1=row.load1,
        cores=row.cores,
        others_cpu=row.others_cpu,
        busy=tuple((str(name), float(share)) for name, share in (row.busy or [])),
        steal=row.steal,
        mem_available=row.mem_available,
        freq_mhz=row.freq_mhz,
        governor=row.governor,
        turbo=row.turbo,
        runnable=row.runnable,
    )


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None
