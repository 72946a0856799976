"""Reparses in the store: the results of a series read as a reparse needs them (with
their logs and their roles' run outputs), their values replaced in one transaction,
and every status, message and value replaced kept, so that an undo puts them back.

A reparse (``perfwalk reparse --apply``) is a ``reparse`` row of kind ``apply``; for
each result it changed, a ``replaced_result`` row holds what the result was before.
An undo is a reparse too (kind ``undo``): it replaces the values of the results of
the newest reparse not undone yet with those that reparse replaced, keeping in turn
what it replaced, and names the reparse it undid (``undoes``; that one names it in
``undone_by``). Each checkout whose values changed names the last reparse or undo
that changed them (``checkout.reparse_id``): the site's manifest sees it, and a
publish writes those pages again. Packs are rewritten in the same transaction.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, bindparam, select

from perfwalk.errors import PerfwalkError, StoreError
from perfwalk.model import Log, Status
from perfwalk.store import logs, packs, schema
from perfwalk.store.coltypes import stored_real
from perfwalk.store.connect import StorePart
from perfwalk.store.records import DirectionName, ResultRow, StoredValue
from perfwalk.store.repetitions import result_row, stored_value
from perfwalk.store.retention import prune_columns, pruned_of

_s = schema.series
_ck = schema.checkout
_rp = schema.repetition
_rs = schema.result
_v = schema.value
_st = schema.step
_log = schema.log
_prune = schema.prune
_re = schema.reparse
_rr = schema.replaced_result

#: the kinds of a ``reparse`` row
APPLY, UNDO = "apply", "undo"
#: ids per IN list (SQLite's bound parameters are limited)
_CHUNK = 500


@dataclass(frozen=True, kw_only=True)
class StoredResult:
    """A stored result of a series as a reparse reads it: the result, where it was
    measured (its checkout's id, index and quirk letters, its repetition), and per
    role the stdout logs of the role's run commands, in the order they ran."""

    result: ResultRow
    checkout_id: int
    checkout_idx: int
    quirks: tuple[str, ...]
    repetition_idx: int
    role_logs: Mapping[str, tuple[int, ...]]


@dataclass(frozen=True)
class Replacement:
    """What result ``result_id`` becomes: its status, message and values."""

    result_id: int
    status: Status
    message: str
    values: tuple[StoredValue, ...]


@dataclass(frozen=True, kw_only=True)
class ReparseRow:
    """A stored reparse (kind ``apply``) or undo of one (kind ``undo``)."""

    id: int
    series_id: int
    kind: str
    undoes: int | None
    undone_by: int | None
    at: datetime
    who: str
    why: str
    checkouts: int
    results: int


class ReparseRecords(StorePart):
    """The reparses of a store; get it from :attr:`perfwalk.store.Store.reparses`."""

    def results(
        self,
        series_id: int,
        checkouts: Collection[int] | None = None,
        tests: Collection[str] | None = None,
    ) -> list[StoredResult]:
        """The results of the checkouts (indexes) ``checkouts`` of a series (of every
        checkout when None; of the tests ``tests`` only, unless None), by checkout,
        repetition and result."""
        query = (
            select(
                _rs,
                _ck.c.idx.label("checkout_idx"),
                _ck.c.quirks.label("checkout_quirks"),
                _rp.c.checkout_id,
                _rp.c.idx.label("repetition_idx"),
            )
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
            .order_by(_ck.c.idx, _rp.c.idx, _rs.c.id)
        )
        if checkouts is not None:
            query = query.where(_ck.c.idx.in_(list(checkouts)))
        if tests is not None:
            query = query.where(_rs.c.test.in_(list(tests)))
        with self._read(f"read the results of series {series_id}") as conn:
            rows = conn.execute(query).all()
            ids = [int(row.id) for row in rows]
            values = _values(conn, ids)
            roles = _role_logs(conn, {int(row.repetition_id) for row in rows})
        return [
            StoredResult(
                result=result_row(row, tuple(values.get(row.id, ()))),
                checkout_id=row.checkout_id,
                checkout_idx=row.checkout_idx,
                quirks=tuple(row.checkout_quirks or ()),
                repetition_idx=row.repetition_idx,
                role_logs=roles.get((row.repetition_id, row.test), {}),
            )
            for row in rows
        ]

    def logs(self, ids: Collection[int]) -> tuple[dict[int, Log], dict[int, str]]:
        """The logs ``ids``, decompressed, and why each that cannot be read cannot (one
        retention pruned, one damaged, one not in the store)."""
        found: dict[int, Log] = {}
        unreadable: dict[int, str] = {}
        with self._read("read the logs of a reparse") as conn:
            for chunk in _chunks(sorted(set(ids))):
                query = (
                    select(_log, *prune_columns())
                    .outerjoin(_prune, _prune.c.id == _log.c.prune_id)
                    .where(_log.c.id.in_(chunk))
                )
                for row in conn.execute(query):
                    pruned = pruned_of(row)
                    if pruned is not None:
                        unreadable[row.id] = pruned.said("log")
                        continue
                    try:
                        found[row.id] = logs.unpack_row(row)
                    except PerfwalkError as error:
                        unreadable[row.id] = error.message
        for missing in set(ids) - set(found) - set(unreadable):
            unreadable[missing] = f"log {missing} is not in the store"
        return found, unreadable

    def replace(
        self,
        series_id: int,
        replacements: Sequence[Replacement],
        *,
        why: str,
        who: str,
        at: datetime,
        undoes: int | None = None,
    ) -> int:
        """Give each result of ``replacements`` its new status, message and values, and
        keep what it had, in ONE transaction: a reparse (``undoes`` None) or the undo of
        the reparse ``undoes``. Its id."""
        wanted = [r.result_id for r in replacements]
        action = f"replace the values of {len(wanted)} results of series {series_id}"
        with self._write(action) as conn:
            self._require_series(conn, series_id)
            old = _current(conn, wanted)
            checkout_ids = sorted({checkout for checkout, _status, _message, _vals in old.values()})
            reparse_id = int(
                conn.execute(
                    _re.insert()
                    .values(
                        series_id=series_id,
                        kind=APPLY if undoes is None else UNDO,
                        undoes=undoes,
                        undone_by=None,
                        at=at,
                        who=who,
                        why=why,
                        checkouts=len(checkout_ids),
                        results=len(old),
                    )
                    .returning(_re.c.id)
                ).scalar_one()
            )
            kept = [r for r in replacements if r.result_id in old]
            if kept:
                conn.execute(
                    _rr.insert(),
                    [
                        {
                            "reparse_id": reparse_id,
                            "result_id": r.result_id,
                            "status": old[r.result_id][1],
                            "message": old[r.result_id][2],
                            "vals": old[r.result_id][3],
                        }
                        for r in kept
                    ],
                )
                for chunk in _chunks([r.result_id for r in kept]):
                    conn.execute(_v.delete().where(_v.c.result_id.in_(chunk)))
                rows = [
                    {
                        "result_id": r.result_id,
                        "name": v.name,
                        "unit": v.unit,
                        "value": v.value,
                        "direction": v.direction,
                    }
                    for r in kept
                    for v in r.values
                ]
                if rows:
                    conn.execute(_v.insert(), rows)
                conn.execute(
                    _rs.update()
                    .where(_rs.c.id == bindparam("rid"))
                    .values(status=bindparam("new_status"), message=bindparam("new_message")),
                    [
                        {"rid": r.result_id, "new_status": int(r.status), "new_message": r.message}
                        for r in kept
                    ],
                )
            for chunk in _chunks(checkout_ids):
                conn.execute(_ck.update().where(_ck.c.id.in_(chunk)).values(reparse_id=reparse_id))
            if undoes is not None:
                conn.execute(_re.update().where(_re.c.id == undoes).values(undone_by=reparse_id))
            for checkout_id in checkout_ids:
                packs.refresh(conn, checkout_id)
        return reparse_id

    def last_applied(self, series_id: int) -> ReparseRow | None:
        """The newest reparse of a series not undone yet (None: none)."""
        query = (
            select(_re)
            .where(_re.c.series_id == series_id, _re.c.kind == APPLY, _re.c.undone_by.is_(None))
            .order_by(_re.c.id.desc())
            .limit(1)
        )
        with self._read(f"read the reparses of series {series_id}") as conn:
            row = conn.execute(query).first()
        return None if row is None else _row(row)

    def replaced(self, reparse_id: int) -> list[Replacement]:
        """What the reparse ``reparse_id`` replaced: each result as it was before."""
        query = select(_rr).where(_rr.c.reparse_id == reparse_id).order_by(_rr.c.result_id)
        with self._read(f"read what reparse {reparse_id} replaced") as conn:
            return [
                Replacement(
                    row.result_id,
                    Status(row.status),
                    row.message,
                    tuple(_unpacked(row.vals)),
                )
                for row in conn.execute(query)
            ]

    def history(self, series_id: int) -> list[ReparseRow]:
        """Every reparse and undo of a series, the oldest first."""
        query = select(_re).where(_re.c.series_id == series_id).order_by(_re.c.id)
        with self._read(f"read the reparses of series {series_id}") as conn:
            return [_row(row) for row in conn.execute(query)]

    def _require_series(self, conn: Connection, series_id: int) -> None:
        if conn.scalar(select(_s.c.id).where(_s.c.id == series_id)) is None:
            raise StoreError(
                f"result store {self._db.shown}: no series with id {series_id}",
                hint="`perfwalk list` shows the series of the store",
            )


def _chunks(ids: Sequence[int]) -> Iterator[list[int]]:
    for start in range(0, len(ids), _CHUNK):
        yield list(ids[start : start + _CHUNK])


def _values(conn: Connection, result_ids: Sequence[int]) -> dict[int, list[StoredValue]]:
    found: dict[int, list[StoredValue]] = defaultdict(list)
    for chunk in _chunks(result_ids):
        query = select(_v).where(_v.c.result_id.in_(chunk)).order_by(_v.c.id)
        for v in conn.execute(query):
            found[v.result_id].append(stored_value(v))
    return found


def _role_logs(
    conn: Connection, repetition_ids: Collection[int]
) -> dict[tuple[int, str], dict[str, tuple[int, ...]]]:
    """Per (repetition, test), per role, the stdout logs of its run commands in order."""
    found: dict[tuple[int, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for chunk in _chunks(sorted(repetition_ids)):
        query = (
            select(_st.c.repetition_id, _st.c.test, _st.c.role, _st.c.stdout_log_id)
            .where(_st.c.repetition_id.in_(chunk), _st.c.phase == "run")
            .order_by(_st.c.repetition_id, _st.c.idx, _st.c.id)
        )
        for row in conn.execute(query):
            found[(row.repetition_id, row.test)][row.role].append(row.stdout_log_id)
    return {key: {role: tuple(ids) for role, ids in roles.items()} for key, roles in found.items()}


def _current(conn: Connection, result_ids: Sequence[int]) -> dict[int, tuple[int, int, str, Any]]:
    """Per result: its checkout's id, its status, message and values as JSON rows."""
    found: dict[int, tuple[int, int, str, Any]] = {}
    values = _values(conn, result_ids)
    for chunk in _chunks(result_ids):
        query = (
            select(_rs.c.id, _rs.c.status, _rs.c.message, _rp.c.checkout_id)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .where(_rs.c.id.in_(chunk))
        )
        for row in conn.execute(query):
            packed = [_packed(v) for v in values.get(row.id, ())]
            found[row.id] = (row.checkout_id, row.status, row.message, packed)
    return found


def _packed(value: StoredValue) -> list[Any]:
    return [value.name, value.unit, stored_real(value.value), value.direction]


def _unpacked(rows: Sequence[Sequence[Any]]) -> Iterator[StoredValue]:
    for name, unit, number, direction in rows:
        yield StoredValue(
            name=name,
            unit=unit,
            value=math.nan if number is None else float(number),
            direction=cast(DirectionName, direction),
        )


def _row(row: Any) -> ReparseRow:
    return ReparseRow(
        id=row.id,
        series_id=row.series_id,
        kind=row.kind,
        undoes=row.undoes,
        undone_by=row.undone_by,
        at=row.at,
        who=row.who,
        why=row.why,
        checkouts=row.checkouts,
        results=row.results,
    )
