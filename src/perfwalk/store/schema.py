"""The tables of the result store as the code queries them.

Migrating an empty database to :data:`perfwalk.store.migrations.LATEST_VERSION`
creates exactly these.

A change here needs a new migration step; ``tests/store/test_migrations.py``
checks that migrating an empty database gives these tables and columns.

Layout: a ``series`` (one walk) has ``checkout`` s; a checkout has the commits since
the previous one (``checkout_commit`` → ``git_commit``, shared by all series of a
project), a build outcome, ``quirk_run`` s and ``repetition`` s; a repetition has
``result`` s (one per test) and a result has ``value`` s. Every captured output is a
``log`` row (zlib-compressed), referenced by id.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from perfwalk.store.coltypes import ID, Real, SafeText, UTCDateTime

metadata = MetaData()

meta = Table(
    "meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

series = Table(
    "series",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("name", SafeText, nullable=False),
    Column("project", SafeText, nullable=False),
    Column("repo", SafeText, nullable=False),
    Column("from_spec", SafeText, nullable=False),
    Column("to_spec", SafeText, nullable=False),
    Column("step", String(32), nullable=False),
    Column("repetitions", Integer, nullable=False),
    Column("between_mode", SafeText, nullable=False),
    Column("host", SafeText, nullable=False),
    Column("state", String(16), nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=True),
    Column("config_hash", String(128), nullable=False),
    Column("config_text", SafeText, nullable=False),
    Column("commands", JSON, nullable=False),
    Column("fingerprint", JSON, nullable=False),
    Column("parent_id", ID, ForeignKey("series.id"), nullable=True),
    Column("kind", String(16), nullable=False),
    Index("ix_series_state_started", "state", "started_at"),
    Index("ix_series_parent", "parent_id"),
)

quirk = Table(
    "quirk",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("series_id", ID, ForeignKey("series.id"), nullable=False),
    Column("letter", String(16), nullable=False),
    Column("at_date", UTCDateTime, nullable=False),
    Column("sha", String(64), nullable=True),
    Column("comment", SafeText, nullable=False),
    UniqueConstraint("series_id", "letter", name="uq_quirk_series_letter"),
)

git_commit = Table(
    "git_commit",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("project", SafeText, nullable=False),
    Column("sha", String(64), nullable=False),
    Column("date", UTCDateTime, nullable=False),
    Column("tz_offset", Integer, nullable=False),  # minutes east of UTC, as git recorded
    Column("author", SafeText, nullable=False),
    Column("subject", SafeText, nullable=False),
    Column("body", SafeText, nullable=False),
    Column("files", JSON, nullable=False),
    UniqueConstraint("project", "sha", name="uq_git_commit_project_sha"),
)

log = Table(
    "log",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("compression", String(16), nullable=False),
    Column("data", LargeBinary, nullable=False),
    Column("size", ID, nullable=False),  # bytes kept (uncompressed length of data)
    Column("total", ID, nullable=False),  # bytes the process produced
    Column("truncated", Boolean, nullable=False),
    sqlite_autoincrement=True,  # replaced logs are deleted: never reuse their ids
)

checkout = Table(
    "checkout",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("series_id", ID, ForeignKey("series.id"), nullable=False),
    Column("idx", Integer, nullable=False),
    Column("sha", String(64), nullable=False),
    Column("date", UTCDateTime, nullable=False),
    Column("quirks", JSON, nullable=False),
    Column("build_status", Integer, nullable=True),
    Column("build_seconds", Double, nullable=True),
    Column("build_log_id", ID, ForeignKey("log.id"), nullable=True),
    UniqueConstraint("series_id", "idx", name="uq_checkout_series_idx"),
)

checkout_commit = Table(
    "checkout_commit",
    metadata,
    Column("checkout_id", ID, ForeignKey("checkout.id"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("commit_id", ID, ForeignKey("git_commit.id"), nullable=False),
    PrimaryKeyConstraint("checkout_id", "position", name="pk_checkout_commit"),
    Index("ix_checkout_commit_commit", "commit_id"),
)

quirk_run = Table(
    "quirk_run",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("checkout_id", ID, ForeignKey("checkout.id"), nullable=False),
    Column("letter", String(16), nullable=False),
    Column("status", Integer, nullable=False),
    Column("log_id", ID, ForeignKey("log.id"), nullable=False),
    UniqueConstraint("checkout_id", "letter", name="uq_quirk_run_checkout_letter"),
)

repetition = Table(
    "repetition",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("checkout_id", ID, ForeignKey("checkout.id"), nullable=False),
    Column("idx", Integer, nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=False),
    Column("between_status", Integer, nullable=True),
    Column("between_log_id", ID, ForeignKey("log.id"), nullable=True),
    UniqueConstraint("checkout_id", "idx", name="uq_repetition_checkout_idx"),
)

result = Table(
    "result",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("repetition_id", ID, ForeignKey("repetition.id"), nullable=False),
    Column("test", SafeText, nullable=False),
    Column("status", Integer, nullable=False),
    Column("message", SafeText, nullable=False),
    Column("duration", Double, nullable=True),
    Column("exit_code", Integer, nullable=True),
    Column("command", SafeText, nullable=False),
    Column("stdout_log_id", ID, ForeignKey("log.id"), nullable=False),
    Column("stderr_log_id", ID, ForeignKey("log.id"), nullable=False),
    Index("ix_result_repetition", "repetition_id"),
)

value = Table(
    "value",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("result_id", ID, ForeignKey("result.id"), nullable=False),
    Column("name", SafeText, nullable=False),
    Column("unit", SafeText, nullable=False),
    Column("value", Real, nullable=True),  # NULL is NaN
    Column("direction", String(8), nullable=False),
    Index("ix_value_result", "result_id"),
)
