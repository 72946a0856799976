"""The result store: every series, checkout, repetition, result, value and log.

Writes are whole: one call is one transaction, so a killed run loses at most the
repetition in flight. Reads fetch a table at a time (joins and IN lists), never a
row at a time, so a series of 50 000 values is one query.
"""

from __future__ import annotations

import math
import uuid
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Row, func, select

from perfwalk.errors import StoreError
from perfwalk.limits import MAX_ID
from perfwalk.model import Checkout, Commit, Log, MachineState, Status
from perfwalk.store import logs, packs, schema
from perfwalk.store.build_facts import BuildFactRecords
from perfwalk.store.bulk import chunks, insert_or_keep, insert_returning_ids, plain_rows
from perfwalk.store.commits import git_commit_ids
from perfwalk.store.conduct import ConductRecords
from perfwalk.store.confirmations import Confirmations
from perfwalk.store.connect import Connected, Database
from perfwalk.store.drills import DrillRecords
from perfwalk.store.jobs import JobSeries
from perfwalk.store.leases import Leases
from perfwalk.store.machine import insert_state, series_states
from perfwalk.store.modifiers import AppliedModifiers
from perfwalk.store.opening import open_database
from perfwalk.store.outbox import Outbox
from perfwalk.store.phase_steps import FETCH, insert_steps, read_steps
from perfwalk.store.profiles import ProfileRecords
from perfwalk.store.pushes import PushRecords
from perfwalk.store.records import (
    SERIES_KINDS,
    SERIES_STATES,
    UNFINISHED_STATES,
    CheckoutRow,
    DirectionName,
    Measuring,
    NewRepetition,
    NewSeries,
    PassedValue,
    QuirkInfo,
    QuirkRunRow,
    RepetitionRow,
    ResultRow,
    ResultSummaryRow,
    SeriesKind,
    SeriesRow,
    SeriesState,
    SnapshotRow,
    StepRow,
    StoredValue,
    ValueRow,
    stored_commit,
    stored_direction,
)
from perfwalk.store.regress import RegressRecords
from perfwalk.store.run_records import RunRecords
from perfwalk.store.seen import SeenChanges
from perfwalk.store.site_reads import SiteReads
from perfwalk.store.snapshots import insert_snapshots, read_snapshots
from perfwalk.store.tokens import TokenRecords
from perfwalk.store.triage import TriageRecords
from perfwalk.store.tries import TryRecords
from perfwalk.store.walkers import Walkers

_STATUS_OF: dict[int, Status] = {int(status): status for status in Status}

_s = schema.series
_q = schema.quirk
_gc = schema.git_commit
_ck = schema.checkout
_cc = schema.checkout_commit
_qr = schema.quirk_run
_rp = schema.repetition
_rs = schema.result
_v = schema.value
_log = schema.log
_meta = schema.meta

#: The key in ``meta`` of the store's own id (see :meth:`Store.store_id`).
STORE_ID_KEY = "store_id"


class Store(Connected):
    """A result store behind a SQLAlchemy URL; see :meth:`open`."""

    def __init__(self, db: Database, schema_version: int) -> None:
        """Use :meth:`open`."""
        super().__init__(db)
        self._schema_version = schema_version

    # -- life cycle ---------------------------------------------------------------

    @classmethod
    def open(cls, url: str, *, read_only: bool = False) -> Store:
        """Open the store at ``url``, creating or upgrading its schema.

        ``url`` is ``sqlite:///path`` or ``postgresql+psycopg://user:pw@host/db``.
        A bad URL, an unreachable server, an unwritable file or a store from a newer
        perfwalk is a :class:`StoreError` that names the URL (without its password).
        ``read_only``: for the commands that only read; nothing is written, and the
        store may be on read-only media (see :mod:`perfwalk.store.opening`).
        """
        db, version = open_database(url, read_only=read_only)
        return cls(db, version)

    @property
    def schema_version(self) -> int:
        return self._schema_version

    def store_id(self) -> str:
        """This store's own id: a random UUID (32 hex digits) kept in the store, made on
        first use. It tells stores apart where their URLs cannot (a path and a link to
        it, two names of one server): walks of different stores build in different
        worktrees (:meth:`perfwalk.git.worktree.Worktrees.for_series`)."""
        query = select(_meta.c.value).where(_meta.c.key == STORE_ID_KEY)
        with self._read("read the store id") as conn:
            found = conn.scalar(query)
        if found:
            return str(found)
        with self._write("give the store its id") as conn:
            insert = insert_or_keep(conn)
            conn.execute(
                insert(_meta)
                .values(key=STORE_ID_KEY, value=uuid.uuid4().hex)
                .on_conflict_do_nothing(index_elements=["key"])
            )
            return str(conn.scalar(query))  # ours, or the one a concurrent writer made first

    @property
    def leases(self) -> Leases:
        """The host leases of this store (:mod:`perfwalk.store.leases`)."""
        return Leases(self._db, self._check_open)

    @property
    def site(self) -> SiteReads:
        """The reads of the published site (:mod:`perfwalk.store.site_reads`)."""
        return SiteReads(self._db, self._check_open)

    @property
    def conduct(self) -> ConductRecords:
        """The conductor runs of this store (:mod:`perfwalk.store.conduct`)."""
        return ConductRecords(self._db, self._check_open)

    @property
    def job_series(self) -> JobSeries:
        """The series of the queue's jobs (:mod:`perfwalk.store.jobs`)."""
        return JobSeries(self._db, self._check_open)

    @property
    def walkers(self) -> Walkers:
        """Who walks each series (:mod:`perfwalk.store.walkers`)."""
        return Walkers(self._db, self._check_open)

    @property
    def modifiers(self) -> AppliedModifiers:
        """The variants' runtime modifiers in place on hosts (:mod:`perfwalk.store.modifiers`)."""
        return AppliedModifiers(self._db, self._check_open)

    @property
    def drills(self) -> DrillRecords:
        """The drills of this store (:mod:`perfwalk.store.drills`)."""
        return DrillRecords(self._db, self._check_open)

    @property
    def build_facts(self) -> BuildFactRecords:
        """What each checkout really ran (:mod:`perfwalk.store.build_facts`)."""
        return BuildFactRecords(self._db, self._check_open)

    @property
    def profiles(self) -> ProfileRecords:
        """The profiles of this store (:mod:`perfwalk.store.profiles`)."""
        return ProfileRecords(self._db, self._check_open)

    @property
    def tries(self) -> TryRecords:
        """The tries of this store (:mod:`perfwalk.store.tries`)."""
        return TryRecords(self._db, self._check_open)

    @property
    def runs(self) -> RunRecords:
        """The walk runs and watch cycles that ended (:mod:`perfwalk.store.run_records`)."""
        return RunRecords(self._db, self._check_open)

    @property
    def seen(self) -> SeenChanges:
        """The changes watch cycles have seen (:mod:`perfwalk.store.seen`)."""
        return SeenChanges(self._db, self._check_open)

    @property
    def outbox(self) -> Outbox:
        """The messages telling new changes (:mod:`perfwalk.store.outbox`)."""
        return Outbox(self._db, self._check_open)

    @property
    def triage(self) -> TriageRecords:
        """The triage of the changes, with its history (:mod:`perfwalk.store.triage`)."""
        return TriageRecords(self._db, self._check_open)

    @property
    def confirmations(self) -> Confirmations:
        """The re-measures of changes (:mod:`perfwalk.store.confirmations`)."""
        return Confirmations(self._db, self._check_open)

    @property
    def tokens(self) -> TokenRecords:
        """The tokens of the HTTP API, as digests (:mod:`perfwalk.store.tokens`)."""
        return TokenRecords(self._db, self._check_open)

    @property
    def pushes(self) -> PushRecords:
        """The results pushed through the HTTP API (:mod:`perfwalk.store.pushes`)."""
        return PushRecords(self._db, self._check_open)

    @property
    def regress(self) -> RegressRecords:
        """The regress runs of this store (:mod:`perfwalk.store.regress`)."""
        return RegressRecords(self._db, self._check_open)

    def _unknown(self, what: str, ident: int) -> StoreError:
        return StoreError(
            f"result store {self._db.shown}: no {what} with id {ident}",
            hint="list the series of the store to find the right id",
        )

    # -- series -------------------------------------------------------------------

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
        """Set a series' state and finish time (``None`` clears it, e.g. on resume)."""
        if state not in SERIES_STATES:
            raise ValueError(f"series state must be one of {SERIES_STATES}, not {state!r}")
        with self._write(f"set the state of series {series_id}") as conn:
            done = conn.execute(
                _s.update().where(_s.c.id == series_id).values(state=state, finished_at=finished_at)
            )
            if done.rowcount == 0:
                raise self._unknown("series", series_id)

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
            )
            for row in rows
        ]

    # -- checkouts ----------------------------------------------------------------

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
        query = select(_ck, count, claimed).where(_ck.c.series_id == series_id).order_by(_ck.c.idx)
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

    # -- repetitions --------------------------------------------------------------

    def add_repetition(self, checkout_id: int, rep: NewRepetition) -> int:
        """Store a repetition with its results, values and logs in ONE transaction.

        Either all of it is stored or nothing. A repetition already stored at that
        index is a StoreError (check :meth:`done_repetitions` first).
        """
        directions = [[stored_direction(d) for _, d in result.values] for result in rep.results]
        secrets = self._db.log_secrets
        packed = [logs.pack(rep.between_log, secrets)] if rep.between_log is not None else []
        for result in rep.results:
            packed += [logs.pack(result.stdout, secrets), logs.pack(result.stderr, secrets)]
        action = f"store repetition {rep.idx} of checkout {checkout_id}"
        with self._write(action) as conn:
            self._require(conn, _ck, checkout_id, "checkout")
            taken = conn.scalar(
                select(_rp.c.id).where(_rp.c.checkout_id == checkout_id, _rp.c.idx == rep.idx)
            )
            if taken is not None:
                raise StoreError(
                    f"result store {self._db.shown}: repetition {rep.idx} of checkout "
                    f"{checkout_id} is already stored",
                    hint="a resumed run skips the repetitions done_repetitions() reports",
                )
            log_ids = _insert_logs(conn, packed)
            between_log_id = log_ids.pop(0) if rep.between_log is not None else None
            repetition_id = int(
                conn.execute(
                    _rp.insert()
                    .values(
                        checkout_id=checkout_id,
                        idx=rep.idx,
                        started_at=rep.started_at,
                        finished_at=rep.finished_at,
                        between_status=None
                        if rep.between_status is None
                        else int(rep.between_status),
                        between_log_id=between_log_id,
                    )
                    .returning(_rp.c.id)
                ).scalar_one()
            )
            if rep.results:
                result_ids = insert_returning_ids(
                    conn,
                    _rs,
                    [
                        result.row(repetition_id, log_ids[2 * i], log_ids[2 * i + 1])
                        for i, result in enumerate(rep.results)
                    ],
                )
                value_params = [
                    {
                        "result_id": result_id,
                        "name": value.name,
                        "unit": value.unit,
                        "value": value.value,
                        "direction": direction,
                    }
                    for result, result_id, dirs in zip(
                        rep.results, result_ids, directions, strict=True
                    )
                    for (value, _), direction in zip(result.values, dirs, strict=True)
                ]
                if value_params:
                    conn.execute(_v.insert(), value_params)
            insert_steps(conn, rep.steps, secrets, repetition_id=repetition_id)
            insert_snapshots(conn, repetition_id, rep.snapshots)
            for host, state in sorted(rep.machines.items()):
                insert_state(conn, repetition_id, host, state)
            packs.refresh(conn, checkout_id)
        return repetition_id

    def machine_states(self, series_id: int) -> dict[tuple[int, int], dict[str, MachineState]]:
        """The machine's state of every repetition of a series that has one, by
        (checkout idx, repetition idx): the state of each of its hosts, by host name."""
        with self._read(f"read the machine states of series {series_id}") as conn:
            self._require(conn, _s, series_id, "series")
            return series_states(conn, series_id)

    def steps(self, repetition_id: int) -> list[StepRow]:
        """The phase steps of a repetition (multi-host tests, reboots), in the order run."""
        with self._read(f"read the steps of repetition {repetition_id}") as conn:
            return read_steps(conn, schema.step.c.repetition_id == repetition_id)

    def snapshots(self, repetition_id: int) -> list[SnapshotRow]:
        """The counters of the [[snapshot]]s around the tests of a repetition, in the
        order stored."""
        with self._read(f"read the snapshots of repetition {repetition_id}") as conn:
            return read_snapshots(conn, schema.snapshot.c.repetition_id == repetition_id)

    def artifacts(self, repetition_id: int) -> list[StepRow]:
        """The files fetched from the hosts in a repetition; the bytes are the stdout log."""
        return [row for row in self.steps(repetition_id) if row.kind == FETCH]

    def done_repetitions(self, series_id: int) -> set[tuple[int, int]]:
        """(checkout idx, repetition idx) of every stored repetition of a series."""
        query = (
            select(_ck.c.idx.label("checkout_idx"), _rp.c.idx.label("repetition_idx"))
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
        )
        with self._read(f"read the repetitions of series {series_id}") as conn:
            self._require(conn, _s, series_id, "series")
            return {(row.checkout_idx, row.repetition_idx) for row in conn.execute(query)}

    def recent_repetitions(self, series_id: int, last: int) -> list[tuple[datetime, datetime]]:
        """(started, finished) of the ``last`` repetitions of a series to finish, the
        newest first: the pace of a walk that runs."""
        query = (
            select(_rp.c.started_at, _rp.c.finished_at)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
            .order_by(_rp.c.finished_at.desc(), _rp.c.id.desc())
            .limit(last)
        )
        with self._read(f"read the repetitions of series {series_id}") as conn:
            return [(row.started_at, row.finished_at) for row in conn.execute(query)]

    def repetitions(self, checkout_id: int) -> list[RepetitionRow]:
        """The repetitions of a checkout in index order, with results and values.

        Three queries (repetitions, results, values), whatever their number.
        """
        reps_query = select(_rp).where(_rp.c.checkout_id == checkout_id).order_by(_rp.c.idx)
        results_query = (
            select(_rs)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .where(_rp.c.checkout_id == checkout_id)
            .order_by(_rs.c.id)
        )
        values_query = (
            select(_v)
            .join(_rs, _v.c.result_id == _rs.c.id)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .where(_rp.c.checkout_id == checkout_id)
            .order_by(_v.c.id)
        )
        with self._read(f"read the repetitions of checkout {checkout_id}") as conn:
            self._require(conn, _ck, checkout_id, "checkout")
            reps = conn.execute(reps_query).all()
            results = conn.execute(results_query).all()
            values: dict[int, list[StoredValue]] = defaultdict(list)
            for v in conn.execute(values_query):
                values[v.result_id].append(
                    StoredValue(
                        name=v.name,
                        unit=v.unit,
                        value=v.value,
                        direction=cast(DirectionName, v.direction),
                    )
                )
        by_rep: dict[int, list[ResultRow]] = defaultdict(list)
        for r in results:
            by_rep[r.repetition_id].append(
                ResultRow(
                    id=r.id,
                    test=r.test,
                    status=Status(r.status),
                    message=r.message,
                    duration=r.duration,
                    exit_code=r.exit_code,
                    command=r.command,
                    stdout_log_id=r.stdout_log_id,
                    stderr_log_id=r.stderr_log_id,
                    values=tuple(values.get(r.id, ())),
                    role=r.role,
                    host=r.host,
                )
            )
        return [
            RepetitionRow(
                id=rep.id,
                checkout_id=rep.checkout_id,
                idx=rep.idx,
                started_at=rep.started_at,
                finished_at=rep.finished_at,
                between_status=_status_or_none(rep.between_status),
                between_log_id=rep.between_log_id,
                results=tuple(by_rep.get(rep.id, ())),
            )
            for rep in reps
        ]

    # -- flat reads for analysis and export ----------------------------------------

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

    def passed_values(self, series_id: int) -> list[PassedValue]:
        """The values of the PASS results of a series, in the order of :meth:`values`,
        each a tuple ``(checkout idx, repetition idx, test, name, unit, value,
        direction)`` (NaN as :class:`~perfwalk.store.coltypes.Real` reads it): what
        change detection reads. A long series has hundreds of thousands: they are
        fetched through the driver's cursor, without a record or SQLAlchemy's result
        processing per value (which cost more than the read itself)."""
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

    def log(self, log_id: int) -> Log:
        """The log ``log_id``, decompressed; an unknown id is a StoreError naming it."""
        with self._read(f"read log {log_id}") as conn:
            row = conn.execute(select(_log).where(_log.c.id == log_id)).first()
        if row is None:
            raise self._unknown("log", log_id)
        return logs.unpack(
            row.id,
            compression=row.compression,
            data=row.data,
            size=row.size,
            total=row.total,
            truncated=row.truncated,
        )

    # -- helpers ------------------------------------------------------------------

    def _require(self, conn: Connection, table: Any, ident: int, what: str) -> None:
        if conn.scalar(select(table.c.id).where(table.c.id == ident)) is None:
            raise self._unknown(what, ident)


def _status_or_none(status: int | None) -> Status | None:
    return None if status is None else Status(status)


def _insert_log(conn: Connection, log: Log, secrets: Sequence[bytes]) -> int:
    return _insert_logs(conn, [logs.pack(log, secrets)])[0]


def _insert_logs(conn: Connection, packed: list[dict[str, Any]]) -> list[int]:
    return insert_returning_ids(conn, _log, packed)


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
