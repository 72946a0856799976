"""Team mode's queue: the use cases queued in the PostgreSQL store as jobs of
``procrastinate``, taken by workers on any controller (docs/team.md).

procrastinate owns its tables in the store's database (:func:`ensure_schema` makes
them the first time a team command meets it). A job is one task, :data:`TASK`, whose
arguments name the use case (:class:`JobRequest`: its kind, its project, its checked
parameters, who queued it): never a command, nor the configuration's text, which
holds secrets and commands. The worker that takes it runs it with the configuration
it loaded itself.
A job's queue is the host pool of its hosts (``[hosts.X] pool``), and so is its
procrastinate lock: one job at a time per pool, whatever the number of workers; the
hosts' leases keep any other use case off them besides.

procrastinate is imported when a team command runs, never by the others.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from perfwalk.config.host_model import HostConfig
from perfwalk.config.model import Config
from perfwalk.errors import ConfigError, StoreUnavailable, UsageError
from perfwalk.orchestrate.session.leases import lease_name
from perfwalk.orchestrate.session.run_hosts import run_hosts
from perfwalk.store import Store

if TYPE_CHECKING:
    import psycopg
    from procrastinate import App

#: The task every job runs; its arguments are a :class:`JobRequest`.
TASK = "perfwalk.job"
#: The periodic task of ``[watch] schedule``; its job runs on the watch queue.
SCHEDULED_WATCH = "perfwalk.scheduled_watch"
#: The queue (and lock) of the watch cycles.
WATCH_QUEUE = "watch"
#: The pool of a host without ``[hosts.X] pool``.
DEFAULT_POOL = "default"
#: The use cases a job can run.
KINDS = ("run", "drill", "try", "watch")
#: Key of the PostgreSQL advisory lock held while procrastinate's schema is made.
_SCHEMA_LOCK = 0x7175657565  # "queue"


@dataclass(frozen=True)
class JobRequest:
    """What a job runs: the use case, the project it is of (``[project] name``), its
    parameters (checked: :mod:`perfwalk.services.job_params`), who queued it (a token
    ``token NAME``, or ``user@machine``) and the lease names of its hosts (what
    ``perfwalk jobs`` shows)."""

    kind: str
    project: str
    options: Mapping[str, Any]
    owner: str
    hosts: tuple[str, ...]

    def arguments(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "project": self.project,
            "options": dict(self.options),
            "owner": self.owner,
            "hosts": list(self.hosts),
        }

    @classmethod
    def of(cls, arguments: Mapping[str, Any]) -> JobRequest:
        """The request of a job's arguments; those of a job queued by an earlier
        version carried the configuration's text and path: they are ignored, and the
        job, which named no project, is taken as of the worker's."""
        return cls(
            kind=str(arguments["kind"]),
            project=str(arguments.get("project") or ""),
            options=dict(arguments.get("options") or {}),
            owner=str(arguments.get("owner", "")),
            hosts=tuple(arguments.get("hosts") or ()),
        )


@dataclass(frozen=True)
class JobRow:
    """A job as ``perfwalk jobs`` lists it."""

    id: int
    kind: str
    project: str  # "" for a job queued by an earlier version
    queue: str
    status: str  # todo, doing, succeeded, failed, cancelled, aborted
    owner: str
    hosts: tuple[str, ...]
    attempts: int  # ended ones
    abort_requested: bool
    queued_at: datetime | None
    started_at: datetime | None
    ended_at: datetime | None
    options: Mapping[str, Any]

    @property
    def tries(self) -> int:
        """How many times workers took the job: the queue counts an attempt when it
        ends, so a running job's own is one more."""
        return self.attempts + 1 if self.status == "doing" else self.attempts

    @property
    def state(self) -> str:
        """queued, running, cancelling, done, failed, cancelled."""
        if self.status == "doing":
            return "cancelling" if self.abort_requested else "running"
        return {
            "todo": "queued",
            "succeeded": "done",
            "aborted": "cancelled",
        }.get(self.status, self.status)


def conninfo(url: str) -> str:
    """The libpq connection string of a store URL (SQLAlchemy's ``+psycopg`` taken
    out); a store that is not PostgreSQL is a UsageError: the queue lives there."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.split("+")[0] not in ("postgresql", "postgres"):
        raise UsageError(
            "jobs and workers need a PostgreSQL store ([store] url = "
            '"postgresql+psycopg://user@host/db"); this store is not',
            hint="run the use case directly (perfwalk run, drill, try, watch), or move the "
            "store to PostgreSQL (docs/team.md)",
        )
    return f"postgresql://{rest}"


def host_pool(host: HostConfig) -> str:
    return host.pool or DEFAULT_POOL


def job_hosts(config: Config) -> dict[str, HostConfig]:
    """The hosts a job of ``config`` holds (those a run leases), by name."""
    hosts = run_hosts(config)
    if config.tests and all(test.role for test in config.tests):
        hosts.pop(config.run.host, None)
    return hosts


def job_pool(config: Config) -> str:
    """The queue of a job of ``config``: the pool of its hosts, which must be one."""
    hosts = job_hosts(config)
    pools = sorted({host_pool(host) for host in hosts.values()})
    if len(pools) > 1:
        named = "; ".join(
            f"{pool}: {', '.join(n for n, h in hosts.items() if host_pool(h) == pool)}"
            for pool in pools
        )
        raise ConfigError(
            f"{config.path}: a job's hosts are in one pool; these are in {len(pools)} ({named})",
            hint="give the hosts the same [hosts.NAME] pool",
        )
    return pools[0] if pools else DEFAULT_POOL


def lease_names(config: Config) -> tuple[str, ...]:
    return tuple(sorted({lease_name(host) for host in job_hosts(config).values()}))


def queue_app(url: str) -> App:
    """procrastinate's app on the store at ``url`` (not opened)."""
    from procrastinate import App, PsycopgConnector

    return App(connector=PsycopgConnector(conninfo=conninfo(url), min_size=1, max_size=4))


@contextlib.contextmanager
def _connection(url: str) -> Iterator[psycopg.Connection[Any]]:
    import psycopg

    try:
        conn = psycopg.connect(conninfo(url), autocommit=True)
    except psycopg.Error as error:
        raise StoreUnavailable(
            f"cannot reach the store's PostgreSQL for the queue: {error}".strip(),
            hint="check [store] url and that the server runs",
        ) from None
    with conn:
        yield conn


def ensure_schema(url: str) -> bool:
    """Make procrastinate's tables in the store's database unless they are there;
    True when it made them. Concurrent callers make them once. The store's own tables
    come first (a database holding only the queue's is not a perfwalk store): `perfwalk
    jobs` may be the first team command to meet an empty database."""
    from procrastinate.schema import SchemaManager

    with _connection(url) as conn:
        found = conn.execute("SELECT to_regclass('procrastinate_jobs')").fetchone()
        if found is not None and found[0] is not None:
            return False
    Store.open(url).close()
    with _connection(url) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_SCHEMA_LOCK,))
        try:
            found = conn.execute("SELECT to_regclass('procrastinate_jobs')").fetchone()
            if found is not None and found[0] is not None:
                return False
            with conn.transaction():
                conn.execute(SchemaManager.get_schema().encode())
            return True
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))


def defer(url: str, request: JobRequest, queue: str) -> int:
    """Queue ``request`` on ``queue`` (its lock too); the job's id."""
    ensure_schema(url)
    app = queue_app(url)
    app.open()
    try:
        return int(
            app.configure_task(name=TASK, queue=queue, lock=queue).defer(
                request=request.arguments()
            )
        )
    finally:
        app.close()


_LIST = """
SELECT j.id, j.queue_name, j.status::text, j.args, j.attempts, j.abort_requested,
       min(e.at) FILTER (WHERE e.type = 'deferred') AS queued_at,
       max(e.at) FILTER (WHERE e.type = 'started') AS started_at,
       max(e.at) FILTER (WHERE e.type IN ('succeeded', 'failed', 'cancelled', 'aborted'))
           AS ended_at
  FROM procrastinate_jobs j LEFT JOIN procrastinate_events e ON e.job_id = j.id
 WHERE j.task_name IN (%s, %s) AND (%s::bigint IS NULL OR j.id = %s)
 GROUP BY j.id ORDER BY j.id DESC LIMIT %s
"""


def list_jobs(url: str, *, limit: int = 100, job_id: int | None = None) -> list[JobRow]:
    """The newest ``limit`` jobs (or job ``job_id``), newest first."""
    ensure_schema(url)
    with _connection(url) as conn:
        rows = conn.execute(_LIST, (TASK, SCHEDULED_WATCH, job_id, job_id, limit)).fetchall()
    return [_job_row(row) for row in rows]


def _job_row(row: Sequence[Any]) -> JobRow:
    args = row[3] or {}
    request = args.get("request") or {}
    return JobRow(
        id=int(row[0]),
        kind=str(request.get("kind", "watch")),
        project=str(request.get("project") or ""),
        queue=str(row[1]),
        status=str(row[2]),
        owner=str(request.get("owner", "(schedule)")),
        hosts=tuple(request.get("hosts") or ()),
        attempts=int(row[4]),
        abort_requested=bool(row[5]),
        queued_at=row[6],
        started_at=row[7],
        ended_at=row[8],
        options=dict(request.get("options") or {}),
    )


def cancel_asked(url: str, job_id: int) -> bool:
    """Whether someone asked to cancel job ``job_id`` (``jobs cancel``), as the queue's
    table says. A worker hears of a cancel by a notification that names the job by
    its id only, and notifications go to the whole database: a cancel of the job of
    that id in another store of the same database (another schema) is heard too."""
    with _connection(url) as conn:
        found = conn.execute(
            "SELECT abort_requested FROM procrastinate_jobs WHERE id = %s", (job_id,)
        ).fetchone()
    return found is not None and bool(found[0])


def cancel(url: str, job_id: int) -> JobRow:
    """Cancel job ``job_id``: a queued one at once, a running one at its next
    repetition boundary. The job as it is now; a UsageError for a job that is
    unknown or over."""
    found = list_jobs(url, job_id=job_id)
    if not found:
        raise UsageError(f"no job {job_id} in the queue", hint="`perfwalk jobs` lists them")
    if found[0].status not in ("todo", "doing"):
        raise UsageError(
            f"job {job_id} is {found[0].state} already: nothing to cancel",
            hint="`perfwalk jobs` lists the queued and running ones",
        )
    app = queue_app(url)
    app.open()
    try:
        app.job_manager.cancel_job_by_id(job_id, abort=True)
    finally:
        app.close()
    return list_jobs(url, job_id=job_id)[0]
