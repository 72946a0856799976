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
    BigInteger,
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
    false,
)

from perfwalk.store.coltypes import ID, Real, SafeText, UTCDateTime

metadata = MetaData()

#: Facts of the store by key: schema_version, created_with (the perfwalk that made it),
#: store_id (its own id, made on first use: Store.store_id).
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
    Column("planned_checkouts", Integer, nullable=True),  # NULL: not known (older series)
    Column("order_mode", String(16), nullable=False, server_default="checkout"),
    Column("seed", ID, nullable=True),  # NULL: checkout order
    Column("repetitions_max", Integer, nullable=True),  # NULL: a fixed count
    Column("rse_target", Double, nullable=True),
    Column("walk", String(64), nullable=True),  # the [[walk]] it continues; NULL: none
    Column("variant", String(64), nullable=True),  # kind variant: its [[variant]]; NULL: base
    Index("ix_series_state_started", "state", "started_at"),
    Index("ix_series_parent", "parent_id"),
    Index("ix_series_walk", "walk"),
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
    # what a push claimed (migration step 23), until a walk or drill stores git's words
    # over it (perfwalk.store.commits)
    Column("pushed", Boolean, nullable=False, server_default=false()),
    UniqueConstraint("project", "sha", name="uq_git_commit_project_sha"),
)

# Retention (migration step 29): each `perfwalk prune --apply` (perfwalk.store.retention),
# what it dropped so far; finished_at NULL while it runs or when it was stopped. The
# logs, profiles and checkouts it pruned name it (prune_id): their values, summaries
# and statuses are kept, only the outputs and the stacks are gone.

prune = Table(
    "prune",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=True),
    Column("rule", SafeText, nullable=False),  # "older than 30 days", "beyond 2.0 GB"
    Column("checkouts", Integer, nullable=False),
    Column("logs", ID, nullable=False),
    Column("profiles", Integer, nullable=False),
    Column("bytes", ID, nullable=False),  # stored (compressed) bytes dropped
    sqlite_autoincrement=True,
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
    # the prune that dropped its output (data then empty, size and total as they were);
    # NULL: kept (migration step 29, perfwalk.store.retention)
    Column("prune_id", ID, ForeignKey("prune.id"), nullable=True),
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
    Column("prune_id", ID, ForeignKey("prune.id"), nullable=True),  # the last that pruned it
    # the last reparse (or undo of one) that changed its values; NULL: none (step 31)
    Column("reparse_id", ID, ForeignKey("reparse.id"), nullable=True),
    # the repetitions planned at it when more than its series' (an adaptive walk's,
    # where its level beside a step was not clear): its own, not re-measures; NULL:
    # its series' (step 40)
    Column("planned_repetitions", Integer, nullable=True),
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

# The machine's state of a repetition (migration steps 8 and 10): read on each host
# it ran on, over its run (perfwalk.hosts.machine_state), one row per host; NULL /
# "unknown": not readable.

machine_state = Table(
    "machine_state",
    metadata,
    Column("repetition_id", ID, ForeignKey("repetition.id"), nullable=False),
    Column("host", SafeText, nullable=False),
    Column("seconds", Double, nullable=True),
    Column("load1", Double, nullable=True),
    Column("cores", Integer, nullable=True),
    Column("others_cpu", Double, nullable=True),  # CPUs the other processes used
    Column("busy", JSON, nullable=False),  # [[name, % of one CPU]…], the most busy first
    Column("steal", Double, nullable=True),  # share of CPU time
    Column("mem_available", ID, nullable=True),  # kB
    Column("freq_mhz", Double, nullable=True),
    Column("governor", SafeText, nullable=False),
    Column("turbo", String(16), nullable=False),
    Column("runnable", Double, nullable=True),  # other processes running or waiting
    PrimaryKeyConstraint("repetition_id", "host", name="pk_machine_state"),
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
    Column("role", SafeText, nullable=False, server_default=""),  # "" = the [run] host
    Column("host", SafeText, nullable=False, server_default=""),
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

# The regress matrix (migration step 2): a test is a name shared by every host;
# a regress run is one run of a suite on a host (or an imported results file);
# a regress result is one test's status in one run, with its log.

regress_test = Table(
    "regress_test",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("name", SafeText, nullable=False),
    Column("source", SafeText, nullable=True),  # path for the web viewer, newest known
    UniqueConstraint("name", name="uq_regress_test_name"),
)

regress_run = Table(
    "regress_run",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("host", SafeText, nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=False),
    Column("arch", SafeText, nullable=False),
    Column("os", SafeText, nullable=False),
    Column("kernel", SafeText, nullable=False),
    Column("build", String(16), nullable=False),  # stock, custom or unknown
    Column("commit", String(64), nullable=True),
    Column("origin", String(16), nullable=False),  # run, or the imported format
    Column("label", SafeText, nullable=False),  # what ran: the suite, the imported file
    Column("fingerprint", JSON, nullable=False),
    Column("log_id", ID, ForeignKey("log.id"), nullable=True),  # the runner's output
    # A summary of the run's results, written with them, so that the matrix reads a
    # run's column in one row: zlib-compressed bytes, byte i = the severity of the
    # test with id i (0: not run); and {test id: message} of the results with one.
    Column("statuses", LargeBinary, nullable=False),
    Column("messages", JSON, nullable=False),
    Index("ix_regress_run_host_started", "host", "started_at"),
)

regress_result = Table(
    "regress_result",
    metadata,
    Column("run_id", ID, ForeignKey("regress_run.id"), nullable=False),
    Column("test_id", ID, ForeignKey("regress_test.id"), nullable=False),
    Column("status", Integer, nullable=False),
    Column("message", SafeText, nullable=False),
    Column("duration", Double, nullable=True),
    Column("log_id", ID, ForeignKey("log.id"), nullable=False),
    PrimaryKeyConstraint("run_id", "test_id", name="pk_regress_result"),
)

# Multi-host tests (migration step 3): every step of a test's phases (and each
# reboot, console capture and fetched file) of a repetition, or of a conductor
# trial; conductor runs; and the leases runs hold on hosts.

conduct_run = Table(
    "conduct_run",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("name", SafeText, nullable=False),
    Column("master", SafeText, nullable=False),  # the master file's path
    Column("config_text", SafeText, nullable=False),  # every file read, as one text
    Column("players", JSON, nullable=False),  # name -> address, ssh target, file
    Column("trials", Integer, nullable=False),
    Column("state", String(16), nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=True),
    # the parser of its values, with its options (step 16); NULL: never parsed
    Column("parser", SafeText, nullable=True),
)

conduct_value = Table(
    "conduct_value",
    metadata,
    Column("conduct_id", ID, ForeignKey("conduct_run.id"), nullable=False),
    Column("trial", Integer, nullable=False),
    Column("name", SafeText, nullable=False),  # as the parser named it
    Column("value", Real, nullable=True),  # NULL is NaN
    Column("unit", SafeText, nullable=False),
    PrimaryKeyConstraint("conduct_id", "trial", "name", name="pk_conduct_value"),
)

step = Table(
    "step",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("repetition_id", ID, ForeignKey("repetition.id"), nullable=True),
    Column("conduct_id", ID, ForeignKey("conduct_run.id"), nullable=True),
    Column("trial", Integer, nullable=True),
    Column("test", SafeText, nullable=False),
    Column("phase", String(16), nullable=False),
    Column("role", SafeText, nullable=False),
    Column("host", SafeText, nullable=False),
    Column("idx", Integer, nullable=False),
    Column("kind", String(16), nullable=False),  # command, service, fetch, reboot, console…
    Column("name", SafeText, nullable=False),
    Column("command", SafeText, nullable=False),
    Column("status", Integer, nullable=False),
    Column("message", SafeText, nullable=False),
    Column("exit_code", Integer, nullable=True),
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=False),
    Column("stdout_log_id", ID, ForeignKey("log.id"), nullable=False),  # a fetched file's bytes
    Column("stderr_log_id", ID, ForeignKey("log.id"), nullable=False),
    Index("ix_step_repetition", "repetition_id"),
    Index("ix_step_conduct", "conduct_id", "trial"),
)

host_lease = Table(
    "host_lease",
    metadata,
    Column("host", String(255), primary_key=True),
    Column("token", String(64), nullable=False),
    Column("owner", SafeText, nullable=False),  # user@machine
    Column("purpose", SafeText, nullable=False),  # what the holder runs
    Column("machine", SafeText, nullable=False),
    Column("pid", Integer, nullable=False),
    Column("process_start", String(32), nullable=False),  # tells a reused pid apart
    Column("started_at", UTCDateTime, nullable=False),
    Column("heartbeat_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
)

walker = Table(
    "walker",
    metadata,
    Column("series_id", ID, ForeignKey("series.id"), primary_key=True),
    Column("token", String(64), nullable=False),  # the marker its processes carry
    Column("machine", SafeText, nullable=False),
    Column("pid", Integer, nullable=False),
    Column("process_start", String(32), nullable=False),  # tells a reused pid apart
    Column("started_at", UTCDateTime, nullable=False),
)

#: Team mode: the series a job of the queue walks (its retry after a lost worker
#: continues that series).
job_series = Table(
    "job_series",
    metadata,
    Column("job_id", BigInteger, primary_key=True),  # procrastinate's job id
    Column("series_id", ID, ForeignKey("series.id"), nullable=False),
)

drill = Table(
    "drill",
    metadata,
    Column("series_id", ID, ForeignKey("series.id"), primary_key=True),  # a series of kind drill
    Column("test", SafeText, nullable=False),
    Column("name", SafeText, nullable=False),  # the value drilled
    Column("change", JSON, nullable=False),  # what is narrowed: parent checkouts, levels, size
    Column("verdict", String(16), nullable=True),  # None while the drill runs
    Column("answer", JSON, nullable=True),  # lo, hi, reason, levels, step, confidence, budget
    Column("steps", JSON, nullable=False),  # every Measure in order, with what it brought
)

# Re-measures of changes (migration step 9, ``[run] confirm``): per change of a walk
# (its two checkouts), the repetition measured again at each and whether it held
# (perfwalk.store.confirmations, perfwalk.analysis.confirmation).

confirmation = Table(
    "confirmation",
    metadata,
    Column("series_id", ID, ForeignKey("series.id"), nullable=False),
    Column("before_idx", Integer, nullable=False),  # the checkouts of the change
    Column("after_idx", Integer, nullable=False),
    Column("before_rep", Integer, nullable=False),  # the repetitions measured again
    Column("after_rep", Integer, nullable=False),
    Column("held", Boolean, nullable=False),  # every metric re-measured held
    Column("metrics", JSON, nullable=False),  # per metric: levels, re-measured values, held
    Column("measured_at", UTCDateTime, nullable=False),
    # the sequential re-measure (step 25; NULL in a row of the one-pair re-measure before):
    Column("outcome", String(16), nullable=True),  # held, not held, undecided
    Column("final", Boolean, nullable=True),  # decided, or its most repetitions reached
    Column("rounds", JSON, nullable=True),  # each repetition measured again, with its load
    Column("waits", JSON, nullable=True),  # each wait for a quiet machine before measuring
    PrimaryKeyConstraint("series_id", "before_idx", "after_idx", name="pk_confirmation"),
)

# Checkout packs (migration step 5): a checkout's repetitions, results, values and
# their moments in one row, rewritten with every repetition (perfwalk.store.packs),
# so that publishing a long series reads a row per checkout.

checkout_pack = Table(
    "checkout_pack",
    metadata,
    Column("checkout_id", ID, ForeignKey("checkout.id"), primary_key=True),
    Column("format", Integer, nullable=False),  # packs.PACK_FORMAT when written
    Column("head", Text, nullable=False),  # JSON: repetitions, metrics, worst statuses
    Column("detail", Text, nullable=False),  # JSON: repetitions and results for the page
    Column("vals", LargeBinary, nullable=False),  # float64 metric × repetition
    Column("passed", LargeBinary, nullable=False),  # the same, PASS values only
    Column("stats", LargeBinary, nullable=False),  # float64 metric × (n, mean, median, …)
)

# Changes `perfwalk watch` has seen (migration step 12): a change is new in a watch
# cycle when its series and commit range are not here yet (perfwalk.store.seen).

seen_change = Table(
    "seen_change",
    metadata,
    Column("series_id", ID, ForeignKey("series.id"), nullable=False),
    Column("before_sha", String(64), nullable=False),  # the change's commit range
    Column("after_sha", String(64), nullable=False),
    Column("first_seen_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("series_id", "before_sha", "after_sha", name="pk_seen_change"),
)

# Notifications (migration step 13): the messages telling new changes, one per change
# (its series and commit range), metric and receiver, kept once sent or given up
# (perfwalk.store.outbox). The receiver is its URL's hash and its redacted form: an
# Apprise URL may hold a token, which the store does not keep.

outbox = Table(
    "outbox",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("series_id", ID, ForeignKey("series.id"), nullable=False),
    Column("before_sha", String(64), nullable=False),  # the change's commit range
    Column("after_sha", String(64), nullable=False),
    Column("test", SafeText, nullable=False),  # the metric: test and value name
    Column("metric", SafeText, nullable=False),
    Column("receiver", String(64), nullable=False),  # perfwalk.config.receivers.receiver_id
    Column("receiver_shown", SafeText, nullable=False),  # its URL, tokens masked
    Column("title", SafeText, nullable=False),
    Column("text", SafeText, nullable=False),  # the body as plain text
    Column("markdown", SafeText, nullable=False),  # the body as Markdown
    Column("created_at", UTCDateTime, nullable=False),
    Column("attempts", Integer, nullable=False),  # failed attempts so far
    Column("next_attempt_at", UTCDateTime, nullable=False),
    Column("sent_at", UTCDateTime, nullable=True),  # None: not sent (yet)
    Column("last_error", SafeText, nullable=False),  # why the last attempt failed
    Column("given_up", Boolean, nullable=False),  # not sent within [notify] give_up_after
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

# Triage (migration step 14): a person's word on a change (acknowledged, expected,
# invalid, fixed), keyed by the change's series and commit range, so that a change
# found again on the same range keeps it. Every word is a new row, never changed:
# the history; the newest (highest id) is the current word (perfwalk.store.triage).

triage = Table(
    "triage",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),  # the order words were said in
    Column("series_id", ID, ForeignKey("series.id"), nullable=False),
    Column("before_sha", String(64), nullable=False),  # the change: after before_sha …
    Column("after_sha", String(64), nullable=False),  # … up to after_sha
    Column("state", String(16), nullable=False),
    Column("reason", SafeText, nullable=False),
    Column("bug", SafeText, nullable=False),  # "" when no bug tracks it
    Column("who", SafeText, nullable=False),  # user@machine
    Column("at", UTCDateTime, nullable=False),
    Index("ix_triage_change", "series_id", "before_sha", "after_sha"),
    sqlite_autoincrement=True,  # ids are the order of the words: never reused
)

# Tries (migration step 17): a try is a series of kind "try" with two checkouts, A
# (index 0, the base commit) and B (index 1: the head commit, or the base commit with
# patches or a variant), their repetitions alternated A B B A…; this row says what B is
# and what the sequential test decided (perfwalk.store.tries). A variant's series is
# a series of kind "variant" whose parent is the walk's own (series.variant).

try_run = Table(
    "try_run",
    metadata,
    Column("series_id", ID, ForeignKey("series.id"), primary_key=True),
    Column("base_sha", String(64), nullable=False),
    Column("head_sha", String(64), nullable=False),
    Column("patches", JSON, nullable=False),  # [[file name, text]…] applied to B
    Column("variant", String(64), nullable=True),  # B's [[variant]]; NULL: none
    Column("confidence", Double, nullable=False),
    Column("max_repetitions", Integer, nullable=False),  # per side
    Column("verdicts", JSON, nullable=False),  # per metric, see perfwalk.store.tries
    Column("stopped", SafeText, nullable=False),  # why it stopped; "" while it runs
)

# Snapshots (migration step 18): the counters a [[snapshot]] command printed on a role's
# host before and after a test of a repetition, as its parser read them
# (perfwalk.store.snapshots); the outputs themselves are steps of the repetition
# (phases snapshot-before and snapshot-after).

snapshot = Table(
    "snapshot",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("repetition_id", ID, ForeignKey("repetition.id"), nullable=False),
    Column("test", SafeText, nullable=False),
    Column("name", SafeText, nullable=False),  # the [[snapshot]]'s name
    Column("role", SafeText, nullable=False),  # "" = the [run] host
    Column("host", SafeText, nullable=False),
    Column("parser", String(32), nullable=False),
    Column("before", JSON, nullable=True),  # {counter: number} in printed order; NULL: none
    Column("after", JSON, nullable=True),
    Column("status", Integer, nullable=False),  # PASS when both sides were read
    Column("message", SafeText, nullable=False),  # why not, else ""
    Index("ix_snapshot_repetition", "repetition_id"),
)

# What a walk really ran (migration step 19): per checkout and host, the running
# kernel's version string and the compiler's, read after the checkout's build,
# install and reboots; and per checkout the symbol list of its [build] symbols
# binary with its difference from the previous checkout's (perfwalk.store.build_facts).

build_fact = Table(
    "build_fact",
    metadata,
    Column("checkout_id", ID, ForeignKey("checkout.id"), nullable=False),
    Column("host", SafeText, nullable=False),  # the host's name in the run
    Column("kernel", SafeText, nullable=False),
    Column("compiler", SafeText, nullable=False),
    PrimaryKeyConstraint("checkout_id", "host", name="pk_build_fact"),
)

symbol_list = Table(
    "symbol_list",
    metadata,
    Column("checkout_id", ID, ForeignKey("checkout.id"), primary_key=True),
    Column("binary", SafeText, nullable=False),  # [build] symbols, relative to the worktree
    Column("count", Integer, nullable=True),  # defined symbols; NULL: no list (message says why)
    Column("list_log_id", ID, ForeignKey("log.id"), nullable=True),  # the sorted list
    Column("against_idx", Integer, nullable=True),  # the checkout compared with; NULL: none
    Column("added", Integer, nullable=True),
    Column("removed", Integer, nullable=True),
    Column("moved", Integer, nullable=True),
    Column("diff_log_id", ID, ForeignKey("log.id"), nullable=True),
    Column("message", SafeText, nullable=False),  # why there is no list or no diff; "" none
)

# Profiles (migration step 20): the folded stacks of one profiled run of a test at a
# checkout (perfwalk.store.profiles): the uncounted extra run (repetition NULL) or a
# counted repetition's run; zlib-compressed folded text, bounded (the heaviest stacks
# kept, ``dropped`` samples cut); status and message say when the profiler failed.

profile = Table(
    "profile",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("series_id", ID, ForeignKey("series.id"), nullable=False),
    Column("checkout_id", ID, ForeignKey("checkout.id"), nullable=False),
    Column("repetition", Integer, nullable=True),  # NULL: the extra, uncounted run
    Column("test", SafeText, nullable=False),
    Column("role", SafeText, nullable=False),
    Column("host", SafeText, nullable=False),
    Column("tool", String(16), nullable=False),
    Column("event", SafeText, nullable=False),
    Column("status", Integer, nullable=False),
    Column("message", SafeText, nullable=False),
    Column("samples", Integer, nullable=False),  # every sample the profiler took
    Column("dropped", Integer, nullable=False),  # samples of the stacks cut by the limit
    Column("stacks", LargeBinary, nullable=False),  # zlib(folded text), heaviest first
    Column("run_values", JSON, nullable=False),  # [[name, value, unit]…] of the extra run
    Column("duration", Double, nullable=True),
    Column("recorded_at", UTCDateTime, nullable=False),
    Column("prune_id", ID, ForeignKey("prune.id"), nullable=True),  # stacks dropped (step 29)
    Index("ix_profile_checkout", "checkout_id"),
    Index("ix_profile_series", "series_id"),
)

# The HTTP API (migration step 22): its tokens, each kept as the sha256 of the token
# (the token itself is shown once, when made: perfwalk.store.tokens), with the scopes
# it grants; and the series results pushed from elsewhere feed, one per project,
# branch and host (a series of kind "push", perfwalk.store.pushes).

api_token = Table(
    "api_token",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False),
    Column("digest", String(64), nullable=False),  # sha256 of the token, hex
    Column("scopes", JSON, nullable=False),  # ["push", "triage", "submit"], a subset
    Column("created_at", UTCDateTime, nullable=False),
    Column("who", SafeText, nullable=False),  # user@machine that made it
    UniqueConstraint("name", name="uq_api_token_name"),
    UniqueConstraint("digest", name="uq_api_token_digest"),
)

push_target = Table(
    "push_target",
    metadata,
    Column("series_id", ID, ForeignKey("series.id"), primary_key=True),  # kind push
    Column("project", SafeText, nullable=False),
    Column("branch", SafeText, nullable=False),
    Column("host", SafeText, nullable=False),
    UniqueConstraint("project", "branch", "host", name="uq_push_target"),
)

#: Runtime modifiers of variants put in place on a host and not undone yet (migration
#: step 24, perfwalk.store.modifiers): recorded before their apply commands run,
#: removed once their undo commands passed; what a walk killed meanwhile left applied.
applied_modifier = Table(
    "applied_modifier",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("host", SafeText, nullable=False),  # the lease name of the host it is on
    Column("member", SafeText, nullable=False),  # that host's name in the configuration
    Column("role", SafeText, nullable=False),
    Column("variant", SafeText, nullable=False),
    Column("modifier", Integer, nullable=False),  # its number among the variant's
    Column("undo", JSON, nullable=False),  # the undo commands, placeholders filled in
    Column("cwd", SafeText, nullable=False),  # where they would have run
    Column("timeout", Double, nullable=False),  # seconds each may take
    Column("series_id", ID, nullable=True),  # the series of the walk that applied it
    Column("token", String(64), nullable=False),  # that walk's marker (PERFWALK_WALK)
    Column("owner", SafeText, nullable=False),  # user@machine
    Column("machine", SafeText, nullable=False),
    Column("pid", Integer, nullable=False),
    Column("process_start", String(32), nullable=False),  # tells a reused pid apart
    Column("applied_at", UTCDateTime, nullable=False),
    Index("ix_applied_modifier_host", "host"),
)

# Run records (migration step 26): each walk run and watch cycle that ended, with what
# it added; the index's "last night" strip and `perfwalk status` read the newest
# (perfwalk.store.run_records).

run_record = Table(
    "run_record",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),  # walk, watch
    Column("name", SafeText, nullable=False),  # the [[walk]]'s name; "" for a watch cycle
    Column("series_id", ID, ForeignKey("series.id"), nullable=True),  # a walk's series
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=False),
    Column("checkouts", Integer, nullable=False),  # checkouts it added
    Column("first_idx", Integer, nullable=True),  # the index of the first; NULL: none
    Index("ix_run_record_finished", "finished_at"),
)

# Reparses (migration step 31): each `perfwalk reparse --apply` of a series (kind
# "apply") and each `--undo` (kind "undo", ``undoes`` the reparse it undid, which then
# names it in ``undone_by``), with what it changed; per result it changed, the status,
# message and values it replaced (perfwalk.store.reparses): nothing a reparse replaces
# is lost, and an undo puts it back.

reparse = Table(
    "reparse",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("series_id", ID, ForeignKey("series.id"), nullable=False),
    Column("kind", String(16), nullable=False),  # apply, undo
    Column("undoes", ID, ForeignKey("reparse.id"), nullable=True),  # an undo: the reparse
    Column("undone_by", ID, ForeignKey("reparse.id"), nullable=True),  # NULL: not undone
    Column("at", UTCDateTime, nullable=False),
    Column("who", SafeText, nullable=False),  # user@machine
    Column("why", SafeText, nullable=False),  # the parsers and options it used
    Column("checkouts", Integer, nullable=False),  # checkouts whose values it changed
    Column("results", Integer, nullable=False),  # results it changed
    Index("ix_reparse_series", "series_id"),
    sqlite_autoincrement=True,  # ids are the order of the reparses: never reused
)

replaced_result = Table(
    "replaced_result",
    metadata,
    Column("reparse_id", ID, ForeignKey("reparse.id"), nullable=False),
    Column("result_id", ID, ForeignKey("result.id"), nullable=False),
    Column("status", Integer, nullable=False),  # as it was before the reparse
    Column("message", SafeText, nullable=False),
    Column("vals", JSON, nullable=False),  # [[name, unit, value or null (NaN), direction]…]
    PrimaryKeyConstraint("reparse_id", "result_id", name="pk_replaced_result"),
)

#: Values parsers lost (migration step 31): per checkout and test, the metrics a passing
#: repetition of it lacked that the test gave at the checkouts before (a regex that
#: misses some lines), as the end of a walk or a reparse found them
#: (perfwalk.store.parser_losses); the checkout page marks them.
parser_loss = Table(
    "parser_loss",
    metadata,
    Column("checkout_id", ID, ForeignKey("checkout.id"), nullable=False),
    Column("test", SafeText, nullable=False),
    Column("known", JSON, nullable=False),  # [name…]: what the checkouts before gave
    Column("missing", JSON, nullable=False),  # [name…]: what a repetition here lacked
    PrimaryKeyConstraint("checkout_id", "test", name="pk_parser_loss"),
)

# Extensions (migration step 32): each `perfwalk run --extend` of a walk's series, more
# repetitions or variants at the checkouts it has (perfwalk.store.extensions).

extension = Table(
    "extension",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("series_id", ID, ForeignKey("series.id"), nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=True),  # NULL: not finished
    Column("repetitions_before", Integer, nullable=False),  # planned per checkout before
    Column("repetitions", Integer, nullable=False),  # the plain checkout's after
    Column("variants", JSON, nullable=False),  # the names of the variants it added
    Column("variant_repetitions", Integer, nullable=True),  # each one's; NULL: none added
    Column("order_mode", String(16), nullable=False),  # checkout, rounds
    Column("seed", ID, nullable=True),  # its shuffles'; NULL: none
    Column("last_repetition", ID, nullable=False),  # repetition.id stored last before it
    Column("config_hash", String(128), nullable=False),  # the configuration it ran with
    Column("added", Integer, nullable=True),  # repetitions it added; NULL: not finished
    Index("ix_extension_series", "series_id"),
)

# Histograms (migration step 33): a distribution a test reported whole (a latency
# histogram read by the hdrhistogram, bpftrace-hist or dtrace-quantize parser), kept
# with its result; its percentiles are values of the result (perfwalk.store.histograms).

histogram = Table(
    "histogram",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("result_id", ID, ForeignKey("result.id"), nullable=False),
    Column("name", SafeText, nullable=False),  # the tool's name of it: latency, usecs
    Column("unit", SafeText, nullable=False),
    Column("buckets", JSON, nullable=False),  # [[low, high, count]…], ascending
    Index("ix_histogram_result", "result_id"),
)

# Proofs (migration step 35): a drill's culprit undone on a later tip of its branch and
# measured against that tip as a try does (perfwalk.store.proofs): the try's series,
# or why none ran (the revert does not apply).

proof = Table(
    "proof",
    metadata,
    Column("id", ID, primary_key=True, autoincrement=True),
    Column("drill_id", ID, ForeignKey("series.id"), nullable=False),  # the drill's series
    Column("culprit_sha", String(64), nullable=False),
    Column("tip_ref", SafeText, nullable=False),  # the branch as named: main, HEAD
    Column("tip_sha", String(64), nullable=False),  # the commit it named then
    Column("at", UTCDateTime, nullable=False),
    Column("try_id", ID, ForeignKey("series.id"), nullable=True),  # NULL: no try ran
    Column("outcome", String(16), nullable=False),  # see perfwalk.store.proofs.OUTCOMES
    Column("answer", JSON, nullable=False),  # the verdict's figures, or git's words
    Index("ix_proof_drill", "drill_id"),
    sqlite_autoincrement=True,
)

# Environment drills (migration step 39): a series of kind "environment" measures a
# change's two commits in several environments ([[environment]]), one checkout per
# commit and environment (perfwalk.store.env_drills): what it compared and its answer.

env_drill = Table(
    "env_drill",
    metadata,
    Column("series_id", ID, ForeignKey("series.id"), primary_key=True),
    Column("test", SafeText, nullable=False),
    Column("name", SafeText, nullable=False),  # the value compared
    Column("change", JSON, nullable=False),  # the change: its id, series, commits, step
    Column("sides", JSON, nullable=False),  # [[checkout index, before|after, environment]…]
    Column("environments", JSON, nullable=False),  # [{name, comment, …}…], oldest first
    Column("answer", JSON, nullable=True),  # the verdict and its effects; NULL while it runs
)

#: What each host of a running walk does now (:mod:`perfwalk.store.live`): per series
#: and host, the checkout, repetition and step the walk is at, the command the host
#: runs (or ran last) and the last lines of its output, written while it runs;
#: removed when the series' state is set again (it finished, or was interrupted).
live = Table(
    "live",
    metadata,
    Column("series_id", ID, ForeignKey("series.id"), primary_key=True),
    Column("host", String(255), primary_key=True),
    Column("checkout", Integer, nullable=True),  # the checkout's index; NULL: none yet
    Column("commit", String(64), nullable=False),  # the checkout's commit ("": none yet)
    Column("repetition", Integer, nullable=True),  # NULL: not in a repetition (a build)
    Column("step", SafeText, nullable=False),  # build, install, test <name>, between, …
    Column("command", SafeText, nullable=False),  # the command it runs or ran last
    Column("started_at", UTCDateTime, nullable=False),  # the command's start
    Column("ended_at", UTCDateTime, nullable=True),  # NULL: the command still runs
    Column("updated_at", UTCDateTime, nullable=False),
    Column("tail", SafeText, nullable=False),  # the step's last output lines, bounded
)
