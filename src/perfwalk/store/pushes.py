"""Results made elsewhere (a CI job's benchmark file), pushed through the HTTP API.

Pushed results feed a series of kind ``push``, one per project, branch and host (the
``push_target`` row names it), so that change detection, ``perfwalk changes`` and the
site see them as they see a walk's:

- one checkout per commit: the first push of a commit makes it, placed by its commit
  date (a push of an older commit than the newest is placed before the newer ones,
  whose indexes move up by one), with the commit itself as its one commit since the
  previous checkout (a push does not know the history in between);
- one repetition per push of that commit: a second push of a commit adds a
  repetition to its checkout, never a new checkout;
- a result per pushed test, its values, and the pushed file as its output log.

A push is one transaction (on PostgreSQL under an advisory lock, so that concurrent
pushes to the same branch and host find the same series and commit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, select, text

from perfwalk.errors import StoreError
from perfwalk.model import Commit
from perfwalk.store import logs, packs, schema
from perfwalk.store.bulk import insert_returning_ids, insert_rows
from perfwalk.store.coltypes import safe_text, stored_real
from perfwalk.store.commits import git_commit_ids, pushed_commit_id
from perfwalk.store.connect import StorePart
from perfwalk.store.records import DirectionName, NewResult, stored_direction

_s = schema.series
_pt = schema.push_target
_ck = schema.checkout
_cc = schema.checkout_commit
_rp = schema.repetition
_rs = schema.result
_v = schema.value
_t = schema.api_token

#: Key of the PostgreSQL advisory lock that serialises pushes ("push").
_PG_PUSH_LOCK = 0x70757368
#: The kind of the series pushed results feed.
PUSH_KIND = "push"


@dataclass(frozen=True, kw_only=True)
class NewPush:
    """One pushed file: where it was measured (project, branch, host), at which commit,
    when, and its results (one per test) with the file as their output."""

    project: str
    branch: str
    host: str
    commit: Commit  # its date places the checkout among the others
    #: ``commit`` is what git says of it (the API's clone of the project knows it),
    #: not what the push claimed: stored as a walk stores it
    told_by_git: bool = False
    results: tuple[NewResult, ...]
    started_at: datetime
    finished_at: datetime
    #: the digest of the API token that pushed it: stored only if that token still
    #: exists when the push is committed (:class:`TokenGone` otherwise); None: no token
    token_digest: str | None = None


class TokenGone(StoreError):
    """A push whose token was revoked before it could be committed: nothing stored."""


class TooManySeries(StoreError):
    """A push that would make one more push series than its project may have:
    nothing stored."""


@dataclass(frozen=True, kw_only=True)
class PushedRow:
    """Where a push was stored: its series, checkout (id and index) and repetition."""

    series_id: int
    checkout_id: int
    checkout_idx: int
    repetition_idx: int
    new_series: bool
    new_checkout: bool
    values: int


class PushRecords(StorePart):
    """The pushed results of a store; get it from :attr:`perfwalk.store.Store.pushes`."""

    def add(self, push: NewPush, *, most_series: int | None = None) -> PushedRow:
        """Store ``push`` as a repetition of its commit's checkout (made when new) in
        the push series of its project, branch and host (made when new: unless its
        project has ``most_series`` push series already, :class:`TooManySeries`)."""
        return self.add_many([push], most_series=most_series)[0]

    def add_many(
        self, pushes: Sequence[NewPush], *, most_series: int | None = None
    ) -> list[PushedRow]:
        """Store ``pushes`` in one transaction, in their order, as :meth:`add` stores
        each (the same rows as one after the other); the pack of each checkout they
        reach is written once (its new repetitions added to it). All are stored, or
        (an error) none."""
        secrets = self._db.log_secrets
        packed = [
            [
                part
                for result in push.results
                for part in (logs.pack(result.stdout, secrets), logs.pack(result.stderr, secrets))
            ]
            for push in pushes
        ]
        first = pushes[0]
        action = (
            f"store a push of commit {first.commit.id} ({first.branch} on {first.host})"
            if len(pushes) == 1
            else f"store {len(pushes)} pushes"
        )
        with self._write(action) as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_PUSH_LOCK})
            _check_tokens(conn, pushes, self._db.shown)
            done, new = _add_all(conn, pushes, packed, most_series)
            for checkout_id in new.reps:
                packs.extend(conn, checkout_id, new)
        return done

    def series_of(self, project: str, branch: str, host: str) -> int | None:
        """The push series of ``project``, ``branch`` and ``host``; None: none yet."""
        query = select(_pt.c.series_id).where(
            _pt.c.project == project, _pt.c.branch == branch, _pt.c.host == host
        )
        with self._read("find a push series") as conn:
            found = conn.scalar(query)
        return None if found is None else int(found)


def _check_tokens(conn: Connection, pushes: Sequence[NewPush], shown: str) -> None:
    """:class:`TokenGone` unless the token of each push that names one still exists
    (read in the push's transaction: a token revoked before it is refused)."""
    wanted = {push.token_digest for push in pushes if push.token_digest is not None}
    if not wanted:
        return
    known = set(conn.execute(select(_t.c.digest).where(_t.c.digest.in_(wanted))).scalars())
    if wanted - known:
        raise TokenGone(
            f"result store {shown}: the token of a push was revoked before it was stored",
            hint="push again with a token that `perfwalk tokens list` shows",
        )


def _add_all(
    conn: Connection,
    pushes: Sequence[NewPush],
    packed: list[list[dict[str, Any]]],
    most_series: int | None,
) -> tuple[list[PushedRow], packs.NewRows]:
    """Store ``pushes`` within the open transaction ``conn`` (their packs aside): each
    series, checkout and next repetition index found once for the lot, then the rows
    of every kind inserted together. Where each was stored, and the rows stored (for
    their packs)."""
    series_ids: dict[tuple[str, str, str], int] = {}
    # series id -> commit -> [checkout id, index]: indexes move up as the lot places
    # older commits before them
    places: dict[int, dict[str, list[int]]] = {}
    next_rep: dict[int, int] = {}
    placed: list[tuple[int, bool, int, int, bool, int]] = []
    for push in pushes:
        key = (push.project, push.branch, push.host)
        new_series = key not in series_ids
        if new_series:
            series_ids[key], new_series = _target(conn, push, most_series)
        series_id = series_ids[key]
        known = places.setdefault(series_id, {})
        place = known.get(push.commit.id)
        new_checkout = place is None
        if place is None:
            checkout_id, idx, new_checkout, first_rep = _checkout(conn, series_id, push)
            next_rep[checkout_id] = first_rep
            if new_checkout:
                for other in known.values():
                    if other[1] >= idx:
                        other[1] += 1
            place = known[push.commit.id] = [checkout_id, idx]
        checkout_id, checkout_idx = place
        rep_idx = next_rep[checkout_id]
        next_rep[checkout_id] += 1
        placed.append((series_id, new_series, checkout_id, checkout_idx, new_checkout, rep_idx))
    repetition_ids = insert_returning_ids(
        conn,
        _rp,
        [
            {
                "checkout_id": checkout_id,
                "idx": rep_idx,
                "started_at": push.started_at,
                "finished_at": push.finished_at,
                "between_status": None,
                "between_log_id": None,
            }
            for push, (_s_id, _new_s, checkout_id, _c_idx, _new_c, rep_idx) in zip(
                pushes, placed, strict=True
            )
        ],
    )
    log_ids = iter(insert_returning_ids(conn, schema.log, [row for rows in packed for row in rows]))
    new = packs.NewRows()
    result_rows: list[dict[str, Any]] = []
    for push, repetition_id, (_s_id, _new_s, checkout_id, _c_idx, new_checkout, rep_idx) in zip(
        pushes, repetition_ids, placed, strict=True
    ):
        new.reps.setdefault(checkout_id, []).append((rep_idx, repetition_id, None, None))
        if new_checkout:
            new.made.add(checkout_id)
        result_rows.extend(
            result.row(repetition_id, next(log_ids), next(log_ids)) for result in push.results
        )
    result_ids = iter(insert_returning_ids(conn, _rs, result_rows))
    rows = iter(result_rows)
    values: list[tuple[int, str, str, float | None, DirectionName]] = []
    counts: list[int] = []
    for push, (_s_id, _new_s, checkout_id, _c_idx, _new_c, rep_idx) in zip(
        pushes, placed, strict=True
    ):
        before = len(values)
        for result in push.results:
            result_id, row = next(result_ids), next(rows)
            new.results.setdefault(checkout_id, []).append(
                (
                    result_id,
                    rep_idx,
                    safe_text(row["test"]),
                    row["status"],
                    safe_text(row["message"]),
                    row["duration"],
                    row["exit_code"],
                    row["stdout_log_id"],
                    row["stderr_log_id"],
                )
            )
            stored = [
                (
                    result_id,
                    safe_text(value.name),
                    safe_text(value.unit),
                    stored_real(value.value),
                    stored_direction(direction),
                )
                for value, direction in result.values
            ]
            new.values[result_id] = [
                (name, unit, direction, number) for _id, name, unit, number, direction in stored
            ]
            values.extend(stored)
        counts.append(len(values) - before)
    insert_rows(conn, _v, ("result_id", "name", "unit", "value", "direction"), values)
    last = {series_id: push for push, (series_id, *_rest) in zip(pushes, placed, strict=True)}
    for series_id, push in last.items():
        conn.execute(
            _s.update()
            .where(_s.c.id == series_id)
            .values(finished_at=push.finished_at, to_spec=push.branch)
        )
    return [
        PushedRow(
            series_id=series_id,
            checkout_id=checkout_id,
            checkout_idx=checkout_idx,
            repetition_idx=rep_idx,
            new_series=new_series,
            new_checkout=new_checkout,
            values=count,
        )
        for (series_id, new_series, checkout_id, checkout_idx, new_checkout, rep_idx), count in zip(
            placed, counts, strict=True
        )
    ], new


def _target(conn: Connection, push: NewPush, most: int | None) -> tuple[int, bool]:
    """The push series of the push's project, branch and host, made when new (unless
    the project has ``most`` push series already: :class:`TooManySeries`)."""
    found = conn.scalar(
        select(_pt.c.series_id).where(
            _pt.c.project == push.project, _pt.c.branch == push.branch, _pt.c.host == push.host
        )
    )
    if found is not None:
        return int(found), False
    if most is not None:
        count = conn.scalar(select(func.count()).where(_pt.c.project == push.project)) or 0
        if count >= most:
            raise TooManySeries(
                f"project {push.project!r} has {count} push series (a branch and host each), "
                f"the most [api] push_series allows: a push to branch {push.branch!r} on "
                f"host {push.host!r} would make one more",
                hint="push to a branch and host that have a series (`perfwalk list` shows "
                "them), or raise [api] push_series in the API's configuration",
            )
    series_id = int(
        conn.execute(
            _s.insert()
            .values(
                name=f"{push.branch} on {push.host}",
                project=push.project,
                repo="",
                from_spec="",
                to_spec=push.branch,
                step=PUSH_KIND,
                repetitions=1,
                between_mode="none",
                host=push.host,
                state="finished",
                started_at=push.started_at,
                finished_at=push.finished_at,
                config_hash="",
                config_text="",
                commands={},
                fingerprint={},
                parent_id=None,
                kind=PUSH_KIND,
                planned_checkouts=None,
                order_mode="checkout",
            )
            .returning(_s.c.id)
        ).scalar_one()
    )
    conn.execute(
        _pt.insert().values(
            series_id=series_id, project=push.project, branch=push.branch, host=push.host
        )
    )
    return series_id, True


def _checkout(conn: Connection, series_id: int, push: NewPush) -> tuple[int, int, bool, int]:
    """(id, index, made now, index of its next repetition) of the checkout of the
    push's commit in the series: made when new, at its place in commit-date order
    (later checkouts move up by one)."""
    commit = push.commit
    next_rep = (
        select(func.coalesce(func.max(_rp.c.idx) + 1, 0))
        .where(_rp.c.checkout_id == _ck.c.id)
        .scalar_subquery()
    )
    found = conn.execute(
        select(_ck.c.id, _ck.c.idx, next_rep).where(
            _ck.c.series_id == series_id, _ck.c.sha == commit.id
        )
    ).first()
    if found is not None:
        if push.told_by_git:  # git's words over an earlier push's claim
            git_commit_ids(conn, push.project, [commit])
        return int(found[0]), int(found[1]), False, int(found[2])
    rows = conn.execute(
        select(_ck.c.idx, _ck.c.date).where(_ck.c.series_id == series_id).order_by(_ck.c.idx)
    ).all()
    at = len(rows)
    for row in rows:  # the first checkout committed after this one
        if row.date > commit.date:
            at = int(row.idx)
            break
    if at < len(rows):  # in two steps: the unique (series, idx) holds after each
        later = (_ck.c.series_id == series_id) & (_ck.c.idx >= at)
        conn.execute(_ck.update().where(later).values(idx=-(_ck.c.idx + 1)))
        conn.execute(
            _ck.update()
            .where((_ck.c.series_id == series_id) & (_ck.c.idx < 0))
            .values(idx=-_ck.c.idx)
        )
    checkout_id = int(
        conn.execute(
            _ck.insert()
            .values(
                series_id=series_id,
                idx=at,
                sha=commit.id,
                date=commit.date,
                quirks=[],
                build_status=None,
                build_seconds=None,
                build_log_id=None,
            )
            .returning(_ck.c.id)
        ).scalar_one()
    )
    commit_id = (
        git_commit_ids(conn, push.project, [commit])[commit.id]
        if push.told_by_git
        else pushed_commit_id(conn, push.project, commit)
    )
    conn.execute(_cc.insert().values(checkout_id=checkout_id, position=0, commit_id=commit_id))
    return checkout_id, at, True, 0
