"""The checkouts of a series: each with its commits since the previous one, its build
and the quirks applied to it.

Part of :class:`perfwalk.store.Store` (which inherits it); one call is one transaction.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import Connection, func, select

from perfwalk.errors import StoreError
from perfwalk.model import Checkout, Commit, Log, Status
from perfwalk.store import logs, schema
from perfwalk.store.bulk import insert_returning_ids
from perfwalk.store.commits import git_commit_ids
from perfwalk.store.known_rows import KnownRows
from perfwalk.store.records import CheckoutRow, QuirkRunRow, stored_commit
from perfwalk.store.retention import prune_columns, pruned_of

_s = schema.series
_gc = schema.git_commit
_ck = schema.checkout
_cc = schema.checkout_commit
_qr = schema.quirk_run
_log = schema.log
_pr = schema.prune


class CheckoutRecords(KnownRows):
    """The checkouts of a store; reached as methods of :class:`perfwalk.store.Store`."""

    def add_checkout(self, series_id: int, checkout: Checkout) -> int:
        """Store a checkout and the commits since the previous one; return its id.

        Idempotent: a checkout already stored at that index returns its id unchanged
        (a different commit there means the history changed: StoreError).
        """
        action = f"store checkout {checkout.index} of series {series_id}"
        with self._write(action) as conn:
            project = conn.scalar(select(_s.c.project).where(_s.c.id == series_id))
            if project is None:
                raise self._unknown("series", series_id)
            existing = conn.execute(
                select(_ck.c.id, _ck.c.sha).where(
                    _ck.c.series_id == series_id, _ck.c.idx == checkout.index
                )
            ).first()
            if existing is not None:
                if existing.sha != checkout.commit:
                    raise StoreError(
                        f"result store {self._db.shown}: checkout {checkout.index} of series "
                        f"{series_id} is commit {existing.sha}, not {checkout.commit}",
                        hint="the history changed since the series started: start a new series",
                    )
                return int(existing.id)
            checkout_id = int(
                conn.execute(
                    _ck.insert()
                    .values(
                        series_id=series_id,
                        idx=checkout.index,
                        sha=checkout.commit,
                        date=checkout.date,
                        quirks=list(checkout.quirks),
                        build_status=None,
                        build_seconds=None,
                        build_log_id=None,
                    )
                    .returning(_ck.c.id)
                ).scalar_one()
            )
            if checkout.since:
                ids = git_commit_ids(conn, str(project), checkout.since)
                conn.execute(
                    _cc.insert(),
                    [
                        {"checkout_id": checkout_id, "position": pos, "commit_id": ids[commit.id]}
                        for pos, commit in enumerate(checkout.since)
                    ],
                )
        return checkout_id

    def set_commits_since(self, checkout_id: int, since: Sequence[Commit]) -> None:
        """Replace the commits since the previous checkout of a stored checkout (an
        adaptive walk measured a checkout before it after it)."""
        with self._write(f"store the commits of checkout {checkout_id}") as conn:
            project = conn.scalar(
                select(_s.c.project)
                .join(_ck, _ck.c.series_id == _s.c.id)
                .where(_ck.c.id == checkout_id)
            )
            if project is None:
                raise self._unknown("checkout", checkout_id)
            conn.execute(_cc.delete().where(_cc.c.checkout_id == checkout_id))
            ids = git_commit_ids(conn, str(project), since)
            conn.execute(
                _cc.insert(),
                [
                    {"checkout_id": checkout_id, "position": pos, "commit_id": ids[commit.id]}
                    for pos, commit in enumerate(since)
                ],
            )

    def plan_repetitions(self, checkout_id: int, repetitions: int) -> None:
        """Plan ``repetitions`` at a stored checkout, more than its series' (an adaptive
        walk's, where its level was not clear): they are its own, not a change's
        re-measures."""
        with self._write(f"plan the repetitions of checkout {checkout_id}") as conn:
            self._require(conn, _ck, checkout_id, "checkout")
            conn.execute(
                _ck.update().where(_ck.c.id == checkout_id).values(planned_repetitions=repetitions)
            )

    def set_build(self, checkout_id: int, status: Status, seconds: float | None, log: Log) -> None:
        """Record how building a checkout went (replaces an earlier attempt)."""
        with self._write(f"store the build of checkout {checkout_id}") as conn:
            old = conn.execute(select(_ck.c.build_log_id).where(_ck.c.id == checkout_id)).first()
            if old is None:
                raise self._unknown("checkout", checkout_id)
            log_id = _insert_log(conn, log, self._db.log_secrets)
            conn.execute(
                _ck.update()
                .where(_ck.c.id == checkout_id)
                .values(build_status=int(status), build_seconds=seconds, build_log_id=log_id)
            )
            if old.build_log_id is not None:
                conn.execute(_log.delete().where(_log.c.id == old.build_log_id))

    def add_quirk_run(self, checkout_id: int, letter: str, status: Status, log: Log) -> None:
        """Record applying quirk ``letter`` at a checkout (replaces an earlier attempt)."""
        with self._write(f"store quirk {letter} of checkout {checkout_id}") as conn:
            self._require(conn, _ck, checkout_id, "checkout")
            old = conn.execute(
                select(_qr.c.id, _qr.c.log_id).where(
                    _qr.c.checkout_id == checkout_id, _qr.c.letter == letter
                )
            ).first()
            if old is not None:
                conn.execute(_qr.delete().where(_qr.c.id == old.id))
                conn.execute(_log.delete().where(_log.c.id == old.log_id))
            conn.execute(
                _qr.insert().values(
                    checkout_id=checkout_id,
                    letter=letter,
                    status=int(status),
                    log_id=_insert_log(conn, log, self._db.log_secrets),
                )
            )

    def checkouts(self, series_id: int) -> list[CheckoutRow]:
        """The checkouts of a series in index order, with build, quirks and commit counts."""
        count = (
            select(func.count())
            .select_from(_cc)
            .where(_cc.c.checkout_id == _ck.c.id)
            .scalar_subquery()
            .label("commit_count")
        )
        claimed = (
            select(func.count())
            .select_from(_cc.join(_gc, _gc.c.id == _cc.c.commit_id))
            .where(_cc.c.checkout_id == _ck.c.id, _gc.c.pushed)
            .scalar_subquery()
            .label("claimed")
        )
        query = (
            select(_ck, count, claimed, *prune_columns())
            .outerjoin(_pr, _pr.c.id == _ck.c.prune_id)
            .where(_ck.c.series_id == series_id)
            .order_by(_ck.c.idx)
        )
        runs_query = (
            select(_qr.c.checkout_id, _qr.c.letter, _qr.c.status, _qr.c.log_id)
            .join(_ck, _qr.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
            .order_by(_qr.c.checkout_id, _qr.c.letter)
        )
        with self._read(f"read the checkouts of series {series_id}") as conn:
            self._require(conn, _s, series_id, "series")
            rows = conn.execute(query).all()
            runs: dict[int, list[QuirkRunRow]] = defaultdict(list)
            for run in conn.execute(runs_query):
                runs[run.checkout_id].append(
                    QuirkRunRow(letter=run.letter, status=Status(run.status), log_id=run.log_id)
                )
        return [
            CheckoutRow(
                id=row.id,
                series_id=row.series_id,
                idx=row.idx,
                sha=row.sha,
                date=row.date,
                quirks=tuple(row.quirks),
                build_status=None if row.build_status is None else Status(row.build_status),
                build_seconds=row.build_seconds,
                build_log_id=row.build_log_id,
                commit_count=int(row.commit_count),
                claimed=int(row.claimed),
                quirk_runs=tuple(runs.get(row.id, ())),
                pruned=pruned_of(row),
                planned_repetitions=row.planned_repetitions,
            )
            for row in rows
        ]

    def commits_since(self, checkout_id: int) -> list[Commit]:
        """The commits since the previous checkout, in the order the walk gave them."""
        query = (
            select(_gc)
            .join(_cc, _cc.c.commit_id == _gc.c.id)
            .where(_cc.c.checkout_id == checkout_id)
            .order_by(_cc.c.position)
        )
        with self._read(f"read the commits of checkout {checkout_id}") as conn:
            self._require(conn, _ck, checkout_id, "checkout")
            rows = conn.execute(query).all()
        return [stored_commit(row) for row in rows]


def _insert_log(conn: Connection, log: Log, secrets: Sequence[bytes]) -> int:
    return insert_returning_ids(conn, _log, [logs.pack(log, secrets)])[0]
