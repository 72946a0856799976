"""Flat reads of a series for analysis and export: its values, its results, each
test's status and the worst of all, a table at a time.

Part of :class:`perfwalk.store.Store` (which inherits it).
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import cast

from sqlalchemy import func, select

from perfwalk.model import Status
from perfwalk.store import schema
from perfwalk.store.bulk import plain_rows
from perfwalk.store.known_rows import KnownRows
from perfwalk.store.records import PassedValue, ResultSummaryRow, ValueRow

_STATUS_OF: dict[int, Status] = {int(status): status for status in Status}

_s = schema.series
_ck = schema.checkout
_rp = schema.repetition
_rs = schema.result
_v = schema.value


class FlatReads(KnownRows):
    """The flat reads of a store's series; reached as methods of
    :class:`perfwalk.store.Store`."""

    def values(
        self, series_id: int, *, limit: int | None = None, offset: int = 0
    ) -> list[ValueRow]:
        """Every value of a series, flat, ordered by checkout, repetition, result, value;
        or ``limit`` of them from the ``offset``-th on."""
        query = (
            select(
                _ck.c.id.label("checkout_id"),
                _ck.c.idx.label("checkout_idx"),
                _ck.c.sha,
                _ck.c.date,
                _rp.c.idx.label("repetition_idx"),
                _rs.c.id.label("result_id"),
                _rs.c.test,
                _rs.c.status,
                _v.c.name,
                _v.c.unit,
                _v.c.value,
                _v.c.direction,
            )
            .select_from(_v)
            .join(_rs, _v.c.result_id == _rs.c.id)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
            .order_by(_ck.c.idx, _rp.c.idx, _rs.c.id, _v.c.id)
            .limit(limit)
            .offset(offset or None)
        )
        with self._read(f"read the values of series {series_id}") as conn:
            self._require(conn, _s, series_id, "series")
            rows = conn.execute(query).all()
        status = _STATUS_OF  # tuples and a dict: this list can be 50 000 rows long
        return [
            ValueRow(
                checkout_id=checkout_id,
                checkout_idx=checkout_idx,
                sha=sha,
                date=date,
                repetition_idx=repetition_idx,
                result_id=result_id,
                test=test,
                status=status[code],
                name=name,
                unit=unit,
                value=value,
                direction=direction,
            )
            for (
                checkout_id,
                checkout_idx,
                sha,
                date,
                repetition_idx,
                result_id,
                test,
                code,
                name,
                unit,
                value,
                direction,
            ) in rows
        ]

    def passed_values(
        self,
        series_id: int,
        *,
        tests: Collection[str] | None = None,
        units: Collection[str] | None = None,
        newest: int | None = None,
    ) -> list[PassedValue]:
        """The values of the PASS results of a series, in the order of :meth:`values`,
        each a tuple ``(checkout idx, repetition idx, test, name, unit, value,
        direction)`` (NaN as :class:`~perfwalk.store.coltypes.Real` reads it): what
        change detection reads; only those of ``tests``, in ``units``, of the newest
        ``newest`` checkout indexes, when given. A long series has
        hundreds of thousands: they are fetched through the driver's cursor, without a
        record or SQLAlchemy's result processing per value (which cost more than the
        read itself)."""
        query = (
            select(
                _ck.c.idx,
                _rp.c.idx,
                _rs.c.test,
                _v.c.name,
                _v.c.unit,
                _v.c.value,
                _v.c.direction,
            )
            .select_from(_v)
            .join(_rs, _v.c.result_id == _rs.c.id)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id, _rs.c.status == int(Status.PASS))
            .order_by(_ck.c.idx, _rp.c.idx, _rs.c.id, _v.c.id)
        )
        if tests is not None:
            query = query.where(_rs.c.test.in_(sorted(tests)))
        if units is not None:
            query = query.where(_v.c.unit.in_(sorted(units)))
        if newest is not None:
            last = select(func.max(_ck.c.idx)).where(_ck.c.series_id == series_id)
            query = query.where(_ck.c.idx > last.scalar_subquery() - newest)
        with self._read(f"read the values of series {series_id}") as conn:
            self._require(conn, _s, series_id, "series")
            rows = cast(list[PassedValue], plain_rows(conn, query))
        for at, (checkout_idx, rep_idx, test, name, unit, value, direction) in enumerate(rows):
            if value is None:  # NaN (SQLite cannot store it)
                rows[at] = (checkout_idx, rep_idx, test, name, unit, math.nan, direction)
        return rows

    def results(self, series_id: int) -> list[ResultSummaryRow]:
        """Every result of a series (with or without values), flat, in stored order."""
        query = (
            select(
                _ck.c.id.label("checkout_id"),
                _ck.c.idx.label("checkout_idx"),
                _ck.c.sha,
                _ck.c.date,
                _rp.c.idx.label("repetition_idx"),
                _rs.c.id.label("result_id"),
                _rs.c.test,
                _rs.c.status,
                _rs.c.message,
                _rs.c.duration,
            )
            .select_from(_rs)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
            .order_by(_ck.c.idx, _rp.c.idx, _rs.c.id)
        )
        with self._read(f"read the results of series {series_id}") as conn:
            self._require(conn, _s, series_id, "series")
            rows = conn.execute(query).all()
        return [
            ResultSummaryRow(
                checkout_id=row.checkout_id,
                checkout_idx=row.checkout_idx,
                sha=row.sha,
                date=row.date,
                repetition_idx=row.repetition_idx,
                result_id=row.result_id,
                test=row.test,
                status=Status(row.status),
                message=row.message,
                duration=row.duration,
            )
            for row in rows
        ]

    def test_statuses(self, series_id: int) -> dict[int, dict[str, Status]]:
        """Per checkout index of a series, each test's worst status over its
        repetitions (a checkout without results is not there): one aggregate."""
        query = (
            select(_ck.c.idx, _rs.c.test, func.max(_rs.c.status).label("worst"))
            .select_from(_rs)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
            .group_by(_ck.c.idx, _rs.c.test)
        )
        found: dict[int, dict[str, Status]] = {}
        with self._read(f"read the test statuses of series {series_id}") as conn:
            for row in conn.execute(query):
                found.setdefault(row.idx, {})[row.test] = Status(row.worst)
        return found

    def worst_status(self, series_id: int) -> Status:
        """The worst status of a series: of its builds, its results and what ran between
        its repetitions (PASS when there is none). Three aggregates, whatever its length."""
        builds = select(func.max(_ck.c.build_status)).where(_ck.c.series_id == series_id)
        results = (
            select(func.max(_rs.c.status))
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
        )
        between = (
            select(func.max(_rp.c.between_status))
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
        )
        with self._read(f"read the worst status of series {series_id}") as conn:
            self._require(conn, _s, series_id, "series")
            found = [conn.scalar(query) for query in (builds, results, between)]
        return Status.worst([Status(code) for code in found if code])

    def metric_names(self, series_id: int) -> dict[int, dict[str, tuple[int, dict[str, int]]]]:
        """Per checkout index of a series and test: how many of its results passed and,
        per value name, how many of those gave it (:mod:`perfwalk.analysis.lost_values`
        reads what a parser lost there). Two aggregates, whatever its length."""
        passed = _rs.c.status == int(Status.PASS)
        results = (
            select(_ck.c.idx, _rs.c.test, func.count(_rs.c.id).label("n"))
            .select_from(_rs)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id, passed)
            .group_by(_ck.c.idx, _rs.c.test)
        )
        names = (
            select(
                _ck.c.idx,
                _rs.c.test,
                _v.c.name,
                func.count(func.distinct(_v.c.result_id)).label("n"),
            )
            .select_from(_v)
            .join(_rs, _v.c.result_id == _rs.c.id)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id, passed)
            .group_by(_ck.c.idx, _rs.c.test, _v.c.name)
        )
        found: dict[int, dict[str, tuple[int, dict[str, int]]]] = {}
        with self._read(f"read the metric names of series {series_id}") as conn:
            for idx, test, n in plain_rows(conn, results):
                found.setdefault(int(idx), {})[test] = (int(n), {})
            for idx, test, name, n in plain_rows(conn, names):
                found[int(idx)][test][1][name] = int(n)
        return found

    def produced_metrics(self, series_id: int) -> set[tuple[str, str]]:
        """Every (test, value name) a result of a series gave, whatever its status."""
        query = (
            select(_rs.c.test, _v.c.name)
            .distinct()
            .select_from(_v)
            .join(_rs, _v.c.result_id == _rs.c.id)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
        )
        with self._read(f"read the metrics of series {series_id}") as conn:
            return {(test, name) for test, name in plain_rows(conn, query)}
