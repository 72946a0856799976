"""The choice of an adaptive walk's next checkout (pure): on histories shaped like
real ones (steps, slow drift, autocorrelated noise), every step of 5 % or more is
located to its exact commit within a budget far below a walk of every commit; a
budget of 2 measures the ends; a flat history stops soon after the coarse pass."""

from __future__ import annotations

import random

import pytest

from perfwalk.analysis.adaptive_walk import (
    Next,
    Stop,
    Values,
    coarse_count,
    coarse_positions,
    next_checkout,
)


def _history(
    length: int, steps: dict[int, float], seed: int, noise: float = 0.02, drift: float = 0.01
) -> tuple[list[float], random.Random]:
    """The true level of each commit: 100, times each step from its commit on, with a
    slow drift of ``drift`` over the whole line."""
    levels, level = [], 100.0
    for k in range(length):
        level *= steps.get(k, 1.0)
        levels.append(level * (1 + drift * k / length))
    return levels, random.Random(seed)


def _walk(
    levels: list[float],
    rng: random.Random,
    budget: int,
    *,
    noise: float = 0.02,
    repetitions: int = 3,
    failed: frozenset[int] = frozenset(),
) -> tuple[dict[int, Values], Stop]:
    """The adaptive walk run to its end on ``levels``: repetitions with
    autocorrelated noise (each build a little off, repetitions of it close)."""
    measured: dict[int, Values] = {}
    tried: set[int] = set()
    while True:
        choice = next_checkout(0, len(levels) - 1, measured, budget=budget, failed=tried & failed)
        if isinstance(choice, Stop):
            return measured, choice
        assert isinstance(choice, Next)
        assert choice.position not in {*measured, *tried}
        tried.add(choice.position)
        if choice.position in failed:
            continue
        build = rng.gauss(0, noise / 2)  # the build's own offset
        values = [
            levels[choice.position] * (1 + build + rng.gauss(0, noise)) for _ in range(repetitions)
        ]
        measured[choice.position] = {"bench.time": values}


@pytest.mark.parametrize("seed", range(6))
def test_every_step_of_5_percent_is_located_to_its_commit(seed: int) -> None:
    rng = random.Random(seed)
    length = 1000
    at = sorted(rng.sample(range(20, length - 20), 4))
    sizes = [rng.choice((-1, 1)) * rng.uniform(0.05, 0.3) for _ in at]
    levels, noisy = _history(length, dict(zip(at, (1 + s for s in sizes), strict=True)), seed)
    measured, stop = _walk(levels, noisy, budget=120)
    positions = sorted(measured)
    for step in at:
        assert {step - 1, step} <= set(measured), (step, stop, positions)
    assert len(measured) <= 120
    # a walk of every 10th commit and a drill of each step spend more than this
    assert len(measured) < length // 10 + 4 * 4, stop


def test_a_budget_of_two_measures_the_ends() -> None:
    levels, rng = _history(500, {250: 1.2}, seed=1)
    measured, stop = _walk(levels, rng, budget=2)
    assert sorted(measured) == [0, 499]
    assert stop.reason == "the budget of 2 checkouts is spent"


def test_a_flat_history_stops_soon_after_the_coarse_pass() -> None:
    levels, rng = _history(2000, {}, seed=3)
    measured, stop = _walk(levels, rng, budget=60)
    assert len(measured) <= coarse_count(60, 2000) + 4, sorted(measured)
    assert stop.reason == "every gap is a single commit or flat within noise"


def test_a_single_repetition_per_checkout_still_finds_the_step() -> None:
    levels, rng = _history(300, {123: 0.85}, seed=4, drift=0.0)
    measured, _stop = _walk(levels, rng, budget=40, repetitions=1, noise=0.01)
    assert {122, 123} <= set(measured)


def test_a_checkout_that_gives_nothing_is_stepped_around() -> None:
    levels, rng = _history(100, {40: 1.3}, seed=5, drift=0.0)
    measured, _stop = _walk(levels, rng, budget=40, failed=frozenset({50, 39}))
    # the step lies between the last commit before it that built and commit 40
    assert {38, 40} <= set(measured)
    assert 39 not in measured


def test_the_coarse_pass_takes_the_ends_first_then_evenly_spaced() -> None:
    assert coarse_positions(0, 100, 2) == [0, 100]
    assert coarse_positions(0, 100, 30) == [0, 100, 17, 33, 50, 67, 83]
    assert coarse_positions(5, 6, 30) == [5, 6]
    assert coarse_positions(0, 0, 30) == [0]
