"""Team mode's use cases: submit a use case as a job, list and cancel jobs, and be a
worker that runs them (docs/team.md).

:func:`submit` is what ``perfwalk submit`` and the HTTP API call. A worker
(:func:`run_worker`) takes the jobs of its pools' queues one at a time and runs the
same service function as the direct command (:func:`perfwalk.services.run.run_series`,
:func:`~perfwalk.services.try_change.run_try`, :func:`~perfwalk.services.drill.run_drill`,
:func:`~perfwalk.services.watch.watch_once`) with the configuration the job carries,
holding the hosts' leases as that function does. A job cancelled while it runs stops
at its next step (a walk: before its next repetition) and its series is left
interrupted. A worker that stops (SIGTERM, Ctrl-C) stops its job the same way and
puts it back in the queue; a worker that dies (``kill -9``) stops its heartbeat, and
after ``stall`` seconds another worker puts its job back in the queue: a walk run
again continues its series as ``run --resume`` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfwalk.config.load import load_config
from perfwalk.config.model import Config
from perfwalk.errors import PerfwalkError, UsageError
from perfwalk.orchestrate.plan import RunOptions
from perfwalk.orchestrate.queue import (
    KINDS,
    SCHEDULED_WATCH,
    TASK,
    WATCH_QUEUE,
    JobRequest,
    JobRow,
    cancel,
    conninfo,
    defer,
    ensure_schema,
    job_pool,
    lease_names,
    list_jobs,
    queue_app,
)
from perfwalk.secret_text import hide_password
from perfwalk.store import Store
from perfwalk.store.leases import user_at_machine

if TYPE_CHECKING:
    from procrastinate import App, JobContext
    from procrastinate.app import WorkerOptions

#: The option names each kind of job takes (those of its direct command).
_RUN_OPTIONS = frozenset(f.name for f in dataclasses.fields(RunOptions)) - {"resume_series"}
_TRY_OPTIONS = frozenset(
    {"base", "head", "variant", "max_repetitions", "confidence", "patches", "profile"}
)
_DRILL_OPTIONS = frozenset({"change", "between", "test", "value", "max_builds", "max_repetitions"})


def submit(config: Config, kind: str, options: Mapping[str, Any]) -> int:
    """Queue the use case ``kind`` (run, drill, try, watch) of ``config`` with
    ``options`` (the direct command's options by their names: ``from_``, ``to``,
    ``repetitions``… for run; ``base``, ``head``… for try; JSON values) and return the
    job's id. The job carries the configuration's text: a worker needs no shared file,
    only the project's repository at the same path. Options are checked here, so that
    a mistake is told to the one who submits, not to the worker's log."""
    if kind not in KINDS:
        raise UsageError(f"no job kind {kind!r}", hint=f"one of {', '.join(KINDS)}")
    _check_options(kind, options)
    request = JobRequest(
        kind=kind,
        config_path=str(Path(config.path).resolve()),
        config_text=Path(config.path).read_text(encoding="utf-8"),
        options=dict(options),
        owner=user_at_machine(),
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


def _check_options(kind: str, options: Mapping[str, Any]) -> None:
    allowed = {
        "run": _RUN_OPTIONS,
        "try": _TRY_OPTIONS,
        "drill": _DRILL_OPTIONS,
        "watch": frozenset(),
    }[kind]
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise UsageError(
            f"a {kind} job takes no option {', '.join(unknown)}",
            hint=f"its options: {', '.join(sorted(allowed)) or 'none'}",
        )
    if kind == "try":
        if options.get("patches"):
            raise UsageError(
                "a try job cannot carry patch files (a worker may not see them)",
                hint="describe the patch as a [[variant]] and give --variant NAME",
            )
        if not options.get("base"):
            raise UsageError("a try job needs its base commit", hint="perfwalk submit try BASE")
    if kind == "run":
        _run_options(options, None)
    if kind == "drill" and not options.get("change") and not options.get("between"):
        raise UsageError(
            "a drill job needs a change or a range",
            hint="perfwalk submit drill --change ID, or --between GOOD BAD",
        )


def _run_options(options: Mapping[str, Any], resume_series: int | None) -> RunOptions:
    values = dict(options)
    values["variants"] = tuple(values.get("variants") or ())
    if resume_series is not None:
        values.update(resume=True, resume_series=resume_series, walk=None)
    try:
        return RunOptions(**values)
    except TypeError as error:
        raise UsageError(
            f"bad options of a run job: {error}", hint="perfwalk submit run -h"
        ) from None


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
    job's lines, prefixed by its id."""
    url = config.store.url
    _ready(config)
    app = queue_app(url)
    worker_name = name or user_at_machine()

    @app.task(name=TASK, pass_context=True, retry=_retry())
    def job(context: JobContext, request: dict[str, Any]) -> str:
        with _beating(url, context, timing.heartbeat):
            return _perform(context, JobRequest.of(request), say)

    if config.watch.schedule:

        def scheduled(context: JobContext, timestamp: int) -> str:
            del timestamp
            request = JobRequest(
                kind="watch",
                config_path=str(Path(config.path).resolve()),
                config_text=Path(config.path).read_text(encoding="utf-8"),
                options={},
                owner="(schedule)",
                hosts=(),
            )
            with _beating(url, context, timing.heartbeat):
                return _perform(context, request, say)

        task = app.task(name=SCHEDULED_WATCH, pass_context=True, retry=_retry())(scheduled)
        app.periodic(
            cron=config.watch.schedule,
            periodic_id=config.project.name,
            queue=WATCH_QUEUE,
            lock=WATCH_QUEUE,
        )(task)

    logging.getLogger("procrastinate").setLevel(logging.WARNING)
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
            watcher = asyncio.create_task(_requeue_lost(app, timing, say))
            try:
                await app.run_worker_async(**options)
            finally:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher

    asyncio.run(work())


def _retry() -> Any:
    from procrastinate import RetryStrategy

    # only a job its stopping worker put down is taken again (an error is told, not
    # repeated); the attempts bound a job that every worker stops
    return RetryStrategy(max_attempts=20, retry_exceptions={_WorkerStopped})


class _WorkerStopped(Exception):
    """The worker stopped (SIGTERM, SIGINT) while the job ran: it goes back in the queue."""


async def _requeue_lost(app: App, timing: WorkerTiming, say: Callable[[str], None]) -> None:
    """Every little while, put back in the queue the jobs of workers that stopped
    beating (killed, a lost machine): another worker continues them."""
    while True:
        await asyncio.sleep(max(0.5, timing.stall / 4))
        try:
            stalled = await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=timing.stall)
            for lost in stalled:
                with contextlib.suppress(Exception):  # another worker did it first
                    await app.job_manager.retry_job(lost)
                    say(f"job {lost.id}: its worker is lost; queued again")
        except Exception as error:  # the store went away for a moment: next time
            say(f"cannot look for the jobs of lost workers: {error}")


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


def _perform(context: JobContext, request: JobRequest, say: Callable[[str], None]) -> str:
    """Run one job; what it did, in one line (the queue keeps it as the job's result)."""
    from procrastinate.exceptions import JobAborted
    from procrastinate.job_context import AbortReason

    job_id = int(context.job.id or 0)
    attempt = context.job.attempts

    def told(line: str) -> None:
        say(f"job {job_id}: {line}")

    def check() -> None:
        if context.should_abort():
            raise _Stopped()

    def told_and_checked(line: str) -> None:
        told(line)
        check()

    told(
        f"{request.kind} of {request.config_path} for {request.owner}"
        + (f" (attempt {attempt + 1})" if attempt else "")
    )
    try:
        config = load_config(Path(request.config_path), request.config_text)
        outcome = _run(config, request, job_id, told_and_checked, check)
    except _Stopped:
        if context.abort_reason() is AbortReason.USER_REQUEST:
            told("cancelled; what it measured is kept")
            raise JobAborted() from None
        told("its worker stops: queued again")
        raise _WorkerStopped() from None
    except PerfwalkError as error:
        told(f"failed: {error}")
        raise
    told(outcome)
    return outcome


def _run(
    config: Config,
    request: JobRequest,
    job_id: int,
    say: Callable[[str], None],
    check: Callable[[], None],
) -> str:
    options = request.options
    if request.kind == "run":
        return _run_walk(config, options, job_id, say, check)
    if request.kind == "try":
        from perfwalk.services.try_change import TryOptions, run_try

        result = run_try(
            config,
            TryOptions(
                base=str(options["base"]),
                head=options.get("head"),
                variant=options.get("variant"),
                max_repetitions=options.get("max_repetitions"),
                confidence=options.get("confidence"),
                profile=bool(options.get("profile")),
            ),
            say=say,
        )
        return f"try finished: series {result.series_id}"
    if request.kind == "drill":
        return _run_drills(config, options, say)
    from perfwalk.services.watch import watch_once

    cycle = watch_once(config, say=say)
    return (
        f"watch cycle: {len(cycle.new)} new changes, {len(cycle.failed)} walks failed, "
        f"site {cycle.site.index}"
    )


def _run_walk(
    config: Config,
    options: Mapping[str, Any],
    job_id: int,
    say: Callable[[str], None],
    check: Callable[[], None],
) -> str:
    from perfwalk.services.run import run_series

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
        _run_options(options, walked),
        lambda _step: check(),
        say=say,
        walks=walks,
    )
    verb = "resumed and finished" if result.resumed else "finished"
    return (
        f"series {result.series_id} {verb}: {result.checkouts} checkouts × "
        f"{result.per_checkout()} repetitions; worst status {result.worst.name}"
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
