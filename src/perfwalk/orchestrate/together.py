"""Run several jobs at once, started together behind a barrier.

Each job runs in a thread of its own; all threads wait at a
:class:`threading.Barrier` and start at the same moment, so the commands of a
source, a device under test and a sink begin within a few milliseconds of each
other (over multiplexed ssh connections, the time of one round-trip). Unlike a
conductor that sends RUN to its players one after another, nothing is skewed by
the order of the hosts.

Ctrl-C in the main thread sets the ``cancel`` event each job receives (hosts stop
their command at once), waits for every thread, then raises KeyboardInterrupt.
"""

from __future__ import annotations

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

    def worker(index: int, job: Job[T]) -> None:
        try:
            barrier.wait()
            results[index] = job(event)
        except threading.BrokenBarrierError:
            return
        except BaseException as error:  # re-raised in the calling thread
            errors.append(error)

    threads = [
        threading.Thread(target=worker, args=(i, job), name=f"perfwalk-job-{i}", daemon=True)
        for i, job in enumerate(jobs)
    ]
    for thread in threads:
        thread.start()
    interrupted = False
    for thread in threads:
        while thread.is_alive():
            try:
                thread.join(_JOIN_POLL)
            except KeyboardInterrupt:
                interrupted = True
                event.set()
                barrier.abort()
    if interrupted:
        raise KeyboardInterrupt
    if errors:
        raise errors[0]
    return cast(list[T], results)
