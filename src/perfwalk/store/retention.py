"""Retention in the store: the outputs of each checkout that ``perfwalk prune`` may
drop (its logs and its profiles' stacks), dropping them, and the space given back.

A pruned log keeps its row, its id and its sizes (``size``, ``total``: what it held),
its ``data`` emptied and ``prune_id`` naming the prune (the ``prune`` table: when,
by which rule): every result, step, quirk run and build that points at it still
does, and says "pruned on … (retention: …)" instead of a broken link. A pruned
profile keeps its row, samples and values, its stacks emptied. A checkout's
``prune_id`` names the last prune that dropped some of its outputs: what the site
and ``perfwalk show`` say of it, and what makes a publish write its pages again.

Only the outputs of a series' checkouts are dropped: builds, quirk runs, the commands
between repetitions, each result's standard output and error, each phase step's
outputs. A checkout's symbol list and its difference are kept (the analysis reads
them), as are the regress matrix's and the conductor's logs. A checkout's logs and
profiles are dropped in one transaction, with the prune's counts: a prune stopped
midway leaves every checkout whole, either pruned or kept, and its ``finished_at``
NULL.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Select, func, select, text, union_all

from perfwalk.model import Pruned
from perfwalk.store import schema
from perfwalk.store.connect import SQLITE_BUSY_TIMEOUT_MS, StorePart

_pr = schema.prune
_log = schema.log
_ck = schema.checkout
_qr = schema.quirk_run
_rp = schema.repetition
_rs = schema.result
_st = schema.step
_pf = schema.profile


@dataclass(frozen=True)
class CheckoutOutputs:
    """What retention could drop at one checkout: its logs with content not pruned yet
    and its profiles with stacks, each with their stored (compressed) bytes; and when it
    was measured (its last repetition's end; a checkout without repetitions, a failed
    build, the start of the first repetition measured after it; None: not known, as
    new as the newest)."""

    checkout_id: int
    series_id: int
    idx: int
    sha: str
    measured_at: datetime | None
    logs: int
    log_bytes: int
    profiles: int
    profile_bytes: int

    @property
    def bytes(self) -> int:
        return self.log_bytes + self.profile_bytes


@dataclass(frozen=True)
class Dropped:
    """What one transaction of a prune dropped."""

    checkouts: int = 0
    logs: int = 0
    profiles: int = 0
    bytes: int = 0


@dataclass(frozen=True)
class PruneRow:
    """A prune applied to the store: when, by which rule, what it dropped so far;
    ``finished_at`` None while it runs or when it was stopped."""

    id: int
    started_at: datetime
    finished_at: datetime | None
    rule: str
    dropped: Dropped

    @property
    def pruned(self) -> Pruned:
        return Pruned(self.started_at, self.rule)


@dataclass(frozen=True)
class Reclaimed:
    """The space a store gave back: its size before and after (bytes) and how;
    ``pending``: a SQLite store read meanwhile keeps its write-ahead log, which holds
    the file rewritten, until its readers are done (the file shrinks then)."""

    before: int
    after: int
    how: str
    pending: bool = False


class Retention(StorePart):
    """The retention of a store's outputs; get it from :attr:`perfwalk.store.Store.retention`."""

    def outputs(self, series_ids: Collection[int] | None = None) -> list[CheckoutOutputs]:
        """Every checkout (of ``series_ids`` only, when given) with what retention could
        still drop there, by series and index."""
        scope = [] if series_ids is None else [_ck.c.series_id.in_(sorted(series_ids))]
        pairs = checkout_logs(*scope).subquery()
        logs = (
            select(pairs.c.checkout_id, func.count(), func.sum(func.length(_log.c.data)))
            .join(_log, _log.c.id == pairs.c.log_id)
            .where(_log.c.prune_id.is_(None), _log.c.size > 0)
            .group_by(pairs.c.checkout_id)
        )
        profiles = (
            select(_pf.c.checkout_id, func.count(), func.sum(func.length(_pf.c.stacks)))
            .join(_ck, _ck.c.id == _pf.c.checkout_id)
            .where(_pf.c.prune_id.is_(None), _pf.c.samples > 0, *scope)
            .group_by(_pf.c.checkout_id)
        )
        times = (
            select(_rp.c.checkout_id, func.max(_rp.c.finished_at), func.min(_rp.c.started_at))
            .join(_ck, _ck.c.id == _rp.c.checkout_id)
            .where(*scope)
            .group_by(_rp.c.checkout_id)
        )
        checkouts = select(_ck.c.id, _ck.c.series_id, _ck.c.idx, _ck.c.sha).where(*scope)
        with self._read("read the outputs retention could drop") as conn:
            log_sums = {int(c): (int(n), int(b or 0)) for c, n, b in conn.execute(logs)}
            profile_sums = {int(c): (int(n), int(b or 0)) for c, n, b in conn.execute(profiles)}
            spans = {int(c): (end, start) for c, end, start in conn.execute(times)}
            rows = sorted(conn.execute(checkouts).all(), key=lambda r: (r.series_id, r.idx))
        found: list[CheckoutOutputs] = []
        later_start: datetime | None = None  # the first start after, in the same series
        for row in reversed(rows):
            if found and found[-1].series_id != row.series_id:
                later_start = None
            end, start = spans.get(int(row.id), (None, None))
            logs_n, logs_b = log_sums.get(int(row.id), (0, 0))
            profiles_n, profiles_b = profile_sums.get(int(row.id), (0, 0))
            found.append(
                CheckoutOutputs(
                    checkout_id=int(row.id),
                    series_id=int(row.series_id),
                    idx=int(row.idx),
                    sha=str(row.sha),
                    measured_at=end if end is not None else later_start,
                    logs=logs_n,
                    log_bytes=logs_b,
                    profiles=profiles_n,
                    profile_bytes=profiles_b,
                )
            )
            if start is not None and (later_start is None or start < later_start):
                later_start = start
        return found[::-1]

    def start(self, rule: str, at: datetime) -> int:
        """Record a prune by ``rule`` that starts at ``at``; its id."""
        with self._write("record a prune") as conn:
            query = (
                _pr.insert()
                .values(started_at=at, rule=rule, checkouts=0, logs=0, profiles=0, bytes=0)
                .returning(_pr.c.id)
            )
            return int(conn.execute(query).scalar_one())

    def drop(self, prune_id: int, checkout_ids: Sequence[int]) -> Dropped:
        """Drop the logs and profiles of ``checkout_ids`` not pruned yet, in one
        transaction that also marks the checkouts where it dropped something and adds
        to the prune's counts."""
        if not checkout_ids:
            return Dropped()
        chosen = sorted(set(checkout_ids))
        own = checkout_logs(_ck.c.id.in_(chosen)).subquery()
        logs = (_log.c.id.in_(select(own.c.log_id)), _log.c.prune_id.is_(None), _log.c.size > 0)
        profiles = (_pf.c.checkout_id.in_(chosen), _pf.c.prune_id.is_(None), _pf.c.samples > 0)
        with self._write(f"prune the outputs of {len(chosen)} checkouts") as conn:
            log_n, log_b = conn.execute(
                select(func.count(), func.sum(func.length(_log.c.data))).where(*logs)
            ).one()
            profile_n, profile_b = conn.execute(
                select(func.count(), func.sum(func.length(_pf.c.stacks))).where(*profiles)
            ).one()
            touched = {
                int(at)
                for (at,) in conn.execute(
                    union_all(
                        select(own.c.checkout_id)
                        .join(_log, _log.c.id == own.c.log_id)
                        .where(*logs),
                        select(_pf.c.checkout_id).where(*profiles),
                    )
                )
            }
            conn.execute(_log.update().where(*logs).values(data=b"", prune_id=prune_id))
            conn.execute(_pf.update().where(*profiles).values(stacks=b"", prune_id=prune_id))
            conn.execute(_ck.update().where(_ck.c.id.in_(touched)).values(prune_id=prune_id))
            done = Dropped(
                len(touched), int(log_n), int(profile_n), int(log_b or 0) + int(profile_b or 0)
            )
            conn.execute(
                _pr.update()
                .where(_pr.c.id == prune_id)
                .values(
                    checkouts=_pr.c.checkouts + done.checkouts,
                    logs=_pr.c.logs + done.logs,
                    profiles=_pr.c.profiles + done.profiles,
                    bytes=_pr.c.bytes + done.bytes,
                )
            )
        return done

    def finish(self, prune_id: int, at: datetime) -> None:
        """Record that prune ``prune_id`` ended at ``at``."""
        with self._write(f"record the end of prune {prune_id}") as conn:
            conn.execute(_pr.update().where(_pr.c.id == prune_id).values(finished_at=at))

    def prunes(self) -> list[PruneRow]:
        """Every prune applied to the store, oldest first."""
        with self._read("read the prunes") as conn:
            return prune_rows(conn)

    def reclaim(self) -> Reclaimed:
        """Give the space of what was pruned back: a SQLite file is rewritten smaller
        (VACUUM, then its write-ahead log emptied); PostgreSQL's VACUUM of the two
        tables makes the space free for the store's next rows (the files seldom
        shrink: VACUUM FULL would lock the tables)."""
        db = self._db
        before = self._size()
        self._check_open()
        raw = db.engine.raw_connection()  # outside any transaction, as VACUUM must be
        pending = False
        try:
            with db.read("reclaim the space of the pruned outputs"):  # its errors
                if db.backend != "sqlite":
                    raw.dbapi_connection.autocommit = True  # type: ignore[union-attr]
                cursor = raw.cursor()
                try:
                    if db.backend == "sqlite":
                        cursor.execute("VACUUM")
                        cursor.execute("PRAGMA busy_timeout = 0")  # a reader: not waited for
                        busy, _pages, _done = cursor.execute(
                            "PRAGMA wal_checkpoint(TRUNCATE)"
                        ).fetchone()
                        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
                        pending = bool(busy)
                    else:
                        cursor.execute("VACUUM log, profile")
                finally:
                    cursor.close()
        finally:
            if db.backend != "sqlite":
                raw.dbapi_connection.autocommit = False  # type: ignore[union-attr]
            raw.close()
        how = "VACUUM" if db.backend == "sqlite" else "VACUUM of the log and profile tables"
        return Reclaimed(before, self._size(), how, pending)

    def _size(self) -> int:
        """The store's size: a SQLite file with its write-ahead log; PostgreSQL's log
        and profile tables with their TOAST and indexes."""
        if self._db.backend == "sqlite":
            path = self._db.engine.url.database or ""
            return sum(
                Path(name).stat().st_size
                for name in (path, f"{path}-wal")
                if path and Path(name).exists()
            )
        query = text(
            "SELECT pg_total_relation_size('log'::regclass)"
            " + pg_total_relation_size('profile'::regclass)"
        )
        with self._read("measure the store") as conn:
            return int(conn.execute(query).scalar_one())


def prune_rows(conn: Connection) -> list[PruneRow]:
    """Every prune applied to the store behind ``conn``, oldest first."""
    return [
        PruneRow(
            id=int(row.id),
            started_at=row.started_at,
            finished_at=row.finished_at,
            rule=row.rule,
            dropped=Dropped(int(row.checkouts), int(row.logs), int(row.profiles), int(row.bytes)),
        )
        for row in conn.execute(select(_pr).order_by(_pr.c.id))
    ]


def pruned_of(row: Any) -> Pruned | None:
    """The :class:`Pruned` of a row read with :func:`prune_columns`; None: kept."""
    at = row.pruned_at
    return None if at is None else Pruned(at, str(row.pruned_rule))


def prune_columns() -> tuple[Any, Any]:
    """The columns that say when and by which rule a row was pruned (read with an outer
    join of ``prune`` on the row's ``prune_id``: :func:`pruned_of` makes them one)."""
    return _pr.c.started_at.label("pruned_at"), _pr.c.rule.label("pruned_rule")


def checkout_logs(*where: Any) -> Select[Any]:
    """(checkout_id, log_id) of every output of the checkouts ``where`` selects: its
    build and quirk runs, each command between its repetitions, each result's standard
    output and error, each phase step's (what the site shows of a checkout, and what
    retention drops)."""
    by_rep = (_rp, _ck.c.id == _rp.c.checkout_id)
    parts = [
        select(_ck.c.id.label("checkout_id"), _ck.c.build_log_id.label("log_id")).where(
            _ck.c.build_log_id.is_not(None), *where
        ),
        select(_ck.c.id, _qr.c.log_id).join(_qr, _qr.c.checkout_id == _ck.c.id).where(*where),
        select(_ck.c.id, _rp.c.between_log_id)
        .join(*by_rep)
        .where(_rp.c.between_log_id.is_not(None), *where),
    ]
    for table, key in ((_rs, _rs.c.repetition_id), (_st, _st.c.repetition_id)):
        for column in (table.c.stdout_log_id, table.c.stderr_log_id):
            parts.append(
                select(_ck.c.id, column).join(*by_rep).join(table, key == _rp.c.id).where(*where)
            )
    return union_all(*parts)  # type: ignore[return-value]
