"""Each walk run and watch cycle that ended: one ``run_record`` row, with when it ran
and what it added. The index's "last night" strip and ``perfwalk status`` read the
newest (:mod:`perfwalk.report.last_night`): a cron that stopped shows as a last run
long ago, not as a quiet night."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, select

from perfwalk.store import schema
from perfwalk.store.connect import StorePart

_r = schema.run_record

#: the kinds of runs recorded
WALK, WATCH = "walk", "watch"


@dataclass(frozen=True)
class RunRecord:
    """A walk run (``kind`` walk: its ``[[walk]]`` name or "", its series) or a watch
    cycle (``kind`` watch), when it started and ended, the checkouts it added and the
    index of the first of them (None: it added none)."""

    kind: str
    name: str
    series_id: int | None
    started_at: datetime
    finished_at: datetime
    checkouts: int
    first_idx: int | None


class RunRecords(StorePart):
    """The walk runs and watch cycles that ended; get it from
    :attr:`perfwalk.store.Store.runs`."""

    def add(self, record: RunRecord) -> None:
        """Record a walk run or watch cycle that ended."""
        with self._write(f"record a {record.kind} that ended") as conn:
            conn.execute(
                _r.insert().values(
                    kind=record.kind,
                    name=record.name,
                    series_id=record.series_id,
                    started_at=record.started_at,
                    finished_at=record.finished_at,
                    checkouts=record.checkouts,
                    first_idx=record.first_idx,
                )
            )

    def last(self) -> RunRecord | None:
        """The run that ended last (None: none ever did)."""
        query = select(_r).order_by(_r.c.finished_at.desc(), _r.c.id.desc()).limit(1)
        with self._read("read the last run") as conn:
            row = conn.execute(query).first()
        return None if row is None else _record(row)

    def walks_of(self, record: RunRecord) -> list[RunRecord]:
        """The walk runs of ``record``: itself for a walk, those that ran within it for
        a watch cycle, in the order they ended."""
        if record.kind != WATCH:
            return [record]
        started_at, finished_at = record.started_at, record.finished_at
        query = (
            select(_r)
            .where(
                _r.c.kind == WALK,
                _r.c.started_at >= started_at,
                _r.c.finished_at <= finished_at,
            )
            .order_by(_r.c.finished_at, _r.c.id)
        )
        with self._read("read the walks of a watch cycle") as conn:
            return [_record(row) for row in conn.execute(query)]


def _record(row: Row[Any]) -> RunRecord:
    return RunRecord(
        kind=row.kind,
        name=row.name,
        series_id=row.series_id,
        started_at=row.started_at,
        finished_at=row.finished_at,
        checkouts=row.checkouts,
        first_idx=row.first_idx,
    )
