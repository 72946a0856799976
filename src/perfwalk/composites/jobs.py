"""Team mode's use cases: submit a use case as a job, list and cancel jobs, and be a
worker that runs them (docs/team.md).

:func:`submit` is what ``perfwalk submit`` and the HTTP API call: it checks the job's
parameters (:mod:`perfwalk.services.job_params`) and queues them with the name of the
project and of who asked; a job carries no command and no configuration text. A
worker (:func:`run_worker`) takes the jobs of its pools' queues one at a time, checks
each job's parameters again against the configuration it loaded itself (a job of
another project is refused) and runs the same service function as the direct command
(:func:`perfwalk.services.run.run_series`, :func:`~perfwalk.services.try_change.run_try`,
:func:`~perfwalk.services.drill.run_drill`, :func:`~perfwalk.composites.watch.watch_once`)
with that configuration, holding the hosts' leases as that function does; a job whose
hosts another run holds waits for them. A job cancelled while it runs (or waits)
stops at its next step (a walk: before its next repetition) and its series is left
interrupted. A worker that stops (SIGTERM, Ctrl-C) stops its job the same way and puts
it back in the queue; a job stopped by the store going away is put back in the queue
once the store answers again; a worker that dies (``kill -9``) stops its heartbeat,
and after ``stall`` seconds another worker puts its job back in the queue (or ends it
cancelled, when it was cancelled meanwhile): a walk run again continues its series as
``run --resume`` does, with the variants it started with. Nothing the worker says, its
queue's log included, shows a secret of its configuration.

A job as its worker runs it is :mod:`perfwalk.composites.job_dispatch`; the worker's
upkeep (its heartbeat, the jobs of lost workers, the queue's log) is
:mod:`perfwalk.orchestrate.session.queue_worker`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from perfwalk.composites.job_dispatch import job_retry, perform
from perfwalk.config.model import Config
from perfwalk.config.secrets import config_secrets, hide_url_passwords
from perfwalk.orchestrate.session.queue import (
    SCHEDULED_WATCH,
    TASK,
    WATCH_QUEUE,
    JobRequest,
    JobRow,
    cancel,
    defer,
    ensure_schema,
    job_pool,
    lease_names,
    list_jobs,
    queue_app,
)
from perfwalk.orchestrate.session.queue_worker import keep_beating, queue_log, requeue_lost
from perfwalk.secret_text import hide_password, mask_text
from perfwalk.services.job_params import checked_params
from perfwalk.store import Store
from perfwalk.store.leases import user_at_machine

if TYPE_CHECKING:
    from procrastinate import JobContext
    from procrastinate.app import WorkerOptions


def submit(config: Config, kind: str, options: Mapping[str, Any], owner: str | None = None) -> int:
    """Queue the use case ``kind`` (run, drill, try, watch) of ``config``'s project with
    the parameters ``options`` (the direct command's options by their names:
    ``from_``, ``to``, ``repetitions``… for run; ``base``, ``head``… for try; JSON
    values) and return the job's id; ``owner`` is who asks (a token: ``token NAME``;
    default: this process's ``user@machine``). The parameters are checked here, so that
    a mistake is told to the one who submits (a
    :class:`~perfwalk.services.job_params.JobParamError` naming the parameter), and the
    job carries them alone: the worker that takes it runs it with its own
    configuration (its commands, its secrets), only the project's name must match."""
    params = checked_params(config, kind, options)
    request = JobRequest(
        kind=kind,
        project=config.project.name,
        options=params,
        owner=owner or user_at_machine(),
        hosts=lease_names(config),
    )
    _ready(config)
    queue = WATCH_QUEUE if kind == "watch" else job_pool(config)
    return defer(config.store.url, request, queue)


def jobs(config: Config, *, limit: int = 100) -> list[JobRow]:
    """The newest ``limit`` jobs of the store's queue, newest first."""
    return list_jobs(config.store.url, limit=limit)


def job_json(row: JobRow) -> dict[str, Any]:
    """A job as the API lists it."""

    def when(at: datetime | None) -> str | None:
        return None if at is None else at.isoformat()

    return {
        "id": row.id,
        "kind": row.kind,
        "project": row.project or None,
        "state": row.state,
        "pool": row.queue,
        "hosts": list(row.hosts),
        "owner": row.owner,
        "tries": row.tries,
        "queued_at": when(row.queued_at),
        "started_at": when(row.started_at),
        "ended_at": when(row.ended_at),
        "options": dict(row.options),
    }


def listed_jobs(config: Config) -> list[dict[str, Any]]:
    """The newest jobs of the queue as the API lists them."""
    return [job_json(row) for row in jobs(config)]


def cancel_job(config: Config, job_id: int) -> JobRow:
    """Cancel a job: a queued one at once, a running one at its next step."""
    return cancel(config.store.url, job_id)


def _ready(config: Config) -> None:
    """The store (its perfwalk tables, by migrating) and the queue's tables exist."""
    Store.open(config.store.url).close()
    ensure_schema(config.store.url)


@dataclass(frozen=True)
class WorkerTiming:
    """How often a worker polls, beats and looks for the jobs of lost workers (s)."""

    poll: float = 5.0  # looks for new jobs at least this often (besides notifications)
    heartbeat: float = 10.0  # tells the queue it lives
    stall: float = 60.0  # a worker silent this long is lost; its job is queued again


def run_worker(
    config: Config,
    pools: Sequence[str] = (),
    *,
    say: Callable[[str], None] = lambda _s: None,
    timing: WorkerTiming = WorkerTiming(),
    name: str | None = None,
) -> None:
    """Take the jobs of ``pools`` (every queue when empty: every pool and the watch
    cycles) one at a time until stopped (SIGTERM, SIGINT); run ``[watch] schedule``'s
    cycles (deferred once per period by whichever worker is up). ``say`` hears each
    job's lines, prefixed by its id, and the queue's warnings, each line with the
    configuration's secrets masked."""
    url = config.store.url
    say = _masking(config, say)
    _ready(config)
    app = queue_app(url)
    worker_name = name or user_at_machine()

    @app.task(name=TASK, pass_context=True, retry=job_retry())
    def job(context: JobContext, request: dict[str, Any]) -> str:
        with keep_beating(url, context, timing.heartbeat):
            return perform(context, config, JobRequest.of(request), say)

    if config.watch.schedule:

        def scheduled(context: JobContext, timestamp: int) -> str:
            del timestamp
            request = JobRequest(
                kind="watch", project=config.project.name, options={}, owner="(schedule)", hosts=()
            )
            with keep_beating(url, context, timing.heartbeat):
                return perform(context, config, request, say)

        task = app.task(name=SCHEDULED_WATCH, pass_context=True, retry=job_retry())(scheduled)
        app.periodic(
            cron=config.watch.schedule,
            periodic_id=config.project.name,
            queue=WATCH_QUEUE,
            lock=WATCH_QUEUE,
        )(task)

    say(
        f"worker {worker_name} on {', '.join(pools) if pools else 'every queue'} of "
        f"{hide_password(url)}"
    )

    options: WorkerOptions = {
        "name": worker_name,
        "concurrency": 1,
        "fetch_job_polling_interval": timing.poll,
        "abort_job_polling_interval": min(timing.poll, 2.0),
        "shutdown_graceful_timeout": 0,
        "update_heartbeat_interval": timing.heartbeat,
        "stalled_worker_timeout": timing.stall,
        "install_signal_handlers": True,
    }
    if pools:  # else every queue
        options["queues"] = list(pools)

    async def work() -> None:
        async with app.open_async():
            watcher = asyncio.create_task(requeue_lost(app, url, timing.stall, say))
            try:
                await app.run_worker_async(**options)
            finally:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher

    with queue_log(say):
        asyncio.run(work())


def _masking(config: Config, say: Callable[[str], None]) -> Callable[[str], None]:
    """``say`` with the secrets of ``config`` and any URL's password masked."""
    secrets = config_secrets(config)

    def masked(line: str) -> None:
        say(hide_url_passwords(mask_text(line, secrets)))

    return masked
