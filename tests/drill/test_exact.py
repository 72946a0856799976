"""The noise-free drill of a break (a build that broke, a test that started failing):
one status per commit, a bisection to the first failing commit in about log2 of the
line's builds; unbuildable or flaky commits skipped to the smallest range; ends alike
give NO_CHANGE; never more than the budget."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import pytest

from perfwalk.drill import Budget, Done, DrillState, Verdict, next_action

#: what a commit gives: its values, or None when it does not build
Status = Callable[[int], tuple[float, ...] | None]


def _drill(length: int, status: Status, budget: Budget | None = None) -> Done:
    state = DrillState(
        tuple(f"{i:040x}" for i in range(length)), exact=True, budget=budget or Budget()
    )
    while True:
        action = next_action(state)
        if isinstance(action, Done):
            return action
        assert action.repetitions == 1
        values = status(action.position)
        if values is None:
            state = dataclasses.replace(state, unbuildable=state.unbuildable | {action.position})
            continue
        state = dataclasses.replace(
            state,
            measured={**state.measured, action.position: values},
            order=(*state.order, *[action.position] * len(values)),
        )


@pytest.mark.parametrize("culprit", [1, 2, 7, 16, 30, 31])
def test_the_first_failing_commit_is_named_in_log2_builds(culprit: int) -> None:
    done = _drill(32, lambda p: (1.0 if p >= culprit else 0.0,))
    assert done.verdict is Verdict.CULPRIT
    assert done.culprit == culprit
    assert done.confidence == 1.0
    assert done.builds <= 2 + math.ceil(math.log2(31))
    assert done.repetitions == done.builds  # one status each


def test_a_commit_that_does_not_build_at_the_break_gives_the_smallest_range() -> None:
    done = _drill(16, lambda p: None if p == 9 else (1.0 if p >= 9 else 0.0,))
    assert done.verdict is Verdict.RANGE
    assert (done.lo, done.hi) == (8, 10)
    assert "unbuildable" in done.reason


def test_a_flaky_commit_is_skipped_not_placed() -> None:
    done = _drill(8, lambda p: (0.0, 1.0) if p == 5 else (1.0 if p >= 5 else 0.0,))
    assert done.verdict is Verdict.RANGE
    assert (done.lo, done.hi) == (4, 6)
    assert "between" in done.reason


def test_ends_alike_give_no_change() -> None:
    done = _drill(8, lambda _p: (1.0,))
    assert done.verdict is Verdict.NO_CHANGE
    assert done.builds == 2


def test_a_break_that_comes_back_is_not_a_single_step() -> None:
    done = _drill(9, lambda p: (1.0 if p in (4, 8) else 0.0,))  # fails at 4, passes at 5–7
    assert done.verdict in (Verdict.CULPRIT, Verdict.UNDECIDED)
    if done.verdict is Verdict.CULPRIT:  # bisection saw only one of the two: an honest step
        assert done.culprit in (4, 8)


def test_the_budget_of_builds_gives_undecided() -> None:
    done = _drill(64, lambda p: (1.0 if p >= 40 else 0.0,), Budget(max_builds=4))
    assert done.verdict is Verdict.UNDECIDED
    assert done.builds == 4
    assert "budget" in done.reason
    assert done.lo < 40 <= done.hi
