"""Run several jobs at once, started together behind a barrier.

Each job runs in a thread of its own; all threads wait at a
:class:`threading.Barrier` and start at the same moment, so the commands of a
source, a device under test and a sink begin within a few milliseconds of each
other (over multiplexed ssh connections, the time of one round-trip). Unlike a
conductor that sends RUN to its players one after another, nothing is skewed by
the order of the hosts.

Ctrl-C (or SIGTERM, SIGHUP: :class:`~perfwalk.errors.Interrupted`) in the main
thread sets the ``cancel`` event each job receives (hosts stop their command at
once), waits for every thread, then raises that KeyboardInterrupt again.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar, cast

T = TypeVar("T")

#: A job: called in its own thread with the cancel event, once every job is ready.
Job = Callable[[threading.Event], T]

_JOIN_POLL = 0.1


def run_together(jobs: Sequence[Job[T]], *, cancel: threading.Event | None = None) -> list[T]:
    """Run ``jobs`` at once; their results in the order given.

    An exception in a job is raised here once every job has ended.
    """
    event = cancel or threading.Event()
    if len(jobs) == 1:
        return [jobs[0](event)]
    barrier = threading.Barrier(len(jobs))
    results: list[T | None] = [None] * len(jobs)
    errors: list[BaseException] = []

    # our own "finished" events, not Thread.join: a join that Ctrl-C interrupts can
    # leave Thread.is_alive() false while the thread still runs (CPython gh-90882)
    finished = [threading.Event() for _ in jobs]

    def worker(index: int, job: Job[T]) -> None:
        try:
            barrier.wait()
            results[index] = job(event)
        except threading.BrokenBarrierError:
            return
        except BaseException as error:  # re-raised in the calling thread
            errors.append(error)
        finally:
            finished[index].set()

    threads = [  # each in a copy of this context: the output tap in place follows them
        threading.Thread(
            target=contextvars.copy_context().run,
            args=(worker, i, job),
            name=f"perfwalk-job-{i}",
            daemon=True,
        )
        for i, job in enumerate(jobs)
    ]
    interrupted: KeyboardInterrupt | None = None

    def stop(why: KeyboardInterrupt) -> None:
        nonlocal interrupted
        interrupted = interrupted or why  # the first stop says which signal it was
        event.set()
        barrier.abort()

    try:
        for thread in threads:
            thread.start()
    except KeyboardInterrupt as why:
        stop(why)
    started = [finished[i] for i, thread in enumerate(threads) if thread.ident is not None]
    while True:  # Ctrl-C may land anywhere in this loop: cancel, then wait again
        try:
            for done in started:
                while not done.wait(_JOIN_POLL):
                    pass
            break
        except KeyboardInterrupt as why:
            stop(why)
    if interrupted is not None:
        raise interrupted
    if errors:
        raise errors[0]
    return cast(list[T], results)
