"""The choice of an adaptive walk's next checkout (pure): on histories shaped like
real ones (steps, slow drift, autocorrelated noise), every step of 5 % or more is
located to its exact commit within a budget far below a walk of every commit, and
seen by the change detection at the end (a step of 5 % at 2.6 % of noise too); a
gap whose ends agree while the levels around it differ is not flat; a budget of 2
measures the ends; a flat history, drifting, with autocorrelated noise, stops soon
after the coarse pass with no step."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from perfwalk.analysis.adaptive_walk import (
    MOST,
    More,
    Next,
    Search,
    Stop,
    Values,
    coarse_count,
    coarse_positions,
    next_checkout,
)
from perfwalk.analysis.changepoints import find_change_points
from perfwalk.analysis.segments import DEFAULT_TUNING


def _history(
    length: int,
    steps: dict[int, float],
    seed: int,
    *,
    noise: float = 0.02,
    drift: float = 0.01,
    wander: float = 0.0,
) -> tuple[list[float], random.Random]:
    """The true level of each commit: 100, times each step from its commit on, with a
    slow drift of ``drift`` over the whole line, and an AR(1) wander from commit to
    commit (φ 0.8, innovations of ``wander``: what the toolchain and the machine
    add that no repetition averages out)."""
    levels, level, offset = [], 100.0, 0.0
    wandering = random.Random(f"{seed}/wander")
    for k in range(length):
        level *= steps.get(k, 1.0)
        offset = 0.8 * offset + wandering.gauss(0, wander)
        levels.append(level * (1 + drift * k / length) * (1 + offset))
    return levels, random.Random(seed)


def _walk(
    levels: list[float],
    rng: random.Random,
    budget: int,
    *,
    noise: float = 0.02,
    repetitions: int = 3,
    failed: frozenset[int] = frozenset(),
    build: float | None = None,
) -> tuple[dict[int, Values], Stop]:
    """The adaptive walk run to its end on ``levels``: repetitions with
    autocorrelated noise (each build a little off, by ``build``, ``noise / 2`` by
    default, repetitions of it close)."""
    measured: dict[int, Values] = {}
    tried: set[int] = set()
    offsets: dict[int, float] = {}
    while True:
        choice = next_checkout(0, len(levels) - 1, measured, budget=budget, failed=tried & failed)
        if isinstance(choice, Stop):
            return measured, choice
        at, count = choice.position, repetitions
        if isinstance(choice, More):  # more of a checkout measured (the same build)
            assert at in measured, choice
            assert choice.repetitions > 0, choice
            count = choice.repetitions
        else:
            assert at not in {*measured, *tried}
            tried.add(at)
            if at in failed:
                continue
            offsets[at] = rng.gauss(0, noise / 2 if build is None else build)  # the build's own
        values = [levels[at] * (1 + offsets[at] + rng.gauss(0, noise)) for _ in range(count)]
        measured[at] = {"bench.time": [*measured.get(at, {}).get("bench.time", ()), *values]}


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


def _seen(measured: dict[int, Values]) -> list[tuple[int, int]]:
    """The changes the detection reports in the measured series (as ``perfwalk
    changes`` does): the commits before and after each."""
    positions = sorted(measured)
    detection = find_change_points([measured[p]["bench.time"] for p in positions])
    return [(positions[c.previous], positions[c.index]) for c in detection.changes]


#: bench/adaptive.py's seed 3: six steps, two of them of 5.3 % and 5.6 %
SMALL_STEPS = {174: 0.947, 368: 0.71, 574: 1.141, 724: 1.056, 784: 0.772, 906: 0.772}


@pytest.mark.parametrize("seed", range(4))
def test_a_step_of_5_percent_at_2_6_percent_of_noise_is_seen_by_the_detection(seed: int) -> None:
    # 5 repetitions of 2.6 % each: two checkouts alone barely tell 5 % apart, and the
    # detection's bar rises for a short level: the walk stopped with these steps
    # located and not seen, or taken for flat
    levels, rng = _history(1000, SMALL_STEPS, seed, drift=-0.006)
    measured, stop = _walk(levels, rng, budget=73, noise=0.026, repetitions=5, build=0.0)
    seen = _seen(measured)
    for step in SMALL_STEPS:
        # located between two neighbouring commits, at the step or (the checkout
        # beside it reading between the two levels) one commit from it
        near = [(a, b) for a, b in seen if b == a + 1 and abs(b - step) <= 1]
        assert near, (step, seen, stop)
    assert len(seen) == len(SMALL_STEPS), (seen, stop)
    assert len(measured) <= 73


@pytest.mark.parametrize("seed", range(24))
def test_a_step_told_between_two_neighbouring_commits_is_told_at_its_commit(seed: int) -> None:
    # 5 repetitions of 2.6 % each at the steps of 5.3 % and 5.6 %: the checkout beside
    # such a step may read between the two levels, and the step be told one commit
    # off (bench/adaptive.py's seed 3: 723 read 2.5 % above its level); that checkout
    # gets more repetitions until its level is clear
    levels, rng = _history(1000, SMALL_STEPS, seed, drift=-0.006)
    measured, stop = _walk(levels, rng, budget=73, noise=0.026, repetitions=5, build=0.0)
    told = [(a, b) for a, b in _seen(measured) if b == a + 1]
    assert told, stop
    assert all(b in SMALL_STEPS for _a, b in told), (told, stop)
    # a few checkouts got more, at most 4 times the usual 5 repetitions
    counts = [len(values["bench.time"]) for values in measured.values()]
    assert sum(1 for count in counts if count > 5) <= 2 * len(SMALL_STEPS), counts
    assert max(counts) <= MOST * 5


#: the levels of bench/adaptive.py's seed 3 around its step of 5.6 % at commit 724,
#: each checkout 5 repetitions of 2.6 % (723 read between the two levels)
AROUND_724 = {0: 76.0, 143: 76.9, 285: 76.2, 428: 76.7, 571: 76.1, 714: 76.8, 720: 76.2}
AROUND_724 |= {722: 76.4, 724: 80.6, 725: 80.9, 730: 80.4, 760: 81.0, 800: 80.5, 856: 80.9}
AROUND_724 |= {900: 80.4, 950: 80.8, 999: 80.6}


def test_a_checkout_beside_a_step_that_reads_between_the_levels_gets_more_repetitions() -> None:
    measured = _measured(AROUND_724 | {723: 78.9})
    assert _seen(measured) == [(722, 723)]  # one commit early
    choice = next_checkout(0, 999, measured, budget=40)
    assert isinstance(choice, More), choice
    assert choice.position == 723, choice
    # as many as it takes a checkout at its level to be clear, at least 5 more
    assert 5 <= choice.repetitions <= (MOST - 1) * 5, choice
    assert "may lie on its other side" in choice.reason, choice.reason
    # measured more at its true level (the one before), the step is told at its commit
    measured[723] = {"bench.time": [*measured[723]["bench.time"], *[76.4] * choice.repetitions]}
    assert _seen(measured) == [(723, 724)]


def test_a_checkout_beside_a_step_clearly_at_its_level_gets_none() -> None:
    measured = _measured(AROUND_724 | {723: 76.6})
    assert _seen(measured) == [(723, 724)]
    choice = next_checkout(0, 999, measured, budget=40)
    assert not isinstance(choice, More), choice


def test_a_checkout_that_stays_between_the_levels_gets_at_most_four_times_the_repetitions() -> None:
    # a step that is not one (the level moves over two commits): 723 is between for
    # good; it gets more up to 4 times the usual count, then the walk goes on
    measured = _measured(AROUND_724 | {723: 78.7})
    asked = []
    while isinstance(choice := next_checkout(0, 999, measured, budget=40), More):
        asked.append(choice)
        assert choice.position == 723, choice
        more = [78.7 * (1 + 0.026 * d) for d in (-1, 1) * choice.repetitions]
        measured[723] = {"bench.time": [*measured[723]["bench.time"], *more[: choice.repetitions]]}
    assert asked, choice
    assert len(measured[723]["bench.time"]) <= MOST * 5
    # a checkout the caller cannot measure more gets none
    again = _measured(AROUND_724 | {723: 78.9})
    choice = next_checkout(0, 999, again, budget=40, settled={723})
    assert not (isinstance(choice, More) and choice.position == 723), choice


def test_more_repetitions_are_asked_for_when_the_budget_of_checkouts_is_spent() -> None:
    measured = _measured(AROUND_724 | {723: 78.9})
    choice = next_checkout(0, 999, measured, budget=len(measured))
    assert isinstance(choice, More), choice
    assert choice.position == 723


def _measured(levels: dict[int, float], spread: float = 0.026) -> dict[int, Values]:
    """Checkouts of 5 repetitions each around its level, ``spread`` apart at most."""
    return {
        p: {"bench.time": [v * (1 + spread * d) for d in (-1, -0.5, 0, 0.5, 1)]}
        for p, v in levels.items()
    }


#: a step at commit 174 of 5 %, with 4 checkouts before it and many after
SHORT_SIDE = {0: 99.1, 77: 98.2, 154: 99.4, 173: 101.7, 174: 94.1, 175: 95.8, 177: 93.5}
SHORT_SIDE |= {182: 95.5, 192: 93.8, 231: 96.1, 307: 94.1, 345: 95.8, 384: 93.5, 461: 95.5}
SHORT_SIDE |= {538: 93.8, 615: 96.1, 692: 94.1, 768: 95.8, 845: 93.5, 922: 95.5, 999: 93.8}


def test_a_gap_whose_ends_agree_is_not_flat_when_the_levels_around_it_differ() -> None:
    # a coarse pass over a step of 5 %: each checkout 5 repetitions of 2 % spread,
    # the two ends of every gap within noise of each other (150 read low, 200 high)
    levels = {0: 100.4, 50: 99.6, 100: 100.2, 150: 97.8, 200: 97.6, 250: 95.2, 300: 94.9}
    measured = _measured(levels)
    choice = next_checkout(0, 300, measured, budget=30)
    assert isinstance(choice, Next), choice
    assert 100 < choice.position < 250, choice
    assert "checkouts before and" in choice.reason


def test_a_step_located_but_not_seen_gets_checkouts_on_its_short_side() -> None:
    # the step at commit 174 is located (173 and 174 differ by 7 %, the levels of
    # their neighbours by 5 %), but its level before has 4 checkouts: too few for the
    # detection's bar
    measured = _measured(SHORT_SIDE)
    assert _seen(measured) == []
    choice = next_checkout(0, 999, measured, budget=73)
    assert isinstance(choice, Next), choice
    assert 0 < choice.position < 173, choice
    assert "not yet seen by the detection" in choice.reason


def test_the_gap_beside_a_step_placed_at_a_commit_is_measured_when_it_may_hold_it() -> None:
    # 723 read between the two levels: the detection places the step before it, but
    # 723 and 725 differ by 3 % too, so the step may lie at 724 (bench/adaptive.py's
    # seed 3 told it one commit off)
    before = {0: 76.0, 143: 76.9, 285: 76.2, 428: 76.7, 571: 76.1, 714: 76.8, 720: 76.2}
    before |= {722: 76.8, 723: 79.0}
    after = {725: 81.4, 730: 80.4, 760: 81.0, 800: 80.5, 856: 80.9, 900: 80.4, 950: 80.8}
    measured = _measured(before | after | {999: 80.6}, spread=0.04)
    assert _seen(measured) == [(722, 723)]
    choice = next_checkout(0, 999, measured, budget=40)
    assert choice == Next(724, choice.reason), choice
    assert "may lie here" in choice.reason


def test_the_detection_searches_each_metric_as_perfwalk_changes_does() -> None:
    # a step located at 173/174 is done when the search `perfwalk changes` runs on the
    # metric (its tuning, its checkouts' summary) reports it, not another search
    measured = _measured(SHORT_SIDE)
    strict = Search(replace(DEFAULT_TUNING, threshold=50.0))  # sees nothing
    loose = Search(replace(DEFAULT_TUNING, threshold=1.0, min_size=1))
    found = next_checkout(0, 999, measured, budget=73, searches={"bench.time": strict})
    assert isinstance(found, Next), found
    assert "not yet seen" in found.reason
    done = next_checkout(0, 999, measured, budget=73, searches={"bench.time": loose})
    assert "not yet seen" not in done.reason, done


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


@pytest.mark.parametrize("seed", range(6))
def test_a_flat_drifting_history_with_autocorrelated_noise_ends_with_no_step(seed: int) -> None:
    # 2 % of drift, AR(1) wander of about 0.7 % between commits, a build offset and
    # 2 % per repetition: levels that differ here and there, and no step anywhere
    levels, rng = _history(1000, {}, seed, drift=0.02, wander=0.004)
    measured, stop = _walk(levels, rng, budget=60, repetitions=5)
    assert _seen(measured) == [], (sorted(measured), stop)
    assert stop.reason == "every gap is a single commit or flat within noise"
    assert len(measured) < 60
    # no step located: no checkout got more repetitions than the others
    assert {len(values["bench.time"]) for values in measured.values()} == {5}


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


def test_the_difference_of_two_levels_is_said_over_the_level_before() -> None:
    # lz4's decompression: 18.0 M instructions, then 14.3 M (-20.6 %); the walk said
    # "-23.1 %", the difference over the two levels' middle
    coarse = coarse_positions(0, 100, 30)
    levels = {p: 18.0e6 if p < 50 else 14.3e6 for p in coarse}
    choice = next_checkout(0, 100, _measured(levels, spread=0.0001), budget=30)
    assert isinstance(choice, Next), choice
    assert "levels differ by -20.6%" in choice.reason, choice.reason
