"""A queue worker's upkeep (team mode, docs/team.md): its heartbeat kept beside a
running job, the jobs of lost workers put back in the queue, the queue's log told
one line at a time. procrastinate is imported when a worker runs, never before."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from perfwalk.orchestrate.session.queue import conninfo
from perfwalk.orchestrate.session.walker import interrupt
from perfwalk.store import Store

if TYPE_CHECKING:
    from procrastinate import App, JobContext


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
            line += f": {one_line(error)}"
        if line != self.last:
            self.last = line
            self.say(f"queue: {line}")


def one_line(error: BaseException) -> str:
    """``error`` in one line: its kind and the first line of its text."""
    text = (str(error).strip().splitlines() or [""])[0]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


@contextlib.contextmanager
def queue_log(say: Callable[[str], None]) -> Iterator[None]:
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


async def requeue_lost(app: App, url: str, stall: float, say: Callable[[str], None]) -> None:
    """Every little while, put back in the queue the jobs of workers that stopped
    beating for ``stall`` seconds (killed, a lost machine): another worker continues
    them. A job cancelled while its worker was lost ends cancelled, its series left
    interrupted."""
    from procrastinate.jobs import Status

    while True:
        await asyncio.sleep(max(0.5, stall / 4))
        try:
            stalled = await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=stall)
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
            say(f"cannot look for the jobs of lost workers: {one_line(error)}")


def _interrupt_job_series(url: str, job_id: int) -> list[int]:
    """Mark the series of job ``job_id`` (and its variants') interrupted where they are
    still running: their walker is lost."""
    with Store.open(url) as store:
        series_id = store.job_series.of(job_id)
        return [] if series_id is None else interrupt(store, series_id)


@contextlib.contextmanager
def keep_beating(url: str, context: JobContext, every: float) -> Iterator[None]:
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
