"""The extensions of walks' series (``perfwalk run --extend``): one ``extension`` row
each, started with the repetitions per checkout its series (and its variants' series)
plan from then on, finished with the repetitions it added.

A repetition a series got from an extension is told by its id: greater than the
extension's ``last_repetition``, the id of the last repetition the store held when it
started (ids only grow; the walk of a series is its only writer).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, and_, func, or_, select

from perfwalk.store import schema
from perfwalk.store.bulk import chunks
from perfwalk.store.connect import StorePart
from perfwalk.store.records import ExtensionInfo

_e = schema.extension
_s = schema.series
_ck = schema.checkout
_rp = schema.repetition


@dataclass(frozen=True, kw_only=True)
class NewExtension:
    """An extension about to start (see :class:`perfwalk.store.records.ExtensionInfo`)."""

    series_id: int
    started_at: datetime
    repetitions_before: int
    repetitions: int
    variants: tuple[str, ...]
    variant_repetitions: int | None
    order: str
    seed: int | None
    last_repetition: int
    config_hash: str


class ExtensionRecords(StorePart):
    """The extensions of walks' series; get it from :attr:`perfwalk.store.Store.extensions`."""

    def last_repetition(self) -> int:
        """The id of the last repetition stored (0: none): an extension's mark."""
        with self._read("read the last repetition's id") as conn:
            return int(conn.scalar(select(func.max(_rp.c.id))) or 0)

    def start(self, new: NewExtension, targets: Mapping[int, int]) -> int:
        """Store a new extension and, in the same transaction, the repetitions per
        checkout each series of ``targets`` (series id → repetitions) plans from now on:
        a fixed count (an adaptive series' checkouts all get it); its id."""
        with self._write(f"extend series {new.series_id}") as conn:
            extension_id = int(
                conn.execute(
                    _e.insert()
                    .values(
                        series_id=new.series_id,
                        started_at=new.started_at,
                        finished_at=None,
                        repetitions_before=new.repetitions_before,
                        repetitions=new.repetitions,
                        variants=list(new.variants),
                        variant_repetitions=new.variant_repetitions,
                        order_mode=new.order,
                        seed=new.seed,
                        last_repetition=new.last_repetition,
                        config_hash=new.config_hash,
                        added=None,
                    )
                    .returning(_e.c.id)
                ).scalar_one()
            )
            for series_id, repetitions in targets.items():
                conn.execute(
                    _s.update()
                    .where(_s.c.id == series_id)
                    .values(repetitions=repetitions, repetitions_max=None, rse_target=None)
                )
        return extension_id

    def unfinished(self, series_id: int) -> ExtensionInfo | None:
        """The extension of ``series_id`` that did not finish (None: none)."""
        query = select(_e).where(_e.c.series_id == series_id, _e.c.finished_at.is_(None))
        with self._read(f"read the extensions of series {series_id}") as conn:
            rows = conn.execute(query.order_by(_e.c.id.desc()).limit(1)).all()
        return _info(rows[0]) if rows else None

    def unfinished_made_with(self, config_hash: str) -> ExtensionInfo | None:
        """The newest extension that did not finish, run with that configuration."""
        query = (
            select(_e)
            .where(_e.c.config_hash == config_hash, _e.c.finished_at.is_(None))
            .order_by(_e.c.started_at.desc(), _e.c.id.desc())
            .limit(1)
        )
        with self._read("find an unfinished extension") as conn:
            rows = conn.execute(query).all()
        return _info(rows[0]) if rows else None

    def finish(self, extension_id: int, finished_at: datetime) -> int:
        """Mark an extension finished with the repetitions it added to its series and
        their variants' (those its walk planned: not a change's re-measures); that
        count."""
        with self._write(f"finish extension {extension_id}") as conn:
            row = conn.execute(select(_e).where(_e.c.id == extension_id)).one()
            series_id = row.series_id
            query = (
                select(func.count())
                .select_from(_rp.join(_ck, _rp.c.checkout_id == _ck.c.id))
                .join(_s, _ck.c.series_id == _s.c.id)
                .where(
                    or_(
                        _s.c.id == series_id,
                        and_(_s.c.parent_id == series_id, _s.c.kind == "variant"),
                    ),
                    _rp.c.id > row.last_repetition,
                    _rp.c.idx < _s.c.repetitions,
                )
            )
            added = int(conn.scalar(query) or 0)
            conn.execute(
                _e.update()
                .where(_e.c.id == extension_id)
                .values(finished_at=finished_at, added=added)
            )
        return added


def extensions_of(conn: Connection, ids: Sequence[int]) -> dict[int, tuple[ExtensionInfo, ...]]:
    """The extensions of each series of ``ids``, oldest first (for its row)."""
    found: dict[int, list[ExtensionInfo]] = defaultdict(list)
    for chunk in chunks(ids):
        query = select(_e).where(_e.c.series_id.in_(chunk)).order_by(_e.c.id)
        for row in conn.execute(query):
            found[row.series_id].append(_info(row))
    return {series_id: tuple(rows) for series_id, rows in found.items()}


def _info(row: Row[Any]) -> ExtensionInfo:
    return ExtensionInfo(
        id=row.id,
        series_id=row.series_id,
        started_at=row.started_at,
        finished_at=row.finished_at,
        repetitions_before=row.repetitions_before,
        repetitions=row.repetitions,
        variants=tuple(row.variants),
        variant_repetitions=row.variant_repetitions,
        order=row.order_mode,
        seed=row.seed,
        last_repetition=row.last_repetition,
        config_hash=row.config_hash,
        added=row.added,
    )
