"""Schema versions of the result store and the steps between them.

The version lives in ``meta`` (key ``schema_version``); an empty database is
version 0. :func:`migrate` applies the missing steps in order, each in its own
transaction together with the new version number, so an interrupted upgrade
leaves the store at the last completed version. Opening a store written by a newer
perfwalk fails: old code must not write into a schema it does not know.

Rules for a new step: append ``Migration(N + 1, ...)``; never edit a released step
(the tables of step 1 are a frozen copy, on purpose: :mod:`perfwalk.store.schema`
describes the latest version, the steps describe how to get there); update
``schema.py`` to match; write down what changed in ``summary``.

History:

1. initial schema: series, quirk, git_commit, checkout, checkout_commit,
   quirk_run, repetition, result, value, log.
2. regress matrix: regress_test (one row per test name), regress_run (one
   run of a suite on a host, or an import, with a summary of its statuses and
   messages), regress_result (per run and test, with its log).
3. multi-host tests: result gets role and host; step (every phase step, service,
   fetched file, reboot and console of a repetition or of a conductor trial, with
   its logs); conduct_run (one `perfwalk conduct`); host_lease (who holds a host).
4. drills: drill (one row per drill series: the change it narrows, the test and
   value, the verdict and its evidence, and every step tried, in order).
5. checkout packs: checkout_pack (a checkout's repetitions, results, values and
   their moments in one row, see perfwalk.store.packs), built for every checkout
   already stored.
6. walkers: series gets planned_checkouts (how many checkouts its walk plans;
   NULL for older series); walker (per series, the process that walks it: machine,
   PID and start time, and the marker its processes carry, see
   perfwalk.store.walkers).
7. measuring order: series gets order_mode (checkout or rounds; older series:
   checkout), seed (of the rounds' shuffled order; NULL for checkout order) and
   repetitions_max and rse_target (adaptive repetitions; NULL for a fixed count).
8. machine state: machine_state (per repetition, the state of the host it ran on:
   load, cores, the others' CPU, how many ran and the most busy, steal, free memory,
   frequency, governor, turbo; see perfwalk.hosts.machine_state).
9. re-measures: confirmation (per change of a walk that `[run] confirm` measured
   again: its two checkouts, the repetition added at each, whether it held and, per
   metric, the levels and the values measured again; see
   perfwalk.store.confirmations).
10. machine state of every host: machine_state is keyed by (repetition, host): a
    repetition keeps the state of each host it ran on (the [run] host and those of
    the roles its tests play), not of the [run] host only; its rows are kept.
11. named walks: series gets walk (the name of the ``[[walk]]`` that `run --walk`
    continues in it; NULL for the other series, and for every older one), indexed.
12. watch: seen_change (a change's series and commit range, when a watch cycle first
    saw it: a change is new in a cycle when it is not there yet; see
    perfwalk.store.seen).
13. notifications: outbox (one message per change, metric and receiver: the
    change's series and commit range, the metric, the receiver's hash and redacted
    URL, the title and the plain and Markdown bodies, when it was made, attempts,
    when to try next, when sent, the last error, whether given up; see
    perfwalk.store.outbox).
14. triage: triage (a person's word on a change, keyed by its series and commit
    range: state, reason, bug, who and when; every word a new row, never changed,
    the newest the current one; see perfwalk.store.triage).
15. conductor values: conduct_value (per conductor run, trial and name, the value
    and unit the run's parser found in the trial's run-phase outputs; see
    perfwalk.store.conduct).
16. conductor parsers: conduct_run gets parser (the parser that found the run's
    values, with its options, as given; NULL when the run was never parsed, or was
    parsed before this step).
17. variants and tries: series gets variant (a series of kind variant measures the
    [[variant]] of that name beside its parent walk); try_run (per series of kind
    try: its two sides, the patches, the verdict per metric; see perfwalk.store.tries).
18. snapshots: snapshot (per repetition, test, [[snapshot]] and role: the counters its
    command printed before and after the test, as read; see perfwalk.store.snapshots).
19. what a walk really ran: build_fact (per checkout and host, the running kernel's
    version string and the compiler's version) and symbol_list (per checkout, the
    symbol list of the [build] symbols binary and its difference from the previous
    checkout's; see perfwalk.store.build_facts).
20. profiles: profile (per profiled run of a test at a checkout: the uncounted extra
    run or a repetition's, its host, tool and event, status and message, the folded
    stacks compressed and bounded, the samples cut, the extra run's values; see
    perfwalk.store.profiles).
21. team jobs: job_series (the series a job of the queue walks, so that its retry after
    a lost worker continues that series; see perfwalk.store.jobs).
22. the HTTP API: api_token (a token's name, the sha256 of the token, its scopes, when
    and by whom it was made; see perfwalk.store.tokens) and push_target (per project,
    branch and host, the series of kind push that pushed results feed; see
    perfwalk.store.pushes).
23. what git says wins over what a push claimed: git_commit gets pushed (the row holds
    what a push claimed of the commit, until a walk or drill stores git's words over
    it; see perfwalk.store.commits); the rows of an older store that only the
    checkouts of push series point to are marked pushed.
24. applied modifiers: applied_modifier (a variant's runtime modifier put in place on a
    host and not undone yet: the host's lease name and configured name, role, variant
    and modifier number, its undo commands as they would run and where, the walk that
    applied it (series, marker, user, machine, PID and start time) and when; see
    perfwalk.store.modifiers).
25. sequential re-measures: confirmation gets outcome (held, not held or undecided),
    final (decided, or the most repetitions per side reached: never measured again),
    rounds (each repetition measured again, in the order measured: its side, checkout,
    repetition and the load of each host it ran on) and waits (each wait for a quiet
    machine before measuring: how long, whether the machine got quiet, why not); the
    rows of an older store keep NULL there (a re-measure of one pair, whose held says
    what it found; see perfwalk.store.confirmations).
26. run records: run_record (per walk run and watch cycle that ended: its kind, the
    walk's name and series, when it started and ended, how many checkouts it added
    and the index of the first; see perfwalk.store.run_records).
27. (reserved: no change; a store at 26 moves to 27 as it is.)
28. (reserved: no change; a store at 27 moves to 28 as it is.)
29. retention: prune (each `perfwalk prune --apply`: when it started and ended, NULL
    while it runs or when it was stopped, the rule it applied, and the checkouts, logs,
    profiles and stored bytes it dropped so far; see perfwalk.store.retention); log,
    profile and checkout get prune_id, the prune that dropped the log's output, the
    profile's stacks, the checkout's logs and profiles (NULL: kept).
30. (reserved: no change; a store at 29 moves to 30 as it is.)
31. reparses: reparse (each `perfwalk reparse --apply` or `--undo` of a series: when,
    who, why, how many checkouts and results it changed, the reparse an undo undid and
    the undo that undid a reparse), replaced_result (per reparse and result, the
    status, message and values it replaced, so that nothing a reparse replaces is
    lost); checkout gets reparse_id, the last reparse that changed its values (NULL:
    none); see perfwalk.store.reparses. parser_loss: per checkout and test, the metrics
    a passing repetition lacked that the checkouts before gave (a parser that lost
    values), as the end of a walk or a reparse found them; see
    perfwalk.store.parser_losses.
32. extensions: extension (per `perfwalk run --extend` of a walk's series: when it
    started and finished, the repetitions per checkout before and after, the variants
    it added and their repetitions, its order and seed, the last repetition stored
    before it, the configuration's hash, how many repetitions it added; see
    perfwalk.store.extensions).
33. histograms: histogram (per result, each distribution it reported whole: its name,
    its unit and its buckets [[low, high, count]…], as the hdrhistogram, bpftrace-hist
    and dtrace-quantize parsers read them; see perfwalk.store.histograms).
34. live: live (per running series and host: the checkout, repetition and step the
    walk is at, the command the host runs or ran last, when it started and ended, and
    the last lines of its output, written while it runs; removed when the series'
    state is set again; see perfwalk.store.live).
35. proofs: proof (per drill's culprit undone on a later tip of its branch: the
    culprit, the tip as named and the commit it named, when, the try that measured
    the revert against the tip or NULL when none ran, the outcome and its figures or
    git's words; see perfwalk.store.proofs).
36. (reserved: no change; a store at 35 moves to 36 as it is.)
37. (reserved: no change; a store at 36 moves to 37 as it is.)
38. (reserved: no change; a store at 37 moves to 38 as it is.)
39. environment drills: env_drill (per series of kind environment: the metric, the
    change, its sides (checkout, commit, environment), the environments compared and
    the answer; see perfwalk.store.env_drills).
40. a checkout's own repetitions: checkout gets planned_repetitions (NULL in every
    row stored before: its series'), the repetitions planned at it when more than
    its series' (an adaptive walk's, at a checkout whose level beside a step was not
    clear): a repetition numbered below them is the walk's own, one beyond them a
    re-measure (see SeriesRow.planned_at).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Connection,
    Double,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
    inspect,
    select,
    text,
)

from perfwalk import __version__
from perfwalk.errors import StoreError
from perfwalk.store import schema
from perfwalk.store.coltypes import ID, Real, SafeText, UTCDateTime

VERSION_KEY = "schema_version"
CREATED_WITH_KEY = "created_with"

#: Key of the PostgreSQL advisory lock that serialises concurrent upgrades.
_PG_LOCK_KEY = 0x70657266  # "perf"


@dataclass(frozen=True)
class Migration:
    """One step: brings a store from ``version - 1`` to ``version``."""

    version: int
    summary: str
    apply: Callable[[Connection], None]


def _v1_initial(conn: Connection) -> None:
    md = MetaData()
    Table(
        "meta",
        md,
        Column("key", String(64), primary_key=True),
        Column("value", Text, nullable=False),
    )
    Table(
        "series",
        md,
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
    Table(
        "quirk",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("series_id", ID, ForeignKey("series.id"), nullable=False),
        Column("letter", String(16), nullable=False),
        Column("at_date", UTCDateTime, nullable=False),
        Column("sha", String(64), nullable=True),
        Column("comment", SafeText, nullable=False),
        UniqueConstraint("series_id", "letter", name="uq_quirk_series_letter"),
    )
    Table(
        "git_commit",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("project", SafeText, nullable=False),
        Column("sha", String(64), nullable=False),
        Column("date", UTCDateTime, nullable=False),
        Column("tz_offset", Integer, nullable=False),
        Column("author", SafeText, nullable=False),
        Column("subject", SafeText, nullable=False),
        Column("body", SafeText, nullable=False),
        Column("files", JSON, nullable=False),
        UniqueConstraint("project", "sha", name="uq_git_commit_project_sha"),
    )
    Table(
        "log",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("compression", String(16), nullable=False),
        Column("data", LargeBinary, nullable=False),
        Column("size", ID, nullable=False),
        Column("total", ID, nullable=False),
        Column("truncated", Boolean, nullable=False),
        sqlite_autoincrement=True,
    )
    Table(
        "checkout",
        md,
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
    Table(
        "checkout_commit",
        md,
        Column("checkout_id", ID, ForeignKey("checkout.id"), nullable=False),
        Column("position", Integer, nullable=False),
        Column("commit_id", ID, ForeignKey("git_commit.id"), nullable=False),
        PrimaryKeyConstraint("checkout_id", "position", name="pk_checkout_commit"),
        Index("ix_checkout_commit_commit", "commit_id"),
    )
    Table(
        "quirk_run",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("checkout_id", ID, ForeignKey("checkout.id"), nullable=False),
        Column("letter", String(16), nullable=False),
        Column("status", Integer, nullable=False),
        Column("log_id", ID, ForeignKey("log.id"), nullable=False),
        UniqueConstraint("checkout_id", "letter", name="uq_quirk_run_checkout_letter"),
    )
    Table(
        "repetition",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("checkout_id", ID, ForeignKey("checkout.id"), nullable=False),
        Column("idx", Integer, nullable=False),
        Column("started_at", UTCDateTime, nullable=False),
        Column("finished_at", UTCDateTime, nullable=False),
        Column("between_status", Integer, nullable=True),
        Column("between_log_id", ID, ForeignKey("log.id"), nullable=True),
        UniqueConstraint("checkout_id", "idx", name="uq_repetition_checkout_idx"),
    )
    Table(
        "result",
        md,
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
    Table(
        "value",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("result_id", ID, ForeignKey("result.id"), nullable=False),
        Column("name", SafeText, nullable=False),
        Column("unit", SafeText, nullable=False),
        Column("value", Real, nullable=True),
        Column("direction", String(8), nullable=False),
        Index("ix_value_result", "result_id"),
    )
    md.create_all(conn)
    conn.execute(md.tables["meta"].insert().values(key=CREATED_WITH_KEY, value=__version__))


def _v2_regress(conn: Connection) -> None:
    md = MetaData()
    Table("log", md, Column("id", ID, primary_key=True))  # exists: only for the foreign keys
    tables = [
        Table(
            "regress_test",
            md,
            Column("id", ID, primary_key=True, autoincrement=True),
            Column("name", SafeText, nullable=False),
            Column("source", SafeText, nullable=True),
            UniqueConstraint("name", name="uq_regress_test_name"),
        ),
        Table(
            "regress_run",
            md,
            Column("id", ID, primary_key=True, autoincrement=True),
            Column("host", SafeText, nullable=False),
            Column("started_at", UTCDateTime, nullable=False),
            Column("finished_at", UTCDateTime, nullable=False),
            Column("arch", SafeText, nullable=False),
            Column("os", SafeText, nullable=False),
            Column("kernel", SafeText, nullable=False),
            Column("build", String(16), nullable=False),
            Column("commit", String(64), nullable=True),
            Column("origin", String(16), nullable=False),
            Column("label", SafeText, nullable=False),
            Column("fingerprint", JSON, nullable=False),
            Column("log_id", ID, ForeignKey("log.id"), nullable=True),
            Column("statuses", LargeBinary, nullable=False),
            Column("messages", JSON, nullable=False),
            Index("ix_regress_run_host_started", "host", "started_at"),
        ),
        Table(
            "regress_result",
            md,
            Column("run_id", ID, ForeignKey("regress_run.id"), nullable=False),
            Column("test_id", ID, ForeignKey("regress_test.id"), nullable=False),
            Column("status", Integer, nullable=False),
            Column("message", SafeText, nullable=False),
            Column("duration", Double, nullable=True),
            Column("log_id", ID, ForeignKey("log.id"), nullable=False),
            PrimaryKeyConstraint("run_id", "test_id", name="pk_regress_result"),
        ),
    ]
    md.create_all(conn, tables=tables)


def _v3_multi_host(conn: Connection) -> None:
    for column in ("role", "host"):
        conn.execute(text(f"ALTER TABLE result ADD COLUMN {column} TEXT NOT NULL DEFAULT ''"))
    md = MetaData()
    Table("log", md, Column("id", ID, primary_key=True))  # exists: only for the foreign keys
    Table("repetition", md, Column("id", ID, primary_key=True))  # idem
    tables = [
        Table(
            "conduct_run",
            md,
            Column("id", ID, primary_key=True, autoincrement=True),
            Column("name", SafeText, nullable=False),
            Column("master", SafeText, nullable=False),
            Column("config_text", SafeText, nullable=False),
            Column("players", JSON, nullable=False),
            Column("trials", Integer, nullable=False),
            Column("state", String(16), nullable=False),
            Column("started_at", UTCDateTime, nullable=False),
            Column("finished_at", UTCDateTime, nullable=True),
        ),
        Table(
            "step",
            md,
            Column("id", ID, primary_key=True, autoincrement=True),
            Column("repetition_id", ID, ForeignKey("repetition.id"), nullable=True),
            Column("conduct_id", ID, ForeignKey("conduct_run.id"), nullable=True),
            Column("trial", Integer, nullable=True),
            Column("test", SafeText, nullable=False),
            Column("phase", String(16), nullable=False),
            Column("role", SafeText, nullable=False),
            Column("host", SafeText, nullable=False),
            Column("idx", Integer, nullable=False),
            Column("kind", String(16), nullable=False),
            Column("name", SafeText, nullable=False),
            Column("command", SafeText, nullable=False),
            Column("status", Integer, nullable=False),
            Column("message", SafeText, nullable=False),
            Column("exit_code", Integer, nullable=True),
            Column("started_at", UTCDateTime, nullable=False),
            Column("finished_at", UTCDateTime, nullable=False),
            Column("stdout_log_id", ID, ForeignKey("log.id"), nullable=False),
            Column("stderr_log_id", ID, ForeignKey("log.id"), nullable=False),
            Index("ix_step_repetition", "repetition_id"),
            Index("ix_step_conduct", "conduct_id", "trial"),
        ),
        Table(
            "host_lease",
            md,
            Column("host", String(255), primary_key=True),
            Column("token", String(64), nullable=False),
            Column("owner", SafeText, nullable=False),
            Column("purpose", SafeText, nullable=False),
            Column("machine", SafeText, nullable=False),
            Column("pid", Integer, nullable=False),
            Column("process_start", String(32), nullable=False),
            Column("started_at", UTCDateTime, nullable=False),
            Column("heartbeat_at", UTCDateTime, nullable=False),
            Column("expires_at", UTCDateTime, nullable=False),
        ),
    ]
    md.create_all(conn, tables=tables)


def _v4_drill(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the foreign key
    drill = Table(
        "drill",
        md,
        Column("series_id", ID, ForeignKey("series.id"), primary_key=True),
        Column("test", SafeText, nullable=False),
        Column("name", SafeText, nullable=False),
        Column("change", JSON, nullable=False),
        Column("verdict", String(16), nullable=True),
        Column("answer", JSON, nullable=True),
        Column("steps", JSON, nullable=False),
    )
    md.create_all(conn, tables=[drill])


def _v5_checkout_pack(conn: Connection) -> None:
    md = MetaData()
    Table("checkout", md, Column("id", ID, primary_key=True))  # exists: only for the key
    pack = Table(
        "checkout_pack",
        md,
        Column("checkout_id", ID, ForeignKey("checkout.id"), primary_key=True),
        Column("format", Integer, nullable=False),
        Column("head", Text, nullable=False),
        Column("detail", Text, nullable=False),
        Column("vals", LargeBinary, nullable=False),
        Column("passed", LargeBinary, nullable=False),
        Column("stats", LargeBinary, nullable=False),
    )
    md.create_all(conn, tables=[pack])
    from perfwalk.store.packs import refresh_all  # the packs of what is stored already

    refresh_all(conn)


def _v6_walker(conn: Connection) -> None:
    conn.execute(text("ALTER TABLE series ADD COLUMN planned_checkouts INTEGER"))
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    walker = Table(
        "walker",
        md,
        Column("series_id", ID, ForeignKey("series.id"), primary_key=True),
        Column("token", String(64), nullable=False),
        Column("machine", SafeText, nullable=False),
        Column("pid", Integer, nullable=False),
        Column("process_start", String(32), nullable=False),
        Column("started_at", UTCDateTime, nullable=False),
    )
    md.create_all(conn, tables=[walker])


def _v8_machine_state(conn: Connection) -> None:
    md = MetaData()
    Table("repetition", md, Column("id", ID, primary_key=True))  # exists: only for the key
    state = Table(
        "machine_state",
        md,
        Column("repetition_id", ID, ForeignKey("repetition.id"), primary_key=True),
        Column("host", SafeText, nullable=False),
        Column("seconds", Double, nullable=True),
        Column("load1", Double, nullable=True),
        Column("cores", Integer, nullable=True),
        Column("others_cpu", Double, nullable=True),
        Column("busy", JSON, nullable=False),
        Column("steal", Double, nullable=True),
        Column("mem_available", ID, nullable=True),
        Column("freq_mhz", Double, nullable=True),
        Column("governor", SafeText, nullable=False),
        Column("turbo", String(16), nullable=False),
        Column("runnable", Double, nullable=True),
    )
    md.create_all(conn, tables=[state])


def _v7_measuring_order(conn: Connection) -> None:
    big = "INTEGER" if conn.dialect.name == "sqlite" else "BIGINT"
    conn.execute(
        text("ALTER TABLE series ADD COLUMN order_mode VARCHAR(16) NOT NULL DEFAULT 'checkout'")
    )
    conn.execute(text(f"ALTER TABLE series ADD COLUMN seed {big}"))
    conn.execute(text("ALTER TABLE series ADD COLUMN repetitions_max INTEGER"))
    conn.execute(text("ALTER TABLE series ADD COLUMN rse_target DOUBLE PRECISION"))


def _v9_confirmation(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    confirmation = Table(
        "confirmation",
        md,
        Column("series_id", ID, ForeignKey("series.id"), nullable=False),
        Column("before_idx", Integer, nullable=False),
        Column("after_idx", Integer, nullable=False),
        Column("before_rep", Integer, nullable=False),
        Column("after_rep", Integer, nullable=False),
        Column("held", Boolean, nullable=False),
        Column("metrics", JSON, nullable=False),
        Column("measured_at", UTCDateTime, nullable=False),
        PrimaryKeyConstraint("series_id", "before_idx", "after_idx", name="pk_confirmation"),
    )
    md.create_all(conn, tables=[confirmation])


def _v10_machine_state_hosts(conn: Connection) -> None:
    key = inspect(conn).get_pk_constraint("machine_state")["constrained_columns"]
    if key == ["repetition_id", "host"]:
        return  # keyed so already (a store put back to an older version by hand)
    old = Table("machine_state", MetaData(), autoload_with=conn)
    md = MetaData()
    Table("repetition", md, Column("id", ID, primary_key=True))  # exists: only for the key
    hosts = Table(
        "machine_state_hosts",  # the same columns (step 8), another key
        md,
        *(Column(column.name, column.type, nullable=column.nullable) for column in old.columns),
        ForeignKeyConstraint(["repetition_id"], ["repetition.id"]),
        PrimaryKeyConstraint("repetition_id", "host", name="pk_machine_state"),
    )
    md.create_all(conn, tables=[hosts])
    conn.execute(hosts.insert().from_select(list(old.columns.keys()), select(old)))
    conn.execute(text("DROP TABLE machine_state"))
    conn.execute(text("ALTER TABLE machine_state_hosts RENAME TO machine_state"))


def _v11_named_walks(conn: Connection) -> None:
    inspector = inspect(conn)  # a store put back to an older version by hand has them
    if "walk" not in {column["name"] for column in inspector.get_columns("series")}:
        conn.execute(text("ALTER TABLE series ADD COLUMN walk VARCHAR(64)"))
    if "ix_series_walk" not in {index["name"] for index in inspector.get_indexes("series")}:
        conn.execute(text("CREATE INDEX ix_series_walk ON series (walk)"))


def _v12_seen_changes(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    seen = Table(
        "seen_change",
        md,
        Column("series_id", ID, ForeignKey("series.id"), nullable=False),
        Column("before_sha", String(64), nullable=False),
        Column("after_sha", String(64), nullable=False),
        Column("first_seen_at", UTCDateTime, nullable=False),
        PrimaryKeyConstraint("series_id", "before_sha", "after_sha", name="pk_seen_change"),
    )
    md.create_all(conn, tables=[seen])


def _v13_outbox(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    outbox = Table(
        "outbox",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("series_id", ID, ForeignKey("series.id"), nullable=False),
        Column("before_sha", String(64), nullable=False),
        Column("after_sha", String(64), nullable=False),
        Column("test", SafeText, nullable=False),
        Column("metric", SafeText, nullable=False),
        Column("receiver", String(64), nullable=False),
        Column("receiver_shown", SafeText, nullable=False),
        Column("title", SafeText, nullable=False),
        Column("text", SafeText, nullable=False),
        Column("markdown", SafeText, nullable=False),
        Column("created_at", UTCDateTime, nullable=False),
        Column("attempts", Integer, nullable=False),
        Column("next_attempt_at", UTCDateTime, nullable=False),
        Column("sent_at", UTCDateTime, nullable=True),
        Column("last_error", SafeText, nullable=False),
        Column("given_up", Boolean, nullable=False),
        UniqueConstraint(
            "series_id",
            "before_sha",
            "after_sha",
            "test",
            "metric",
            "receiver",
            name="uq_outbox_message",
        ),
        Index("ix_outbox_due", "sent_at", "given_up", "next_attempt_at"),
    )
    md.create_all(conn, tables=[outbox], checkfirst=True)


def _v14_triage(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    triage = Table(
        "triage",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("series_id", ID, ForeignKey("series.id"), nullable=False),
        Column("before_sha", String(64), nullable=False),
        Column("after_sha", String(64), nullable=False),
        Column("state", String(16), nullable=False),
        Column("reason", SafeText, nullable=False),
        Column("bug", SafeText, nullable=False),
        Column("who", SafeText, nullable=False),
        Column("at", UTCDateTime, nullable=False),
        Index("ix_triage_change", "series_id", "before_sha", "after_sha"),
        sqlite_autoincrement=True,
    )
    md.create_all(conn, tables=[triage])


def _v15_conduct_value(conn: Connection) -> None:
    md = MetaData()
    Table("conduct_run", md, Column("id", ID, primary_key=True))  # exists: only for the key
    values = Table(
        "conduct_value",
        md,
        Column("conduct_id", ID, ForeignKey("conduct_run.id"), nullable=False),
        Column("trial", Integer, nullable=False),
        Column("name", SafeText, nullable=False),
        Column("value", Real, nullable=True),
        Column("unit", SafeText, nullable=False),
        PrimaryKeyConstraint("conduct_id", "trial", "name", name="pk_conduct_value"),
    )
    md.create_all(conn, tables=[values])


def _v16_conduct_parser(conn: Connection) -> None:
    inspector = inspect(conn)  # a store put back to an older version by hand has it
    if "parser" not in {column["name"] for column in inspector.get_columns("conduct_run")}:
        conn.execute(text("ALTER TABLE conduct_run ADD COLUMN parser TEXT"))


def _v17_variants_tries(conn: Connection) -> None:
    inspector = inspect(conn)
    if "variant" not in {column["name"] for column in inspector.get_columns("series")}:
        conn.execute(text("ALTER TABLE series ADD COLUMN variant VARCHAR(64)"))
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    tries = Table(
        "try_run",
        md,
        Column("series_id", ID, ForeignKey("series.id"), primary_key=True),
        Column("base_sha", String(64), nullable=False),
        Column("head_sha", String(64), nullable=False),
        Column("patches", JSON, nullable=False),
        Column("variant", String(64), nullable=True),
        Column("confidence", Double, nullable=False),
        Column("max_repetitions", Integer, nullable=False),
        Column("verdicts", JSON, nullable=False),
        Column("stopped", SafeText, nullable=False),
    )
    md.create_all(conn, tables=[tries])


def _v18_snapshots(conn: Connection) -> None:
    md = MetaData()
    Table("repetition", md, Column("id", ID, primary_key=True))  # exists: only for the key
    snapshot = Table(
        "snapshot",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("repetition_id", ID, ForeignKey("repetition.id"), nullable=False),
        Column("test", SafeText, nullable=False),
        Column("name", SafeText, nullable=False),
        Column("role", SafeText, nullable=False),
        Column("host", SafeText, nullable=False),
        Column("parser", String(32), nullable=False),
        Column("before", JSON, nullable=True),
        Column("after", JSON, nullable=True),
        Column("status", Integer, nullable=False),
        Column("message", SafeText, nullable=False),
        Index("ix_snapshot_repetition", "repetition_id"),
    )
    md.create_all(conn, tables=[snapshot])


def _v19_build_facts(conn: Connection) -> None:
    md = MetaData()
    Table("checkout", md, Column("id", ID, primary_key=True))  # exists: only for the key
    Table("log", md, Column("id", ID, primary_key=True))
    facts = Table(
        "build_fact",
        md,
        Column("checkout_id", ID, ForeignKey("checkout.id"), nullable=False),
        Column("host", SafeText, nullable=False),
        Column("kernel", SafeText, nullable=False),
        Column("compiler", SafeText, nullable=False),
        PrimaryKeyConstraint("checkout_id", "host", name="pk_build_fact"),
    )
    symbols = Table(
        "symbol_list",
        md,
        Column("checkout_id", ID, ForeignKey("checkout.id"), primary_key=True),
        Column("binary", SafeText, nullable=False),
        Column("count", Integer, nullable=True),
        Column("list_log_id", ID, ForeignKey("log.id"), nullable=True),
        Column("against_idx", Integer, nullable=True),
        Column("added", Integer, nullable=True),
        Column("removed", Integer, nullable=True),
        Column("moved", Integer, nullable=True),
        Column("diff_log_id", ID, ForeignKey("log.id"), nullable=True),
        Column("message", SafeText, nullable=False),
    )
    md.create_all(conn, tables=[facts, symbols])


def _v20_profiles(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    Table("checkout", md, Column("id", ID, primary_key=True))
    profiles = Table(
        "profile",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("series_id", ID, ForeignKey("series.id"), nullable=False),
        Column("checkout_id", ID, ForeignKey("checkout.id"), nullable=False),
        Column("repetition", Integer, nullable=True),
        Column("test", SafeText, nullable=False),
        Column("role", SafeText, nullable=False),
        Column("host", SafeText, nullable=False),
        Column("tool", String(16), nullable=False),
        Column("event", SafeText, nullable=False),
        Column("status", Integer, nullable=False),
        Column("message", SafeText, nullable=False),
        Column("samples", Integer, nullable=False),
        Column("dropped", Integer, nullable=False),
        Column("stacks", LargeBinary, nullable=False),
        Column("run_values", JSON, nullable=False),
        Column("duration", Double, nullable=True),
        Column("recorded_at", UTCDateTime, nullable=False),
        Index("ix_profile_checkout", "checkout_id"),
        Index("ix_profile_series", "series_id"),
    )
    md.create_all(conn, tables=[profiles])


def _v21_job_series(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    jobs = Table(
        "job_series",
        md,
        Column("job_id", BigInteger, primary_key=True),
        Column("series_id", ID, ForeignKey("series.id"), nullable=False),
    )
    md.create_all(conn, tables=[jobs])


def _v22_api(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    tokens = Table(
        "api_token",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("name", String(64), nullable=False),
        Column("digest", String(64), nullable=False),
        Column("scopes", JSON, nullable=False),
        Column("created_at", UTCDateTime, nullable=False),
        Column("who", SafeText, nullable=False),
        UniqueConstraint("name", name="uq_api_token_name"),
        UniqueConstraint("digest", name="uq_api_token_digest"),
    )
    targets = Table(
        "push_target",
        md,
        Column("series_id", ID, ForeignKey("series.id"), primary_key=True),
        Column("project", SafeText, nullable=False),
        Column("branch", SafeText, nullable=False),
        Column("host", SafeText, nullable=False),
        UniqueConstraint("project", "branch", "host", name="uq_push_target"),
    )
    md.create_all(conn, tables=[tokens, targets])


def _v23_pushed_commits(conn: Connection) -> None:
    inspector = inspect(conn)  # a store put back to an older version by hand has it
    if "pushed" not in {column["name"] for column in inspector.get_columns("git_commit")}:
        conn.execute(
            text("ALTER TABLE git_commit ADD COLUMN pushed BOOLEAN NOT NULL DEFAULT false")
        )
    # the commits that only push series point to were made by pushes: a walk or a
    # drill that read one from git points to it from a checkout of its own
    conn.execute(
        text(
            "UPDATE git_commit SET pushed = true WHERE id IN ("
            " SELECT cc.commit_id FROM checkout_commit cc"
            " JOIN checkout ck ON ck.id = cc.checkout_id"
            " JOIN series s ON s.id = ck.series_id WHERE s.kind = 'push'"
            ") AND id NOT IN ("
            " SELECT cc.commit_id FROM checkout_commit cc"
            " JOIN checkout ck ON ck.id = cc.checkout_id"
            " JOIN series s ON s.id = ck.series_id WHERE s.kind <> 'push')"
        )
    )


def _v24_applied_modifiers(conn: Connection) -> None:
    md = MetaData()
    applied = Table(
        "applied_modifier",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("host", SafeText, nullable=False),
        Column("member", SafeText, nullable=False),
        Column("role", SafeText, nullable=False),
        Column("variant", SafeText, nullable=False),
        Column("modifier", Integer, nullable=False),
        Column("undo", JSON, nullable=False),
        Column("cwd", SafeText, nullable=False),
        Column("timeout", Double, nullable=False),
        Column("series_id", ID, nullable=True),
        Column("token", String(64), nullable=False),
        Column("owner", SafeText, nullable=False),
        Column("machine", SafeText, nullable=False),
        Column("pid", Integer, nullable=False),
        Column("process_start", String(32), nullable=False),
        Column("applied_at", UTCDateTime, nullable=False),
        Index("ix_applied_modifier_host", "host"),
    )
    md.create_all(conn, tables=[applied])


def _v25_sequential_remeasures(conn: Connection) -> None:
    inspector = inspect(conn)  # a store put back to an older version by hand has them
    have = {column["name"] for column in inspector.get_columns("confirmation")}
    added = (
        ("outcome", "VARCHAR(16)"),
        ("final", "BOOLEAN"),
        ("rounds", "JSON"),
        ("waits", "JSON"),
    )
    for name, kind in added:
        if name not in have:
            conn.execute(text(f"ALTER TABLE confirmation ADD COLUMN {name} {kind}"))


def _v26_run_records(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    records = Table(
        "run_record",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("kind", String(16), nullable=False),
        Column("name", SafeText, nullable=False),
        Column("series_id", ID, ForeignKey("series.id"), nullable=True),
        Column("started_at", UTCDateTime, nullable=False),
        Column("finished_at", UTCDateTime, nullable=False),
        Column("checkouts", Integer, nullable=False),
        Column("first_idx", Integer, nullable=True),
        Index("ix_run_record_finished", "finished_at"),
    )
    md.create_all(conn, tables=[records])


def _v27_reserved(conn: Connection) -> None:
    """No change: the number is held for a step of its own."""


def _v28_reserved(conn: Connection) -> None:
    """No change: the number is held for a step of its own."""


def _v29_retention(conn: Connection) -> None:
    md = MetaData()
    prunes = Table(
        "prune",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("started_at", UTCDateTime, nullable=False),
        Column("finished_at", UTCDateTime, nullable=True),
        Column("rule", SafeText, nullable=False),
        Column("checkouts", Integer, nullable=False),
        Column("logs", ID, nullable=False),
        Column("profiles", Integer, nullable=False),
        Column("bytes", ID, nullable=False),
        sqlite_autoincrement=True,
    )
    md.create_all(conn, tables=[prunes])
    kind = ID.compile(dialect=conn.dialect)
    inspector = inspect(conn)  # a store put back to an older version by hand has them
    for table in ("log", "profile", "checkout"):
        if "prune_id" not in {column["name"] for column in inspector.get_columns(table)}:
            conn.execute(
                text(f"ALTER TABLE {table} ADD COLUMN prune_id {kind} REFERENCES prune (id)")
            )


def _v30_reserved(conn: Connection) -> None:
    """No change: the number is held for a step of its own."""


def _v31_reparses(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exist: only for the keys
    Table("result", md, Column("id", ID, primary_key=True))
    reparses = Table(
        "reparse",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("series_id", ID, ForeignKey("series.id"), nullable=False),
        Column("kind", String(16), nullable=False),
        Column("undoes", ID, ForeignKey("reparse.id"), nullable=True),
        Column("undone_by", ID, ForeignKey("reparse.id"), nullable=True),
        Column("at", UTCDateTime, nullable=False),
        Column("who", SafeText, nullable=False),
        Column("why", SafeText, nullable=False),
        Column("checkouts", Integer, nullable=False),
        Column("results", Integer, nullable=False),
        Index("ix_reparse_series", "series_id"),
        sqlite_autoincrement=True,
    )
    replaced = Table(
        "replaced_result",
        md,
        Column("reparse_id", ID, ForeignKey("reparse.id"), nullable=False),
        Column("result_id", ID, ForeignKey("result.id"), nullable=False),
        Column("status", Integer, nullable=False),
        Column("message", SafeText, nullable=False),
        Column("vals", JSON, nullable=False),
        PrimaryKeyConstraint("reparse_id", "result_id", name="pk_replaced_result"),
    )
    Table("checkout", md, Column("id", ID, primary_key=True))
    losses = Table(
        "parser_loss",
        md,
        Column("checkout_id", ID, ForeignKey("checkout.id"), nullable=False),
        Column("test", SafeText, nullable=False),
        Column("known", JSON, nullable=False),
        Column("missing", JSON, nullable=False),
        PrimaryKeyConstraint("checkout_id", "test", name="pk_parser_loss"),
    )
    md.create_all(conn, tables=[reparses, replaced, losses])
    inspector = inspect(conn)  # a store put back to an older version by hand has it
    if "reparse_id" not in {column["name"] for column in inspector.get_columns("checkout")}:
        kind = ID.compile(dialect=conn.dialect)
        conn.execute(
            text(f"ALTER TABLE checkout ADD COLUMN reparse_id {kind} REFERENCES reparse (id)")
        )


def _v32_extensions(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    extensions = Table(
        "extension",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("series_id", ID, ForeignKey("series.id"), nullable=False),
        Column("started_at", UTCDateTime, nullable=False),
        Column("finished_at", UTCDateTime, nullable=True),
        Column("repetitions_before", Integer, nullable=False),
        Column("repetitions", Integer, nullable=False),
        Column("variants", JSON, nullable=False),
        Column("variant_repetitions", Integer, nullable=True),
        Column("order_mode", String(16), nullable=False),
        Column("seed", ID, nullable=True),
        Column("last_repetition", ID, nullable=False),
        Column("config_hash", String(128), nullable=False),
        Column("added", Integer, nullable=True),
        Index("ix_extension_series", "series_id"),
    )
    md.create_all(conn, tables=[extensions])


def _v33_histograms(conn: Connection) -> None:
    md = MetaData()
    Table("result", md, Column("id", ID, primary_key=True))  # exists: only for the key
    histograms = Table(
        "histogram",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("result_id", ID, ForeignKey("result.id"), nullable=False),
        Column("name", SafeText, nullable=False),
        Column("unit", SafeText, nullable=False),
        Column("buckets", JSON, nullable=False),
        Index("ix_histogram_result", "result_id"),
    )
    md.create_all(conn, tables=[histograms])


def _v34_live(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    live = Table(
        "live",
        md,
        Column("series_id", ID, ForeignKey("series.id"), primary_key=True),
        Column("host", String(255), primary_key=True),
        Column("checkout", Integer, nullable=True),
        Column("commit", String(64), nullable=False),
        Column("repetition", Integer, nullable=True),
        Column("step", SafeText, nullable=False),
        Column("command", SafeText, nullable=False),
        Column("started_at", UTCDateTime, nullable=False),
        Column("ended_at", UTCDateTime, nullable=True),
        Column("updated_at", UTCDateTime, nullable=False),
        Column("tail", SafeText, nullable=False),
    )
    md.create_all(conn, tables=[live])


def _v35_proofs(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the keys
    proof = Table(
        "proof",
        md,
        Column("id", ID, primary_key=True, autoincrement=True),
        Column("drill_id", ID, ForeignKey("series.id"), nullable=False),
        Column("culprit_sha", String(64), nullable=False),
        Column("tip_ref", SafeText, nullable=False),
        Column("tip_sha", String(64), nullable=False),
        Column("at", UTCDateTime, nullable=False),
        Column("try_id", ID, ForeignKey("series.id"), nullable=True),
        Column("outcome", String(16), nullable=False),
        Column("answer", JSON, nullable=False),
        Index("ix_proof_drill", "drill_id"),
        sqlite_autoincrement=True,
    )
    md.create_all(conn, tables=[proof])


def _v36_reserved(conn: Connection) -> None:
    """No change: the step is kept so that the versions count on."""


def _v37_reserved(conn: Connection) -> None:
    """No change: the step is kept so that the versions count on."""


def _v38_reserved(conn: Connection) -> None:
    """No change: the step is kept so that the versions count on."""


def _v39_env_drills(conn: Connection) -> None:
    md = MetaData()
    Table("series", md, Column("id", ID, primary_key=True))  # exists: only for the key
    env_drill = Table(
        "env_drill",
        md,
        Column("series_id", ID, ForeignKey("series.id"), primary_key=True),
        Column("test", SafeText, nullable=False),
        Column("name", SafeText, nullable=False),
        Column("change", JSON, nullable=False),
        Column("sides", JSON, nullable=False),
        Column("environments", JSON, nullable=False),
        Column("answer", JSON, nullable=True),
    )
    md.create_all(conn, tables=[env_drill])


def _v40_checkout_repetitions(conn: Connection) -> None:
    inspector = inspect(conn)  # a store put back to an older version by hand has it
    if "planned_repetitions" not in {c["name"] for c in inspector.get_columns("checkout")}:
        conn.execute(text("ALTER TABLE checkout ADD COLUMN planned_repetitions INTEGER"))


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1, "initial schema: series, checkouts, repetitions, results, values, logs", _v1_initial
    ),
    Migration(2, "regress matrix: regress_test, regress_run, regress_result", _v2_regress),
    Migration(
        3,
        "multi-host tests: result role and host, step, conduct_run, host_lease",
        _v3_multi_host,
    ),
    Migration(4, "drills: drill (change, verdict, answer, steps)", _v4_drill),
    Migration(
        5, "checkout packs: checkout_pack, built for every stored checkout", _v5_checkout_pack
    ),
    Migration(6, "walkers: series.planned_checkouts, walker", _v6_walker),
    Migration(
        7,
        "measuring order: series.order_mode, seed, repetitions_max, rse_target",
        _v7_measuring_order,
    ),
    Migration(8, "machine state: machine_state per repetition", _v8_machine_state),
    Migration(9, "re-measures: confirmation per change measured again", _v9_confirmation),
    Migration(
        10,
        "machine state of every host: machine_state by (repetition, host)",
        _v10_machine_state_hosts,
    ),
    Migration(11, "named walks: series.walk", _v11_named_walks),
    Migration(12, "watch: seen_change, the changes watch cycles have seen", _v12_seen_changes),
    Migration(
        13, "notifications: outbox, one message per change, metric and receiver", _v13_outbox
    ),
    Migration(14, "triage: triage, a person's word on a change, with its history", _v14_triage),
    Migration(15, "conductor values: conduct_value per run, trial and name", _v15_conduct_value),
    Migration(16, "conductor parsers: conduct_run.parser", _v16_conduct_parser),
    Migration(17, "variants and tries: series.variant, try_run", _v17_variants_tries),
    Migration(18, "snapshots: snapshot, counters before and after a test", _v18_snapshots),
    Migration(
        19, "what a walk ran: build_fact per checkout and host, symbol_list", _v19_build_facts
    ),
    Migration(20, "profiles: profile, folded stacks per profiled run", _v20_profiles),
    Migration(21, "team jobs: job_series, the series a queued job walks", _v21_job_series),
    Migration(22, "the HTTP API: api_token, push_target", _v22_api),
    Migration(23, "git's words win: git_commit.pushed, what a push claimed", _v23_pushed_commits),
    Migration(24, "applied modifiers: applied_modifier, not undone yet", _v24_applied_modifiers),
    Migration(
        25,
        "sequential re-measures: confirmation.outcome, final, rounds, waits",
        _v25_sequential_remeasures,
    ),
    Migration(26, "run records: run_record, each walk run and watch cycle", _v26_run_records),
    Migration(27, "reserved: no change", _v27_reserved),
    Migration(28, "reserved: no change", _v28_reserved),
    Migration(
        29,
        "retention: prune, and the prune that dropped a log, profile, checkout's outputs",
        _v29_retention,
    ),
    Migration(30, "reserved: no change", _v30_reserved),
    Migration(
        31,
        "reparses: reparse, replaced_result (what each replaced), checkout.reparse_id; parser_loss",
        _v31_reparses,
    ),
    Migration(32, "extensions: extension, each run --extend of a walk's series", _v32_extensions),
    Migration(33, "histograms: histogram, a distribution a result reported whole", _v33_histograms),
    Migration(34, "live: what each host of a running walk does now", _v34_live),
    Migration(35, "proofs: proof, a drill's culprit undone on a later tip", _v35_proofs),
    Migration(36, "reserved: no change", _v36_reserved),
    Migration(37, "reserved: no change", _v37_reserved),
    Migration(38, "reserved: no change", _v38_reserved),
    Migration(
        39, "environment drills: env_drill, a change's commits per environment", _v39_env_drills
    ),
    Migration(
        40,
        "a checkout's own repetitions: checkout.planned_repetitions, more than its series'",
        _v40_checkout_repetitions,
    ),
)

LATEST_VERSION = MIGRATIONS[-1].version


def check_sequence(migrations: Sequence[Migration]) -> None:
    """Fail unless the steps are numbered 1, 2, 3 … without gaps."""
    numbers = [step.version for step in migrations]
    if numbers != list(range(1, len(numbers) + 1)):
        raise ValueError(f"migration steps must be numbered 1..N in order, got {numbers}")


def read_version(conn: Connection, shown: str) -> int:
    """The schema version of the database behind ``conn`` (0 when it is empty)."""
    inspector = inspect(conn)
    if not inspector.has_table(schema.meta.name):
        others = sorted(inspector.get_table_names())
        if others:
            raise StoreError(
                f"result store {shown}: not a perfwalk store (it has tables "
                f"{', '.join(others[:5])} but no 'meta' table)",
                hint="give an empty database, a new file, or (PostgreSQL) another schema "
                "with ?options=-csearch_path%3Dperfwalk",
            )
        return 0
    raw = conn.scalar(select(schema.meta.c.value).where(schema.meta.c.key == VERSION_KEY))
    if raw is None:
        return 0
    try:
        return int(raw)
    except ValueError:
        raise StoreError(
            f"result store {shown}: schema version {raw!r} is not a number",
            hint="the store is damaged; restore it from a backup",
        ) from None


def _write_version(conn: Connection, version: int, previous: int) -> None:
    meta = schema.meta
    if previous == 0:
        conn.execute(meta.insert().values(key=VERSION_KEY, value=str(version)))
    else:
        conn.execute(meta.update().where(meta.c.key == VERSION_KEY).values(value=str(version)))


def migrate(
    write: Callable[[], AbstractContextManager[Connection]],
    shown: str,
    migrations: Sequence[Migration] = MIGRATIONS,
) -> int:
    """Bring the store up to the last of ``migrations``; return its version.

    ``write`` opens one write transaction; each step runs in its own. A store
    newer than the code is refused with a hint to upgrade perfwalk.
    """
    check_sequence(migrations)
    latest = migrations[-1].version if migrations else 0
    while True:
        with write() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
            version = read_version(conn, shown)
            if version > latest:
                raise StoreError(
                    f"result store {shown}: schema version {version} is newer than this "
                    f"perfwalk knows (up to {latest})",
                    hint="upgrade perfwalk (pip install --upgrade perfwalk) to read this store",
                )
            if version == latest:
                return version
            step = migrations[version]
            step.apply(conn)
            _write_version(conn, step.version, version)
