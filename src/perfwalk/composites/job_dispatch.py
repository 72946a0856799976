"""One job as its worker runs it (team mode, docs/team.md): its parameters checked
again against the worker's configuration, the use case of its kind run with it
(waiting while another run holds its hosts), and how it ended told in one line —
cancelled, put back in the queue (its worker stops, the store went away) or failed."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from perfwalk.config.model import Config
from perfwalk.config.test_selection import select_tests
from perfwalk.errors import PerfwalkError, StoreUnavailable, UsageError
from perfwalk.orchestrate.session.leases import LEASE_POLL, HostsLeased
from perfwalk.orchestrate.session.queue import JobRequest, cancel_asked
from perfwalk.orchestrate.session.queue_worker import one_line
from perfwalk.orchestrate.session.walker import left_running
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.quantities import many
from perfwalk.services.job_params import checked_params
from perfwalk.store import Store
from perfwalk.store.leases import Holder

if TYPE_CHECKING:
    from procrastinate import JobContext


class _Stopped(KeyboardInterrupt):
    """The job was cancelled, or its worker is stopping: it stops as for Ctrl-C (the
    series is marked interrupted, nothing finished is lost)."""


def job_retry() -> Any:
    """procrastinate's retry strategy for a job."""
    from procrastinate import RetryStrategy

    # only a job its stopping worker put down, or the store lost, is taken again (an
    # error is told, not repeated); the attempts bound a job that every worker stops
    return RetryStrategy(max_attempts=20, retry_exceptions={_WorkerStopped, _StoreLost})


class _WorkerStopped(Exception):
    """The worker stopped (SIGTERM, SIGINT) while the job ran: it goes back in the queue."""


class _StoreLost(Exception):
    """The store went away while the job ran: once it answers again, the job goes back
    in the queue (a walk continues its series)."""


def perform(
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
        told(f"failed: internal error: {one_line(error)}")
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

    tests = job.params.get("tests")
    if tests and walked is None:  # resumed, a series measures the tests it started with
        config = select_tests(config, tests, "tests", same_hash=True)
    result = run_series(
        config,
        _run_options(job.params, walked),
        lambda _step: job.check(),
        say=say,
        walks=walks,
    )
    if result.extended is not None:
        return (
            f"series {result.series_id} extended at {many(result.checkouts, 'checkout')}: "
            f"{result.extended.said()}; worst status {result.worst.name}"
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


def _run_options(params: Mapping[str, Any], resume_series: int | None) -> RunOptions:
    """The options of a run job's walk; run again (its worker stopped or was lost),
    it continues its series with the variants that series started with (an extension
    continues as ``--extend SERIES`` asked again does)."""
    values = {key: value for key, value in params.items() if key != "tests"}
    values["variants"] = tuple(values.get("variants") or ())
    if resume_series is not None and values.get("extend") is None:
        values.update(resume=True, resume_series=resume_series, walk=None, variants=())
    return RunOptions(**values)
