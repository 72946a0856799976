"""The fork helper both publishers share: work by number, in forked processes."""

from __future__ import annotations

import multiprocessing
import os
import threading

import pytest

from perfwalk.errors import PerfwalkError
from perfwalk.report.forked import can_fork, in_forks


def test_forked_workers_return_what_this_process_would_in_order() -> None:
    parent = os.getpid()
    started: list[int] = []  # filled in each worker's own copy, never here

    def square(number: int) -> tuple[int, bool, bool]:
        return number * number, os.getpid() != parent, started == [os.getpid()]

    def start() -> None:
        started.append(os.getpid())

    forked = in_forks(square, 6, 2, what="squares", start=start)
    assert [value for value, _, _ in forked] == [n * n for n in range(6)]
    assert all(elsewhere and begun for _, elsewhere, begun in forked)
    alone = in_forks(square, 6, 1, what="squares", start=start)
    assert alone == [(n * n, False, False) for n in range(6)]  # here, no start
    assert started == []


def test_a_worker_that_dies_is_an_error_naming_the_work() -> None:
    def die(number: int) -> int:
        if number == 1:
            os._exit(3)
        return number

    with pytest.raises(PerfwalkError, match="a process writing the squares ended"):
        in_forks(die, 4, 2, what="the squares")


def test_an_error_in_a_worker_is_raised_here() -> None:
    def fail(number: int) -> int:
        raise ValueError(f"no {number}")

    with pytest.raises(ValueError, match="no "):
        in_forks(fail, 2, 2, what="nothing")


def test_work_that_only_computes_may_fork_beside_another_thread() -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    possible = cores > 1 and "fork" in multiprocessing.get_all_start_methods()
    alone = can_fork()
    stop = threading.Event()
    beating = threading.Thread(target=stop.wait, name="a lease's heartbeat")
    beating.start()
    try:
        assert not can_fork()  # a lock another thread holds could stop the fork
        assert can_fork(computing=True) == possible
        if possible:  # and the work runs forked, its result back
            assert in_forks(lambda n: (n, os.getpid()), 2, 2, what="x")[1][1] != os.getpid()
    finally:
        stop.set()
        beating.join()
    assert can_fork() == alone
