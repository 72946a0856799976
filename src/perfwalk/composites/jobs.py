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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from perfwalk.config.model import Config
from perfwalk.config.secrets import config_secrets, hide_url_passwords
from perfwalk.errors import PerfwalkError, StoreUnavailable, UsageError
from perfwalk.orchestrate.session.leases import LEASE_POLL, HostsLeased
from perfwalk.orchestrate.session.queue import (
    SCHEDULED_WATCH,
    TASK,
    WATCH_QUEUE,
    JobRequest,
    JobRow,
    cancel,
    cancel_asked,
    conninfo,
    defer,
    ensure_schema,
    job_pool,
    lease_names,
    list_jobs,
    queue_app,
)
from perfwalk.orchestrate.session.walker import interrupt, left_running
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.quantities import many
from perfwalk.secret_text import hide_password, mask_text
from perfwalk.services.job_params import checked_params
from perfwalk.store import Store
from perfwalk.store.leases import Holder, user_at_machine

if TYPE_CHECKING:
    from procrastinate import App, JobContext
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


def _run_options(params: Mapping[str, Any], resume_series: int | None) -> RunOptions:
    """The options of a run job's walk; run again (its worker stopped or was lost),
    it continues its series with the variants that series started with."""
    values = dict(params)
    values["variants"] = tuple(values.get("variants") or ())
    if resume_series is not None:
        values.update(resume=True, resume_series=resume_series, walk=None, variants=())
    return RunOptions(**values)


# -- the worker ---------------------------------------------------------------------


class _Stopped(KeyboardInterrupt):
    """The job was cancelled, or its worker is stopping: it stops as for Ctrl-C (the
    series is marked interrupted, nothing finished is lost)."""


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

    @app.task(name=TASK, pass_context=True, retry=_retry())
    def job(context: JobContext, request: dict[str, Any]) -> str:
        with _beating(url, context, timing.heartbeat):
            return _perform(context, config, JobRequest.of(request), say)

    if config.watch.schedule:

        def scheduled(context: JobContext, timestamp: int) -> str:
            del timestamp
            request = JobRequest(
                kind="watch", project=config.project.name, options={}, owner="(schedule)", hosts=()
            )
            with _beating(url, context, timing.heartbeat):
                return _perform(context, config, request, say)

        task = app.task(name=SCHEDULED_WATCH, pass_context=True, retry=_retry())(scheduled)
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
            watcher = asyncio.create_task(_requeue_lost(app, url, timing, say))
            try:
                await app.run_worker_async(**options)
            finally:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher

    with _queue_log(say):
        asyncio.run(work())


def _masking(config: Config, say: Callable[[str], None]) -> Callable[[str], None]:
    """``say`` with the secrets of ``config`` and any URL's password masked."""
    secrets = config_secrets(config)

    def masked(line: str) -> None:
        say(hide_url_passwords(mask_text(line, secrets)))

    return masked


#: The log records of procrastinate's worker on a job's end: the job tells it itself.
_JOB_ENDS = frozenset(
    {"job_success", "job_error", "job_error_retry", "job_aborted", "job_aborted_retry"}
)


class _QueueLog(logging.Handler):
    """The warnings and errors of the queue (procrastinate, psycopg's pool, asyncio), one
    line each, through the worker's ``say`` (which masks secrets); not a job's end,
    which the job tells (procrastinate's record names the job's arguments and holds its
    error's traceback)."""

    def __init__(self, say: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.say = say
        self.last = ""  # the same line again (a pool that retries) is not repeated

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "action", None) in _JOB_ENDS:
            return
        try:
            text = record.getMessage()
        except (TypeError, ValueError):
            text = str(record.msg)
        line = (text.strip().splitlines() or [""])[0]
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            line += f": {_one_line(error)}"
        if line != self.last:
            self.last = line
            self.say(f"queue: {line}")


def _one_line(error: BaseException) -> str:
    text = (str(error).strip().splitlines() or [""])[0]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


@contextlib.contextmanager
def _queue_log(say: Callable[[str], None]) -> Iterator[None]:
    """The queue's log goes to ``say`` (and nowhere else) while the worker runs."""
    handler = _QueueLog(say)
    root = logging.getLogger()
    queue_logger = logging.getLogger("procrastinate")
    level = queue_logger.level
    queue_logger.setLevel(logging.WARNING)
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
        queue_logger.setLevel(level)


def _retry() -> Any:
    from procrastinate import RetryStrategy

    # only a job its stopping worker put down, or the store lost, is taken again (an
    # error is told, not repeated); the attempts bound a job that every worker stops
    return RetryStrategy(max_attempts=20, retry_exceptions={_WorkerStopped, _StoreLost})


class _WorkerStopped(Exception):
    """The worker stopped (SIGTERM, SIGINT) while the job ran: it goes back in the queue."""


class _StoreLost(Exception):
    """The store went away while the job ran: once it answers again, the job goes back
    in the queue (a walk continues its series)."""


async def _requeue_lost(
    app: App, url: str, timing: WorkerTiming, say: Callable[[str], None]
) -> None:
    """Every little while, put back in the queue the jobs of workers that stopped
    beating (killed, a lost machine): another worker continues them. A job cancelled
    while its worker was lost ends cancelled, its series left interrupted."""
    from procrastinate.jobs import Status

    while True:
        await asyncio.sleep(max(0.5, timing.stall / 4))
        try:
            stalled = await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=timing.stall)
            for lost in stalled:
                with contextlib.suppress(Exception):  # another worker did it first
                    found = await app.connector.execute_query_one_async(
                        "SELECT abort_requested FROM procrastinate_jobs WHERE id = %(id)s",
                        id=lost.id,
                    )
                    if not found["abort_requested"]:
                        await app.job_manager.retry_job(lost)
                        say(f"job {lost.id}: its worker is lost; queued again")
                        continue
                    await app.job_manager.finish_job(lost, status=Status.ABORTED, delete_job=False)
                    left = await asyncio.to_thread(_interrupt_job_series, url, int(lost.id or 0))
                    series = (
                        f"; series {', '.join(map(str, left))} left interrupted" if left else ""
                    )
                    say(
                        f"job {lost.id}: its worker is lost and it was cancelled: cancelled{series}"
                    )
        except Exception as error:  # the store went away for a moment: next time
            say(f"cannot look for the jobs of lost workers: {_one_line(error)}")


def _interrupt_job_series(url: str, job_id: int) -> list[int]:
    """Mark the series of job ``job_id`` (and its variants') interrupted where they are
    still running: their walker is lost."""
    with Store.open(url) as store:
        series_id = store.job_series.of(job_id)
        return [] if series_id is None else interrupt(store, series_id)


@contextlib.contextmanager
def _beating(url: str, context: JobContext, every: float) -> Iterator[None]:
    """While a job runs, its worker's heartbeat goes on from beside it. procrastinate
    beats too, but stops when the worker begins to stop (SIGTERM): the repetition in
    flight may then last longer than ``stall``, and the other workers would take the
    job while it still runs."""
    worker_id = context.job.worker_id
    if worker_id is None:
        yield
        return
    stop = threading.Event()

    def beat() -> None:
        import psycopg

        while not stop.wait(every):
            with (
                contextlib.suppress(psycopg.Error),  # the server went away: next beat
                psycopg.connect(conninfo(url), autocommit=True) as conn,
            ):
                conn.execute("SELECT procrastinate_update_heartbeat_v1(%s)", (worker_id,))

    beating = threading.Thread(target=beat, name=f"job-{context.job.id}-heartbeat", daemon=True)
    beating.start()
    try:
        yield
    finally:
        stop.set()
        beating.join()


def _perform(
    context: JobContext, config: Config, request: JobRequest, say: Callable[[str], None]
) -> str:
    """Run one job with the worker's ``config``; what it did, in one line (the queue
    keeps it as the job's result). A job that fails is told in one line (``job N:
    failed: …``), with a traceback only for an error of perfwalk itself."""
    from procrastinate.exceptions import JobAborted
    from procrastinate.job_context import AbortReason

    job_id = int(context.job.id or 0)
    attempt = context.job.attempts
    url = config.store.url

    def told(line: str) -> None:
        say(f"job {job_id}: {line}")

    def check() -> None:
        reason = context.abort_reason()
        if reason is None:
            return
        # a cancel is heard by its job's id, from any store of the database: this
        # job's own row says whether it is this one
        if reason is AbortReason.USER_REQUEST and not cancel_asked(url, job_id):
            return
        raise _Stopped()

    def told_and_checked(line: str) -> None:
        told(line)
        check()

    told(
        f"{request.kind} of project {request.project or config.project.name} for "
        f"{request.owner}" + (f" (attempt {attempt + 1})" if attempt else "")
    )
    try:
        try:
            _tidy(config, told, "an earlier job of this worker")
            params = _accepted(config, request)
            taken = _Taken(job_id, request.kind, params, told_and_checked, check)
            outcome = _run_waiting(config, taken)
        except StoreUnavailable as error:
            told(f"stopped: {error}")
            _await_store(config, told, check)
            told("queued again: it continues where it stopped")
            raise _StoreLost() from None
    except _StoreLost:
        raise
    except _Stopped:
        if context.abort_reason() is AbortReason.USER_REQUEST:
            told("cancelled; what it measured is kept")
            raise JobAborted() from None
        told("its worker stops: queued again")
        raise _WorkerStopped() from None
    except PerfwalkError as error:
        told(f"failed: {error}" + (f" (hint: {error.hint})" if error.hint else ""))
        raise
    except Exception as error:  # not a mistake of the one who asked: a bug to report
        told(f"failed: internal error: {_one_line(error)}")
        for line in "".join(traceback.format_exception(error)).splitlines():
            told(f"  {line}")
        raise
    told(outcome)
    return outcome


def _accepted(config: Config, request: JobRequest) -> dict[str, Any]:
    """The job's parameters, checked against the worker's configuration; a job of
    another project is refused."""
    if request.project and request.project != config.project.name:
        raise UsageError(
            f"the job is of project {request.project!r}, and this worker's configuration "
            f"({config.path}) of project {config.project.name!r}: refused",
            hint="run a worker with that project's configuration, and give each "
            "project's hosts pools of their own ([hosts.NAME] pool)",
        )
    return checked_params(config, request.kind, request.options)


def _tidy(config: Config, told: Callable[[str], None], by: str) -> None:
    """What this worker's walks left when the store went away as they ended (their
    series still ``running``, their leases held), ``by`` whom, is put right: before
    each job, and after a job the store stopped."""
    with Store.open(config.store.url) as store:
        left = left_running(store, Holder.this_process("a worker between jobs"))
    if left:
        told(f"series {', '.join(map(str, left))} left running by {by}: marked interrupted")


def _await_store(config: Config, told: Callable[[str], None], check: Callable[[], None]) -> None:
    """Wait until the store answers again (a cancel or a stop ends the wait), then
    mark the series the job left ``running`` interrupted and give back its leases."""
    told("waits for the store to answer again")
    while True:
        check()
        try:
            _tidy(config, told, "its walk")
            return
        except StoreUnavailable:
            time.sleep(LEASE_POLL)


@dataclass(frozen=True)
class _Taken:
    """A job as its worker runs it: its id, kind and checked parameters; ``say`` tells
    one of its lines (then ``check``), ``check`` raises _Stopped once it must stop."""

    id: int
    kind: str
    params: Mapping[str, Any]
    say: Callable[[str], None]
    check: Callable[[], None]


def _run_waiting(config: Config, job: _Taken) -> str:
    """Run the job; while another run holds some of its hosts, wait for them (a cancel
    or a stop ends the wait), then start again."""
    waited: list[str] = []
    while True:
        try:
            return _run(config, job)
        except HostsLeased as busy:
            if busy.hosts != waited:
                job.say(f"waits for its hosts: {busy}")
                waited = busy.hosts
            _wait_for_hosts(config, busy.hosts, job.check)


def _wait_for_hosts(config: Config, hosts: Sequence[str], check: Callable[[], None]) -> None:
    """Until no other run holds a lease on ``hosts`` (or it is stale)."""
    while True:
        check()
        with Store.open(config.store.url) as store:
            leases = [lease for lease in store.leases.list() if lease.host in hosts]
        now = datetime.now(UTC)
        if all(lease.stale(now) for lease in leases):
            return
        time.sleep(LEASE_POLL)


def _run(config: Config, job: _Taken) -> str:
    params, say = job.params, job.say
    if job.kind == "run":
        return _run_walk(config, job)
    if job.kind == "try":
        from perfwalk.services.try_change import TryOptions, run_try

        result = run_try(
            config,
            TryOptions(
                base=params["base"],
                head=params.get("head"),
                variant=params.get("variant"),
                max_repetitions=params.get("max_repetitions"),
                confidence=params.get("confidence"),
                profile=bool(params.get("profile")),
            ),
            say=say,
        )
        return f"try finished: series {result.series_id}"
    if job.kind == "drill":
        return _run_drills(config, params, say)
    from perfwalk.composites.watch import watch_once

    cycle = watch_once(config, say=say)
    return (
        f"watch cycle: {many(len(cycle.new), 'new change')}, "
        f"{many(len(cycle.failed), 'walk')} failed, "
        f"site {cycle.site.index}"
    )


def _run_walk(config: Config, job: _Taken) -> str:
    from perfwalk.services.run import run_series

    job_id, say = job.id, job.say
    with Store.open(config.store.url) as store:
        walked = store.job_series.of(job_id)
        state = store.series(walked).state if walked is not None else None
    if state == "finished":  # its worker was lost after the walk ended
        return f"series {walked} finished"
    if walked is not None:
        say(f"continues series {walked}")

    def walks(series_id: int) -> None:
        with Store.open(config.store.url) as store:
            store.job_series.record(job_id, series_id)

    result = run_series(
        config,
        _run_options(job.params, walked),
        lambda _step: job.check(),
        say=say,
        walks=walks,
    )
    verb = "resumed and finished" if result.resumed else "finished"
    return (
        f"series {result.series_id} {verb}: {many(result.checkouts, 'checkout')} × "
        f"{many(result.per_checkout(), 'repetition')}; worst status {result.worst.name}"
    )


def _run_drills(config: Config, options: Mapping[str, Any], say: Callable[[str], None]) -> str:
    from perfwalk.drill import Budget
    from perfwalk.services.drill import between_target, change_targets, run_drill
    from perfwalk.services.inspect import opened

    with opened(config) as store:
        if options.get("between"):
            good, bad = options["between"]
            targets = [
                between_target(
                    store,
                    config,
                    (str(good), str(bad)),
                    test=options.get("test"),
                    name=options.get("value"),
                )
            ]
        else:
            targets = change_targets(
                store,
                config,
                chosen=options.get("change"),
                test=options.get("test"),
                name=options.get("value"),
            )
    budget = Budget(
        max_builds=int(options.get("max_builds") or Budget.max_builds),
        max_repetitions=int(options.get("max_repetitions") or Budget.max_repetitions),
    )
    answers = []
    for target in targets:
        result = run_drill(config, target, budget, say=say)
        answers.append(f"{target.metric}: {result.done.verdict.value}, series {result.series_id}")
    return "drills: " + ("; ".join(answers) or "no changes to drill")
