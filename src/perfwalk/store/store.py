"""The result store: every series, checkout, repetition, result, value and log.

Writes are whole: one call is one transaction, so a killed run loses at most the
repetition in flight. Reads fetch a table at a time (joins and IN lists), never a
row at a time, so a series of 50 000 values is one query.

:class:`Store` is its series (:mod:`perfwalk.store.series`), their checkouts
(:mod:`perfwalk.store.checkouts`), repetitions (:mod:`perfwalk.store.repetitions`)
and flat reads (:mod:`perfwalk.store.flat_reads`) in one; each further concern is a
part reached as an attribute (its drills, leases, triage…).
"""

from __future__ import annotations

import uuid

from sqlalchemy import select

from perfwalk.model import Log
from perfwalk.store import logs, schema
from perfwalk.store.build_facts import BuildFactRecords
from perfwalk.store.bulk import insert_or_keep
from perfwalk.store.checkouts import CheckoutRecords
from perfwalk.store.conduct import ConductRecords
from perfwalk.store.confirmations import Confirmations
from perfwalk.store.connect import Connected, Database
from perfwalk.store.drills import DrillRecords
from perfwalk.store.env_drills import EnvDrillRecords
from perfwalk.store.extensions import ExtensionRecords
from perfwalk.store.flat_reads import FlatReads
from perfwalk.store.histograms import HistogramRecords
from perfwalk.store.jobs import JobSeries
from perfwalk.store.leases import Leases
from perfwalk.store.modifiers import AppliedModifiers
from perfwalk.store.opening import open_database
from perfwalk.store.outbox import Outbox
from perfwalk.store.parser_losses import ParserLosses
from perfwalk.store.profiles import ProfileRecords
from perfwalk.store.proofs import ProofRecords
from perfwalk.store.pushes import PushRecords
from perfwalk.store.regress import RegressRecords
from perfwalk.store.reparses import ReparseRecords
from perfwalk.store.repetitions import RepetitionRecords
from perfwalk.store.retention import Retention, prune_columns, pruned_of
from perfwalk.store.run_records import RunRecords
from perfwalk.store.seen import SeenChanges
from perfwalk.store.series import SeriesRecords
from perfwalk.store.site_reads import SiteReads
from perfwalk.store.tokens import TokenRecords
from perfwalk.store.triage import TriageRecords
from perfwalk.store.tries import TryRecords
from perfwalk.store.walkers import Walkers

_log = schema.log
_prune = schema.prune
_meta = schema.meta

#: The key in ``meta`` of the store's own id (see :meth:`Store.store_id`).
STORE_ID_KEY = "store_id"


class Store(SeriesRecords, CheckoutRecords, RepetitionRecords, FlatReads, Connected):
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
    def extensions(self) -> ExtensionRecords:
        """The extensions of walks' series (:mod:`perfwalk.store.extensions`)."""
        return ExtensionRecords(self._db, self._check_open)

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
    def env_drills(self) -> EnvDrillRecords:
        """The environment drills of this store (:mod:`perfwalk.store.env_drills`)."""
        return EnvDrillRecords(self._db, self._check_open)

    @property
    def proofs(self) -> ProofRecords:
        """The proofs of drills' culprits on later tips (:mod:`perfwalk.store.proofs`)."""
        return ProofRecords(self._db, self._check_open)

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

    @property
    def histograms(self) -> HistogramRecords:
        """The histograms the results of each series reported whole
        (:mod:`perfwalk.store.histograms`)."""
        return HistogramRecords(self._db, self._check_open)

    @property
    def parser_losses(self) -> ParserLosses:
        """The values the parsers of each series lost, by checkout
        (:mod:`perfwalk.store.parser_losses`)."""
        return ParserLosses(self._db, self._check_open)

    @property
    def reparses(self) -> ReparseRecords:
        """The reparses of this store's series, with what each replaced
        (:mod:`perfwalk.store.reparses`)."""
        return ReparseRecords(self._db, self._check_open)

    @property
    def retention(self) -> Retention:
        """What retention could drop, and dropping it (:mod:`perfwalk.store.retention`)."""
        return Retention(self._db, self._check_open)

    # -- logs ---------------------------------------------------------------------

    def log(self, log_id: int) -> Log:
        """The log ``log_id``, decompressed (a log pruned by retention: empty, with its
        :class:`~perfwalk.model.Pruned`); an unknown id is a StoreError naming it."""
        query = (
            select(_log, *prune_columns())
            .outerjoin(_prune, _prune.c.id == _log.c.prune_id)
            .where(_log.c.id == log_id)
        )
        with self._read(f"read log {log_id}") as conn:
            row = conn.execute(query).first()
        if row is None:
            raise self._unknown("log", log_id)
        pruned = pruned_of(row)
        if pruned is not None:
            return Log(data=b"", total=int(row.total), truncated=bool(row.truncated), pruned=pruned)
        return logs.unpack_row(row)
