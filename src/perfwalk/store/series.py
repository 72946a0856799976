"""The series of a store: created, found, extended, ended and read, with their quirks
and extensions.

Part of :class:`perfwalk.store.Store` (which inherits it); one call is one transaction.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Row, select

from perfwalk.limits import MAX_ID
from perfwalk.store import schema
from perfwalk.store.bulk import chunks
from perfwalk.store.extensions import extensions_of
from perfwalk.store.known_rows import KnownRows
from perfwalk.store.live import forget
from perfwalk.store.records import (
    SERIES_KINDS,
    SERIES_STATES,
    UNFINISHED_STATES,
    Measuring,
    NewSeries,
    QuirkInfo,
    SeriesKind,
    SeriesRow,
    SeriesState,
)

_s = schema.series
_q = schema.quirk


class SeriesRecords(KnownRows):
    """The series of a store; reached as methods of :class:`perfwalk.store.Store`."""

    def create_series(self, new: NewSeries) -> int:
        """Store a new series (state ``running``) with its quirks; return its id."""
        if new.kind not in SERIES_KINDS:
            raise ValueError(f"series kind must be one of {SERIES_KINDS}, not {new.kind!r}")
        with self._write(f"create series {new.name!r}") as conn:
            if new.parent_id is not None:
                self._require(conn, _s, new.parent_id, "series")
            series_id = int(
                conn.execute(
                    _s.insert()
                    .values(
                        name=new.name,
                        project=new.project,
                        repo=new.repo,
                        from_spec=new.from_spec,
                        to_spec=new.to_spec,
                        step=new.step,
                        repetitions=new.repetitions,
                        between_mode=new.between,
                        host=new.host,
                        state="running",
                        started_at=new.started_at,
                        finished_at=None,
                        config_hash=new.config_hash,
                        config_text=new.config_text,
                        commands=dict(new.commands),
                        fingerprint=dict(new.fingerprint),
                        parent_id=new.parent_id,
                        kind=new.kind,
                        planned_checkouts=new.planned_checkouts,
                        walk=new.walk,
                        variant=new.variant,
                        **_measuring_columns(new.measuring),
                    )
                    .returning(_s.c.id)
                ).scalar_one()
            )
            if new.quirks:
                conn.execute(
                    _q.insert(),
                    [
                        {
                            "series_id": series_id,
                            "letter": quirk.letter,
                            "at_date": quirk.at_date,
                            "sha": quirk.commit,
                            "comment": quirk.comment,
                        }
                        for quirk in new.quirks
                    ],
                )
        return series_id

    def find_unfinished(self, config_hash: str | None = None) -> SeriesRow | None:
        """The newest walk still ``running`` or ``interrupted`` (with that config hash).

        Drills are not resumed: a new drill of the same change reuses their values."""
        query = select(_s).where(_s.c.state.in_(UNFINISHED_STATES), _s.c.kind == "walk")
        if config_hash is not None:
            query = query.where(_s.c.config_hash == config_hash)
        query = query.order_by(_s.c.started_at.desc(), _s.c.id.desc()).limit(1)
        with self._read("find an unfinished series") as conn:
            rows = self._series_rows(conn, conn.execute(query).all())
        return rows[0] if rows else None

    def find_walk(self, project: str, walk: str) -> SeriesRow | None:
        """The series in which the named walk ``walk`` of ``project`` is continued (the
        newest, should there be several); None when the walk never ran."""
        query = (
            select(_s)
            .where(_s.c.walk == walk, _s.c.project == project, _s.c.kind == "walk")
            .order_by(_s.c.started_at.desc(), _s.c.id.desc())
            .limit(1)
        )
        with self._read(f"find the series of walk {walk!r}") as conn:
            rows = self._series_rows(conn, conn.execute(query).all())
        return rows[0] if rows else None

    def extend_series(self, series_id: int, to_spec: str, planned_checkouts: int) -> None:
        """A named walk continues series ``series_id``: it now ends at ``to_spec`` with
        ``planned_checkouts`` checkouts in all."""
        with self._write(f"extend series {series_id}") as conn:
            done = conn.execute(
                _s.update()
                .where(_s.c.id == series_id)
                .values(to_spec=to_spec, planned_checkouts=planned_checkouts)
            )
            if done.rowcount == 0:
                raise self._unknown("series", series_id)

    def set_series_state(
        self, series_id: int, state: SeriesState, finished_at: datetime | None = None
    ) -> None:
        """Set a series' state and finish time (``None`` clears it, e.g. on resume);
        what its hosts did (:mod:`perfwalk.store.live`) is forgotten."""
        if state not in SERIES_STATES:
            raise ValueError(f"series state must be one of {SERIES_STATES}, not {state!r}")
        with self._write(f"set the state of series {series_id}") as conn:
            done = conn.execute(
                _s.update().where(_s.c.id == series_id).values(state=state, finished_at=finished_at)
            )
            if done.rowcount == 0:
                raise self._unknown("series", series_id)
            forget(conn, series_id)

    def set_planned_checkouts(self, series_id: int, planned: int) -> None:
        """Say how many checkouts the walk of a series plans (a series stored without)."""
        with self._write(f"set the planned checkouts of series {series_id}") as conn:
            conn.execute(_s.update().where(_s.c.id == series_id).values(planned_checkouts=planned))

    def series(self, series_id: int) -> SeriesRow:
        """The series ``series_id``; an unknown id is a StoreError naming it."""
        if not 0 < series_id <= MAX_ID:  # no store holds it (and no driver could bind it)
            raise self._unknown("series", series_id)
        with self._read(f"read series {series_id}") as conn:
            rows = self._series_rows(
                conn, conn.execute(select(_s).where(_s.c.id == series_id)).all()
            )
        if not rows:
            raise self._unknown("series", series_id)
        return rows[0]

    def variant_series(self, series_id: int) -> list[SeriesRow]:
        """The series of the variants measured beside walk ``series_id``, oldest first."""
        query = (
            select(_s).where(_s.c.parent_id == series_id, _s.c.kind == "variant").order_by(_s.c.id)
        )
        with self._read(f"read the variants of series {series_id}") as conn:
            return self._series_rows(conn, conn.execute(query).all())

    def list_series(self) -> list[SeriesRow]:
        """Every series, newest first."""
        query = select(_s).order_by(_s.c.started_at.desc(), _s.c.id.desc())
        with self._read("list the series") as conn:
            return self._series_rows(conn, conn.execute(query).all())

    def _series_rows(self, conn: Connection, rows: Sequence[Row[Any]]) -> list[SeriesRow]:
        quirks: dict[int, list[QuirkInfo]] = defaultdict(list)
        ids = [row.id for row in rows]
        for chunk in chunks(ids):
            query = select(_q).where(_q.c.series_id.in_(chunk)).order_by(_q.c.at_date, _q.c.letter)
            for q in conn.execute(query):
                quirks[q.series_id].append(
                    QuirkInfo(letter=q.letter, at_date=q.at_date, commit=q.sha, comment=q.comment)
                )
        extended = extensions_of(conn, ids)
        return [
            SeriesRow(
                id=row.id,
                name=row.name,
                project=row.project,
                repo=row.repo,
                from_spec=row.from_spec,
                to_spec=row.to_spec,
                step=row.step,
                repetitions=row.repetitions,
                between=row.between_mode,
                host=row.host,
                state=cast(SeriesState, row.state),
                started_at=row.started_at,
                finished_at=row.finished_at,
                config_hash=row.config_hash,
                config_text=row.config_text,
                commands=dict(row.commands),
                fingerprint=dict(row.fingerprint),
                parent_id=row.parent_id,
                kind=cast(SeriesKind, row.kind),
                quirks=tuple(quirks.get(row.id, ())),
                planned_checkouts=row.planned_checkouts,
                measuring=_measuring(row),
                walk=row.walk,
                variant=row.variant,
                extensions=extended.get(row.id, ()),
            )
            for row in rows
        ]


def _measuring_columns(measuring: Measuring | None) -> dict[str, object]:
    given = measuring or Measuring()
    return {
        "order_mode": given.order,
        "seed": given.seed,
        "repetitions_max": given.repetitions_max,
        "rse_target": given.rse_target,
    }


def _measuring(row: Row[Any]) -> Measuring | None:
    """The series' order, the seed of its shuffles and adaptive repetitions; None for the
    default (checkout order, no shuffle, a fixed count)."""
    if row.order_mode == "checkout" and row.repetitions_max is None and row.seed is None:
        return None
    return Measuring(
        order=row.order_mode,
        seed=row.seed,
        repetitions_max=row.repetitions_max,
        rse_target=row.rse_target,
    )
