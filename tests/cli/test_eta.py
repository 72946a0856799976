"""The ETA of a walk, in its progress bar and in `perfwalk status`: the repetitions left
at the time a repetition took and the builds left at the time a build took, both
measured; the two agree for the same times. Pure: a clock the test turns."""

from __future__ import annotations

import io
from typing import Any, cast

from perfwalk.cli.progress import ProgressBar
from perfwalk.orchestrate.walk.walk_progress import BUILDING, CHECKOUT_DONE, Progress, time_left
from perfwalk.services.inspect import SeriesStatus, build_pace, recent_pace

BUILD, REPETITION = 30.0, 2.0  # seconds


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _bar() -> tuple[ProgressBar, Clock]:
    clock = Clock()
    return ProgressBar(io.StringIO(), terminal=False, clock=clock), clock


def test_time_left_counts_repetitions_and_builds_at_their_own_times() -> None:
    assert time_left(REPETITION, BUILD, 5, 2) == 5 * REPETITION + 2 * BUILD
    assert time_left(REPETITION, None, 5, 0) == 5 * REPETITION  # no build left
    assert time_left(None, BUILD, 5, 2) is None  # no repetition timed yet
    assert time_left(REPETITION, None, 5, 1) is None  # a build left, none timed


def test_the_bar_right_after_a_build_does_not_take_it_for_a_repetition() -> None:
    # 3 checkouts × 2 repetitions, built one after the other: 30 s a build, 2 s a
    # repetition; after the first repetition 5 repetitions and 2 builds are left
    bar, clock = _bar()
    bar(Progress(0, 6, 1, 3, "building", BUILDING, "a" * 40, builds=3, built=1))
    clock.now = BUILD
    bar(Progress(0, 6, 1, 3, "repetition 1", commit="a" * 40, builds=3, built=1))
    clock.now = BUILD + REPETITION
    step = Progress(1, 6, 1, 3, "repetition 2", commit="a" * 40, builds=3, built=1)
    bar(step)
    print(bar.eta(step))
    assert bar.eta(step) == "1m10s"  # 5 × 2 s + 2 × 30 s (a rate of 32 s a repetition: 2m40s)


def test_the_bar_of_a_walk_in_rounds_counts_no_build_once_all_are_built() -> None:
    bar, clock = _bar()
    for built in (1, 2, 3):  # every checkout built first
        bar(Progress(0, 6, built, 3, "building", BUILDING, "a" * 40, builds=3, built=built))
        clock.now += BUILD
    bar(Progress(0, 6, 2, 3, "repetition 1", commit="a" * 40, builds=3, built=3))
    clock.now += REPETITION
    done = Progress(1, 6, 2, 3, "latency 1 ms", CHECKOUT_DONE, "a" * 40, builds=3, built=3)
    bar(done)
    print(bar.eta(done))
    assert bar.eta(done) == "10s"  # 5 × 2 s (the old rate: 92 s a repetition)


def test_status_and_the_bar_give_one_eta_for_the_same_times() -> None:
    times = [(_at(start), _at(start + REPETITION)) for start in (0, 40, 42)]
    assert recent_pace(times) == REPETITION  # its own time, not the gap with a build
    assert build_pace([BUILD, None, BUILD, BUILD + 2]) == BUILD
    status = SeriesStatus(
        series=cast(Any, None),
        state="running",
        walker=None,
        walker_gone=False,
        checkouts=1,
        planned=3,
        built=1,
        build_failed=0,
        repetitions_done=1,
        repetitions_total=6,
        repetitions_given_up=0,
        worst={},
        pace=REPETITION,
        build_pace=BUILD,
        builds_left=2,
    )
    assert status.eta == 5 * REPETITION + 2 * BUILD  # as the bar says: 1m10s


def _at(seconds: float) -> Any:
    from datetime import UTC, datetime, timedelta

    return datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=seconds)
