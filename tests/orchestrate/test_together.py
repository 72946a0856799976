"""Jobs started together behind a barrier; errors and Ctrl-C come back to the caller."""

from __future__ import annotations

import threading
import time

import pytest

from perfwalk.orchestrate.hosts.together import run_together


def test_jobs_start_at_the_same_moment_and_results_keep_their_order() -> None:
    def job(delay: float) -> object:
        def run(_cancel: threading.Event) -> float:
            started = time.monotonic()
            time.sleep(delay)
            return started

        return run

    starts = run_together([job(0.2), job(0.0), job(0.1)])
    assert max(starts) - min(starts) < 0.05


def test_an_error_in_a_job_is_raised_once_all_ended() -> None:
    finished = threading.Event()

    def slow(_cancel: threading.Event) -> int:
        time.sleep(0.2)
        finished.set()
        return 1

    def broken(_cancel: threading.Event) -> int:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        run_together([slow, broken])
    assert finished.is_set()


def test_ctrl_c_sets_the_cancel_event_of_every_job() -> None:
    seen: list[bool] = []
    running = threading.Semaphore(0)

    def waits(cancel: threading.Event) -> None:
        running.release()
        seen.append(cancel.wait(10))

    def interrupts() -> None:
        # Ctrl-C once both jobs run (under load the barrier may take a while to open)
        for _ in range(2):
            assert running.acquire(timeout=10)
        import _thread

        _thread.interrupt_main()

    threading.Thread(target=interrupts).start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_together([waits, waits])
    assert time.monotonic() - started < 5
    assert seen == [True, True]
