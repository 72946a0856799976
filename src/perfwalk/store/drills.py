"""Drills in the store: one ``drill`` row per drill series (a series of kind
``drill`` whose ``parent_id`` is the series where the change was found).

The row holds what is narrowed (``change``: the parent's checkouts around it and
the size seen there), the test and value, every step the drill took in order (a
step is written as soon as its repetitions are stored, so a drill stopped in the
middle keeps what it tried) and, at the end, the verdict with its evidence.
The values themselves are ordinary repetitions of the drill series.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, func, select

from perfwalk.errors import StoreError
from perfwalk.model import Status
from perfwalk.store import schema
from perfwalk.store.connect import StorePart

#: the kinds of series whose values a drill reuses: those that measure the plain checkout
PLAIN_KINDS = ("walk", "drill")

_d = schema.drill
_s = schema.series
_ck = schema.checkout
_rp = schema.repetition
_rs = schema.result
_v = schema.value


@dataclass(frozen=True, kw_only=True)
class DrillRow:
    """A stored drill: its series, what it narrows, its steps and (when done) its answer."""

    series_id: int
    test: str
    name: str
    change: dict[str, Any]
    verdict: str | None  # None while it runs (or when it was stopped)
    answer: dict[str, Any] | None
    steps: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Provenance:
    """Whose values a drill may reuse: the same project, host and configuration."""

    project: str
    host: str
    config_hash: str


class DrillRecords(StorePart):
    """The drills of a store; get it from :attr:`perfwalk.store.Store.drills`."""

    def start(self, series_id: int, test: str, name: str, change: Mapping[str, Any]) -> None:
        """Record that series ``series_id`` drills ``test``.``name`` across ``change``."""
        with self._write(f"store the drill of series {series_id}") as conn:
            conn.execute(
                _d.insert().values(
                    series_id=series_id,
                    test=test,
                    name=name,
                    change=dict(change),
                    verdict=None,
                    answer=None,
                    steps=[],
                )
            )

    def add_step(self, series_id: int, step: Mapping[str, Any]) -> None:
        """Append one step (a commit tried, what was asked and what it brought)."""
        with self._write(f"store a step of the drill of series {series_id}") as conn:
            steps = conn.scalar(select(_d.c.steps).where(_d.c.series_id == series_id))
            if steps is None:
                raise self._unknown(series_id)
            conn.execute(
                _d.update().where(_d.c.series_id == series_id).values(steps=[*steps, dict(step)])
            )

    def finish(self, series_id: int, verdict: str, answer: Mapping[str, Any]) -> None:
        """Store the answer; the series' repetitions become the most run at one commit."""
        with self._write(f"store the answer of the drill of series {series_id}") as conn:
            done = conn.execute(
                _d.update()
                .where(_d.c.series_id == series_id)
                .values(verdict=verdict, answer=dict(answer))
            )
            if done.rowcount == 0:
                raise self._unknown(series_id)
            per_commit = (
                select(func.count(_rp.c.id).label("n"))
                .select_from(_rp)
                .join(_ck, _rp.c.checkout_id == _ck.c.id)
                .where(_ck.c.series_id == series_id)
                .group_by(_ck.c.id)
                .subquery()
            )
            most = conn.scalar(select(func.max(per_commit.c.n))) or 0
            conn.execute(_s.update().where(_s.c.id == series_id).values(repetitions=most))

    def get(self, series_id: int) -> DrillRow | None:
        with self._read(f"read the drill of series {series_id}") as conn:
            row = conn.execute(select(_d).where(_d.c.series_id == series_id)).first()
        return None if row is None else _row(row)

    def all(self) -> list[DrillRow]:
        """Every drill, oldest first."""
        with self._read("read the drills") as conn:
            return [_row(row) for row in conn.execute(select(_d).order_by(_d.c.series_id))]

    def values_at(
        self,
        shas: Sequence[str],
        test: str,
        name: str,
        provenance: Provenance,
        *,
        exclude_series: int | None = None,
    ) -> dict[str, list[float]]:
        """The PASS values of ``test``.``name`` already stored at each of ``shas``, in
        any series of the same project, host and configuration that measured the plain
        checkout (walks and drills: a walk's variant, kind ``variant``, measured the
        same commit patched or modified, and a try's side may be patched)."""
        query = (
            select(_ck.c.sha, _v.c.value)
            .select_from(_v)
            .join(_rs, _v.c.result_id == _rs.c.id)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .join(_s, _ck.c.series_id == _s.c.id)
            .where(
                _s.c.project == provenance.project,
                _s.c.host == provenance.host,
                _s.c.config_hash == provenance.config_hash,
                _s.c.kind.in_(PLAIN_KINDS),
                _ck.c.sha.in_(list(shas)),
                _rs.c.test == test,
                _rs.c.status == int(Status.PASS),
                _v.c.name == name,
            )
            .order_by(_s.c.id, _ck.c.idx, _rp.c.idx, _v.c.id)
        )
        if exclude_series is not None:
            query = query.where(_s.c.id != exclude_series)
        found: dict[str, list[float]] = defaultdict(list)
        with self._read(f"read the stored values of {test}.{name}") as conn:
            for sha, value in conn.execute(query):
                found[sha].append(float(value))
        return dict(found)

    def measured_unit(self, series_id: int, test: str, name: str) -> str:
        """The unit of ``test``.``name`` as series ``series_id`` measured it ("" when it
        has no value of it)."""
        query = (
            select(_v.c.unit)
            .select_from(_v)
            .join(_rs, _v.c.result_id == _rs.c.id)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id, _rs.c.test == test, _v.c.name == name)
            .limit(1)
        )
        with self._read(f"read the unit of {test}.{name} in series {series_id}") as conn:
            return str(conn.scalar(query) or "")

    def _unknown(self, series_id: int) -> StoreError:
        return StoreError(
            f"result store {self._db.shown}: series {series_id} is not a drill",
            hint="`perfwalk list` shows the series and their kinds",
        )


def _row(row: Row[Any]) -> DrillRow:
    return DrillRow(
        series_id=int(row.series_id),
        test=row.test,
        name=row.name,
        change=dict(row.change),
        verdict=row.verdict,
        answer=None if row.answer is None else dict(row.answer),
        steps=tuple(dict(step) for step in row.steps),
    )
