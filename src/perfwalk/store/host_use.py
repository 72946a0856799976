"""When each host was busy, from what the store recorded: the host-use page's reads.

A host is busy during a repetition it took part in: the series' [run] host, and every
host a step of the repetition ran on or whose machine state it read (multi-host
tests). The queue's jobs (``job_series``) say which series a worker walked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from perfwalk.store import schema
from perfwalk.store.bulk import chunks
from perfwalk.store.connect import StorePart

_r = schema.repetition
_c = schema.checkout
_s = schema.series
_st = schema.step
_m = schema.machine_state
_j = schema.job_series


@dataclass(frozen=True, kw_only=True)
class BusySpan:
    """One repetition of series ``series_id`` on ``host``: from ``started_at`` to
    ``finished_at``."""

    host: str
    series_id: int
    series_name: str
    started_at: datetime
    finished_at: datetime


class HostUse(StorePart):
    """The busy spans of every host; get it from :attr:`perfwalk.store.Store.host_use`."""

    def spans(self, since: datetime) -> list[BusySpan]:
        """Every repetition that ended at ``since`` or later, once per host it used,
        oldest first."""
        query = (
            select(
                _r.c.id,
                _r.c.started_at,
                _r.c.finished_at,
                _s.c.id.label("series_id"),
                _s.c.name,
                _s.c.host,
            )
            .join(_c, _c.c.id == _r.c.checkout_id)
            .join(_s, _s.c.id == _c.c.series_id)
            .where(_r.c.finished_at >= since)
            .order_by(_r.c.started_at, _r.c.id)
        )
        with self._read("read when the hosts were busy") as conn:
            rows = list(conn.execute(query))
            hosts: dict[int, set[str]] = {row.id: {row.host} for row in rows}
            for chunk in chunks(list(hosts)):
                for table in (_st, _m):
                    found = select(table.c.repetition_id, table.c.host).where(
                        table.c.repetition_id.in_(chunk)
                    )
                    for rep_id, host in conn.execute(found.distinct()):
                        hosts[rep_id].add(host)
        return [
            BusySpan(
                host=host,
                series_id=row.series_id,
                series_name=row.name,
                started_at=row.started_at,
                finished_at=row.finished_at,
            )
            for row in rows
            for host in sorted(hosts[row.id])
        ]

    def jobs(self, series_ids: Sequence[int]) -> dict[int, list[int]]:
        """The queue's jobs that walked each of ``series_ids`` (those that have one)."""
        found: dict[int, list[int]] = {}
        with self._read("read the jobs of series") as conn:
            for chunk in chunks(list(series_ids)):
                query = select(_j.c.job_id, _j.c.series_id).where(_j.c.series_id.in_(chunk))
                for job_id, series_id in conn.execute(query.order_by(_j.c.job_id)):
                    found.setdefault(series_id, []).append(int(job_id))
        return found
