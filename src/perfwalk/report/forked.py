"""Work spread over forked processes, for both publishers (the site's blocks, the
regress matrix's runs).

The work is a function of a number (``0`` … ``count - 1``): the processes are
forked, so they inherit the function and all it holds (an open store, what was
read from it) and nothing of it is pickled; only the numbers go to them and what
the function returns comes back. A worker ends when the publisher does, even one
killed with SIGKILL, and a worker that dies is an error naming what it wrote.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar, cast

from perfwalk.errors import PerfwalkError
from perfwalk.hosts.leftovers import end_with

_R = TypeVar("_R")

#: the work of the pool being run, inherited by its forked workers (never pickled)
_WORK: Callable[[int], object] | None = None
_START: Callable[[], None] | None = None


def can_fork(*, computing: bool = False) -> bool:
    """Whether forking is safe (one thread: no lock held by another) and worth it
    (a second core). ``computing``: the forked work only computes on what it
    inherits and returns its result (no store, no file, no lock of this process), so
    that what another thread holds at the fork (a lease's heartbeat writing to the
    store) cannot stop it: other threads do not matter."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    return (
        cores > 1
        and (computing or threading.active_count() == 1)
        and "fork" in multiprocessing.get_all_start_methods()
    )


def in_forks(
    work: Callable[[int], _R],
    count: int,
    workers: int,
    *,
    what: str,
    start: Callable[[], None] | None = None,
    hint: str = "publish again; if it keeps failing, publish with --full",
) -> list[_R]:
    """``[work(0), …, work(count - 1)]``, computed by up to ``workers`` forked
    processes (by this one when ``workers`` or ``count`` is below 2). ``start`` runs
    first in each forked process (to open its own connections); ``what`` names the
    work in the error of a process that died, ``hint`` what to do then."""
    global _WORK, _START  # noqa: PLW0603 (what the forked workers inherit)
    workers = min(workers, count)
    if workers <= 1:
        return [work(number) for number in range(count)]
    if _WORK is not None:
        raise RuntimeError("in_forks does not nest")
    _WORK, _START = work, start
    try:
        with ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_started,
            initargs=(os.getpid(),),
        ) as pool:
            done = list(pool.map(_call, range(count), chunksize=1))
    except BrokenProcessPool:
        raise PerfwalkError(
            f"a process writing {what} ended before it was done",
            hint=hint,
        ) from None
    finally:
        _WORK = _START = None
    return cast("list[_R]", done)  # what work returned, through the pool


def _started(parent: int) -> None:
    end_with(parent)  # a killed publish leaves no worker behind
    if _START is not None:
        _START()


def _call(number: int) -> object:
    assert _WORK is not None
    return _WORK(number)
