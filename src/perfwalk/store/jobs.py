"""Team mode: which series a job of the queue walks.

A walk that runs as a job records the series it walks under the job's id as soon as
the series exists; when its worker is lost (``kill -9``, a power cut) and the queue
runs the job again, the new attempt finds that series here and continues it as
``run --resume`` would, so the walk ends with each repetition stored once.
"""

from __future__ import annotations

from sqlalchemy import select

from perfwalk.store import schema
from perfwalk.store.connect import StorePart

_j = schema.job_series


class JobSeries(StorePart):
    """The series of the jobs; get it from :attr:`perfwalk.store.Store.job_series`."""

    def record(self, job_id: int, series_id: int) -> None:
        """Job ``job_id`` walks ``series_id`` (the newest record wins)."""
        with self._write(f"record the series of job {job_id}") as conn:
            conn.execute(_j.delete().where(_j.c.job_id == job_id))
            conn.execute(_j.insert().values(job_id=job_id, series_id=series_id))

    def of(self, job_id: int) -> int | None:
        """The series job ``job_id`` walks; None when it has none yet."""
        with self._read(f"find the series of job {job_id}") as conn:
            found = conn.scalar(select(_j.c.series_id).where(_j.c.job_id == job_id))
        return None if found is None else int(found)
