"""Checkout packs: a checkout's repetitions in one row, for reading a long series fast.

A pack is derived from the ``repetition``, ``result`` and ``value`` rows of one
checkout (which stay the truth) and rewritten with them, in the same transaction,
each time a repetition is stored. Publishing a series of 10 000 checkouts then reads
10 000 rows instead of 5 000 000 values, and does not summarise them again.

- ``head``: JSON ``{"reps": [idx…], "metrics": [[test, name, unit, direction]…],
  "worst": {test: severity}, "loaded": [position…]}`` (the positions of the
  repetitions measured on a loaded machine, see :mod:`perfwalk.analysis.machine`):
  the same text for most checkouts of a series;
- ``detail``: JSON ``{"reps": [[idx, id, between status, between log id, machine]…],
  "results": [[id, repetition idx, test, status, message, duration, exit code,
  stdout log id, stderr log id]…], "nan": [[metric, rep]…]}`` (statuses by name):
  what a checkout's page shows besides its values; ``machine`` is null or the
  state of one host of the repetition (the first loaded one, else the first by
  name) ``{"host", "load", "cores", "others", "busy": [[name, %]…], "steal", "mem",
  "freq", "governor", "turbo", "runnable", "loaded": why the repetition is loaded,
  naming each loaded host (or ""), "hosts": [the same for every host of the
  repetition, by name, each "loaded" saying why that host was (or "")]}``;
- ``vals``: float64, metric by metric, one per repetition (in ``reps`` order): every
  value, NaN where there is none (``nan`` lists the stored NaNs);
- ``passed``: the same grid with the values of PASS results only (NaN elsewhere);
- ``stats``: float64, six per metric: the :class:`~perfwalk.analysis.summary.Moments`
  (n, mean, median, min, max, sd) of its PASS values; n = 0 when there are none.

A metric is a (test, value name, unit, direction); a name given twice in one result
keeps its last value.
"""

from __future__ import annotations

import json
import math
import sys
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, select

from perfwalk.analysis.machine import why_loaded, why_repetition_loaded
from perfwalk.analysis.summary import moments
from perfwalk.model import MachineState, Status
from perfwalk.numbers import finite_or_none
from perfwalk.store import schema
from perfwalk.store.machine import checkout_states

#: bump when the content of a pack changes: older packs are rebuilt when read
PACK_FORMAT = 3
#: float64 per metric in ``stats``
STATS = 6
#: checkouts per bulk read when many packs are built at once
_CHUNK = 200

_NAMES = {int(status): status.name for status in Status}
_PASS = int(Status.PASS)
_rp = schema.repetition
_rs = schema.result
_v = schema.value
_pk = schema.checkout_pack


def build_packs(conn: Connection, checkout_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """The pack row of every checkout of ``checkout_ids`` that has repetitions."""
    found: dict[int, dict[str, Any]] = {}
    for start in range(0, len(checkout_ids), _CHUNK):
        chunk = list(checkout_ids[start : start + _CHUNK])
        found.update(_build_chunk(conn, chunk))
    return found


def refresh(conn: Connection, checkout_id: int) -> None:
    """Rewrite the pack of one checkout (after one of its repetitions was stored)."""
    conn.execute(_pk.delete().where(_pk.c.checkout_id == checkout_id))
    packs = build_packs(conn, [checkout_id])
    if packs:
        conn.execute(_pk.insert(), list(packs.values()))


def refresh_all(conn: Connection) -> None:
    """Build the pack of every checkout with repetitions (a store written before packs)."""
    conn.execute(_pk.delete())
    ids = sorted({int(i) for i in conn.execute(select(_rp.c.checkout_id).distinct()).scalars()})
    for start in range(0, len(ids), _CHUNK):
        packs = build_packs(conn, ids[start : start + _CHUNK])
        if packs:
            conn.execute(_pk.insert(), list(packs.values()))


@dataclass(frozen=True)
class NewRows:
    """The rows of repetitions just stored, as the store would give them back (their
    text through :func:`~perfwalk.store.coltypes.safe_text`, NaN as None): their
    writer has them at hand, so their pack is written without reading them again.
    ``reps``: by checkout id, ``(idx, id, between status, between log id)`` in index
    order; ``results``: by checkout id, ``(id, repetition idx, test, status, message,
    duration, exit code, stdout log id, stderr log id)`` in that order; ``values``: by
    result id, ``(name, unit, direction, value)`` in the order stored; ``machine``: the
    packed machine states of the repetitions that have one, by repetition id;
    ``made``: the checkouts made with them (every repetition of each is here)."""

    reps: dict[int, list[tuple[Any, ...]]] = field(default_factory=dict)
    results: dict[int, list[tuple[Any, ...]]] = field(default_factory=dict)
    values: dict[int, list[tuple[Any, ...]]] = field(default_factory=dict)
    machine: dict[int, dict[str, Any]] = field(default_factory=dict)
    made: set[int] = field(default_factory=set)


def extend(conn: Connection, checkout_id: int, new: NewRows) -> None:
    """Add the repetitions of one checkout that ``new`` holds, just stored, to its
    pack: the pack :func:`refresh` would write, made from the pack and those rows
    alone (a checkout pushed to again and again is not read whole each time); a
    checkout made with them (``new.made``) has its pack made from ``new`` alone.
    Without a pack of this format, or with a new repetition placed before one
    already packed, the pack is built again from all its rows."""
    own = new.reps.get(checkout_id, [])
    if not own:
        return
    results = new.results.get(checkout_id, [])
    if checkout_id in new.made:
        pack = _Grid(len(own)).pack(checkout_id, own, results, new.values, new.machine)
        conn.execute(_pk.insert().values(pack))
        return
    found = conn.execute(select(_pk).where(_pk.c.checkout_id == checkout_id)).first()
    if found is None or found.format != PACK_FORMAT:
        refresh(conn, checkout_id)
        return
    head = json.loads(found.head)
    detail = json.loads(found.detail)
    if head["reps"] and own[0][0] <= max(head["reps"]):
        refresh(conn, checkout_id)
        return
    grid = _Grid.of(head, detail, found.vals, found.passed, width=len(head["reps"]) + len(own))
    pack = grid.pack(checkout_id, own, results, new.values, new.machine)
    conn.execute(_pk.update().where(_pk.c.checkout_id == checkout_id).values(pack))


_Rows = tuple[
    dict[int, list[tuple[Any, ...]]],
    dict[int, list[tuple[Any, ...]]],
    dict[int, list[tuple[Any, ...]]],
    dict[int, dict[str, Any]],
]


def _rows(conn: Connection, ids: list[int]) -> _Rows:
    """The repetitions and results of the checkouts ``ids`` by checkout, their values
    by result, and the machine states of the repetitions as packs hold them."""
    reps_query = (
        select(_rp.c.checkout_id, _rp.c.idx, _rp.c.id, _rp.c.between_status, _rp.c.between_log_id)
        .where(_rp.c.checkout_id.in_(ids))
        .order_by(_rp.c.checkout_id, _rp.c.idx)
    )
    results_query = (
        select(
            _rp.c.checkout_id,
            _rs.c.id,
            _rp.c.idx,
            _rs.c.test,
            _rs.c.status,
            _rs.c.message,
            _rs.c.duration,
            _rs.c.exit_code,
            _rs.c.stdout_log_id,
            _rs.c.stderr_log_id,
        )
        .join(_rp, _rs.c.repetition_id == _rp.c.id)
        .where(_rp.c.checkout_id.in_(ids))
        .order_by(_rp.c.checkout_id, _rp.c.idx, _rs.c.id)
    )
    values_query = (
        select(_v.c.result_id, _v.c.name, _v.c.unit, _v.c.direction, _v.c.value)
        .join(_rs, _v.c.result_id == _rs.c.id)
        .join(_rp, _rs.c.repetition_id == _rp.c.id)
        .where(_rp.c.checkout_id.in_(ids))
        .order_by(_rp.c.checkout_id, _rp.c.idx, _rs.c.id, _v.c.id)
    )
    reps: dict[int, list[tuple[Any, ...]]] = {}
    for checkout_id, *rest in conn.execute(reps_query):
        reps.setdefault(checkout_id, []).append(tuple(rest))
    results: dict[int, list[tuple[Any, ...]]] = {}
    for checkout_id, *rest in conn.execute(results_query):
        results.setdefault(checkout_id, []).append(tuple(rest))
    values: dict[int, list[tuple[Any, ...]]] = {}
    for result_id, *rest in conn.execute(values_query):
        values.setdefault(result_id, []).append(tuple(rest))
    states = checkout_states(conn, ids)
    machine = {
        rep_id: _machine(states[rep_id])
        for own in reps.values()
        for _idx, rep_id, *_rest in own
        if rep_id in states
    }
    return reps, results, values, machine


def _build_chunk(conn: Connection, ids: list[int]) -> Iterator[tuple[int, dict[str, Any]]]:
    reps, results, values, machine = _rows(conn, ids)
    for checkout_id, own in reps.items():
        grid = _Grid(len(own))
        yield (
            checkout_id,
            grid.pack(checkout_id, own, results.get(checkout_id, []), values, machine),
        )


class _Grid:
    """A pack in the making: its metrics, their values (metric × repetition), the
    stored NaNs, the worst status of each test, and what its head and detail list of
    the repetitions and results already in it."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.metrics: dict[tuple[str, str, str, str], int] = {}
        self.grid: list[list[float]] = []
        self.passed: list[list[float]] = []
        self.stored_nan: list[list[int]] = []
        self.worst: dict[str, int] = {}
        self.reps: list[int] = []
        self.loaded: list[int] = []
        self.detail_reps: list[list[Any]] = []
        self.detail_results: list[list[Any]] = []

    @classmethod
    def of(
        cls, head: dict[str, Any], detail: dict[str, Any], vals: bytes, passed: bytes, width: int
    ) -> _Grid:
        """The grid of a stored pack, widened to ``width`` repetitions (NaN)."""
        grid = cls(width)
        old = len(head["reps"])
        widen = [math.nan] * (width - old)
        numbers, good = from_little_endian(vals), from_little_endian(passed)
        for m, (test, name, unit, direction) in enumerate(head["metrics"]):
            grid.metrics[(test, name, unit, direction)] = m
            grid.grid.append([*numbers[m * old : (m + 1) * old], *widen])
            grid.passed.append([*good[m * old : (m + 1) * old], *widen])
        grid.stored_nan = detail["nan"]
        grid.worst = dict(head["worst"])
        grid.reps = list(head["reps"])
        grid.loaded = list(head["loaded"])
        grid.detail_reps = detail["reps"]
        grid.detail_results = detail["results"]
        return grid

    def pack(
        self,
        checkout_id: int,
        reps: list[tuple[Any, ...]],
        results: list[tuple[Any, ...]],
        values: dict[int, list[tuple[Any, ...]]],
        machine: dict[int, dict[str, Any]],
    ) -> dict[str, Any]:
        """The pack row with ``reps`` (and their ``results``) after those already in."""
        first = len(self.reps)
        position = {rep_idx: first + pos for pos, (rep_idx, *_rest) in enumerate(reps)}
        metrics, grid, passed, worst = self.metrics, self.grid, self.passed, self.worst
        width = self.width
        nan = math.nan
        for result_id, rep_idx, test, status, *_rest in results:
            worst[test] = max(worst.get(test, 0), int(status))
            pos = position[rep_idx]
            for name, unit, direction, value in values.get(result_id, ()):
                key = (test, name, unit, direction)
                m = metrics.get(key)
                if m is None:
                    m = metrics[key] = len(grid)
                    grid.append([nan] * width)
                    passed.append([nan] * width)
                number = nan if value is None else float(value)
                grid[m][pos] = number
                if math.isnan(number):
                    self.stored_nan.append([m, pos])
                if status == _PASS and math.isfinite(number):
                    passed[m][pos] = number
        stats = array("d")
        for row in passed:
            found = moments([v for v in row if not math.isnan(v)])
            stats.extend(found if found is not None else (0.0,) * STATS)
        self.loaded.extend(
            first + pos
            for pos, (_idx, rep_id, *_rest) in enumerate(reps)
            if _loaded(machine, rep_id)
        )
        self.reps.extend(r[0] for r in reps)
        self.detail_reps.extend(
            [
                idx,
                rep_id,
                _NAMES.get(between) if between is not None else None,
                log,
                machine.get(rep_id),
            ]
            for idx, rep_id, between, log in reps
        )
        self.detail_results.extend(
            [
                rid,
                rep_idx,
                test,
                _NAMES[int(status)],
                message,
                finite_or_none(duration),
                code,
                out,
                err,
            ]
            for rid, rep_idx, test, status, message, duration, code, out, err in results
        )
        head = {
            "reps": self.reps,
            "metrics": [list(k) for k in metrics],
            "worst": worst,
            "loaded": self.loaded,
        }
        detail = {"reps": self.detail_reps, "results": self.detail_results, "nan": self.stored_nan}
        return {
            "checkout_id": checkout_id,
            "format": PACK_FORMAT,
            "head": _json(head),
            "detail": _json(detail),
            "vals": little_endian(array("d", [v for row in grid for v in row])),
            "passed": little_endian(array("d", [v for row in passed for v in row])),
            "stats": little_endian(stats),
        }


def _loaded(machine: dict[int, dict[str, Any]], rep_id: int) -> bool:
    found = machine.get(rep_id)
    return bool(found and found["loaded"])


def _machine(states: Mapping[str, MachineState]) -> dict[str, Any]:
    """A repetition's machine state as its page shows it: one host's (the first
    loaded), why the repetition is loaded, and every host's."""
    hosts = [_host(host, state) for host, state in sorted(states.items())]
    shown = next((found for found in hosts if found["loaded"]), hosts[0])
    return {**shown, "loaded": why_repetition_loaded(states), "hosts": hosts}


def _host(host: str, state: MachineState) -> dict[str, Any]:
    """The state of one host over a repetition."""
    return {
        "host": host,
        "load": state.load1,
        "cores": state.cores,
        "others": state.others_cpu,
        "busy": [list(b) for b in state.busy],
        "steal": state.steal,
        "mem": state.mem_available,
        "freq": state.freq_mhz,
        "governor": state.governor,
        "turbo": state.turbo,
        "runnable": state.runnable,
        "loaded": why_loaded(state),
    }


def little_endian(numbers: array[float]) -> bytes:
    """The bytes of ``numbers`` as float64 little-endian (what every reader expects)."""
    if sys.byteorder != "little":  # pragma: no cover - every machine we run on
        numbers = array("d", numbers)
        numbers.byteswap()
    return numbers.tobytes()


def from_little_endian(data: bytes) -> array[float]:
    numbers = array("d")
    numbers.frombytes(data)
    if sys.byteorder != "little":  # pragma: no cover
        numbers.byteswap()
    return numbers


def _json(document: object) -> str:
    """Compact JSON, ASCII only (it goes into pages' data files as it is)."""
    return json.dumps(document, separators=(",", ":"), allow_nan=False)
