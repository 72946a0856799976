"""What each host of a running walk does now: the ``live`` table.

A walk writes, while a command runs (:mod:`perfwalk.orchestrate.steps.live`), one
row per series and host: where the walk is (checkout, repetition, step), the command
the host runs and the last lines of its output, so that ``perfwalk status --follow``
and the pages of the site and of ``perfwalk serve`` show a test's output (a kernel
panic it printed) while it runs, from the store alone. What is kept is bounded
(:data:`TAIL_LINES` lines, :data:`TAIL_BYTES` bytes). The rows of a series are
removed when its state is set again (:meth:`perfwalk.store.series.SeriesRecords.set_series_state`):
a finished or interrupted walk does nothing now.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, select

from perfwalk.store import schema
from perfwalk.store.connect import StorePart
from perfwalk.store.walkers import Walkers

_l = schema.live
_s = schema.series

#: The output kept of a running step: its last lines, and at most this many bytes.
TAIL_LINES = 40
TAIL_BYTES = 8192


@dataclass(frozen=True, kw_only=True)
class LivePlace:
    """Where a walk is: its series, the checkout (index and commit; None: none yet),
    the repetition (None: not in one, e.g. a build) and the step."""

    series_id: int
    checkout: int | None
    commit: str
    repetition: int | None
    step: str


@dataclass(frozen=True, kw_only=True)
class LiveRow:
    """What one host of a running walk does now (or did last)."""

    series_id: int
    series_name: str
    host: str
    checkout: int | None
    commit: str
    repetition: int | None
    step: str
    command: str
    started_at: datetime
    ended_at: datetime | None  # None: the command still runs
    updated_at: datetime
    tail: str

    @property
    def running(self) -> bool:
        return self.ended_at is None

    def where(self) -> str:
        """``checkout 3 (1f0c2a9b7d3e), repetition 2, test net``: where the walk is."""
        words = []
        if self.checkout is not None:
            words.append(f"checkout {self.checkout + 1} ({self.commit[:12]})")
        if self.repetition is not None:
            words.append(f"repetition {self.repetition + 1}")
        words.append(self.step)
        return ", ".join(words)

    def since(self, now: datetime) -> float:
        """Seconds its command has run (while it runs), or since it ended, at ``now``."""
        return max(0.0, (now - (self.ended_at or self.started_at)).total_seconds())

    def tail_lines(self, most: int) -> list[str]:
        """The last ``most`` lines of the output kept."""
        return self.tail.rstrip("\n").split("\n")[-most:] if self.tail.strip() else []


def tail_of(text: str, lines: int = TAIL_LINES, size: int = TAIL_BYTES) -> str:
    """The last ``lines`` lines of ``text``, at most ``size`` characters of it."""
    kept = "\n".join(text.split("\n")[-lines:])
    return kept[-size:]


class LiveRecords(StorePart):
    """The live rows of a store; get it from :attr:`perfwalk.store.Store.live`."""

    def write(
        self,
        place: LivePlace,
        host: str,
        *,
        command: str,
        started_at: datetime,
        ended_at: datetime | None,
        updated_at: datetime,
        tail: str,
    ) -> None:
        """What ``host`` does now at ``place`` (in place of what it did before)."""
        with self._write(f"record what host {host} does in series {place.series_id}") as conn:
            conn.execute(_l.delete().where(_l.c.series_id == place.series_id, _l.c.host == host))
            conn.execute(
                _l.insert().values(
                    series_id=place.series_id,
                    host=host,
                    checkout=place.checkout,
                    commit=place.commit,
                    repetition=place.repetition,
                    step=place.step,
                    command=command,
                    started_at=started_at,
                    ended_at=ended_at,
                    updated_at=updated_at,
                    tail=tail_of(tail),
                )
            )

    def now(self, series_ids: Sequence[int] = ()) -> list[LiveRow]:
        """What the hosts of every running series do (of ``series_ids`` only, when
        given), by series then host; not those of a series whose walker is gone (a
        process of this machine that no longer runs: the walk was killed)."""
        query = (
            select(_l, _s.c.name.label("series_name"))
            .join(_s, _s.c.id == _l.c.series_id)
            .where(_s.c.state == "running")
            .order_by(_l.c.series_id, _l.c.host)
        )
        if series_ids:
            query = query.where(_l.c.series_id.in_(list(series_ids)))
        with self._read("read what the hosts of running walks do") as conn:
            rows = [_row(row) for row in conn.execute(query)]
        walkers = Walkers(self._db, self._check_open).of(sorted({r.series_id for r in rows}))
        gone = {sid for sid, walker in walkers.items() if walker.liveness() == "gone"}
        return [row for row in rows if row.series_id not in gone]


def forget(conn: Connection, series_id: int) -> None:
    """Remove the live rows of ``series_id`` (its state is set again)."""
    conn.execute(_l.delete().where(_l.c.series_id == series_id))


def _row(row: Row[Any]) -> LiveRow:
    return LiveRow(
        series_id=row.series_id,
        series_name=row.series_name,
        host=row.host,
        checkout=row.checkout,
        commit=row.commit,
        repetition=row.repetition,
        step=row.step,
        command=row.command,
        started_at=row.started_at,
        ended_at=row.ended_at,
        updated_at=row.updated_at,
        tail=row.tail,
    )
