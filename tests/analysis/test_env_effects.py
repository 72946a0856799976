"""What moved a step, the code or the environment (perfwalk.analysis.env_effects), on
values shaped like real measurements: noise, a drift over the rounds (each round
measures every side, the next in the reverse order), an outlier."""

from __future__ import annotations

import random

import pytest

from perfwalk.analysis.env_effects import comparisons, env_effects
from perfwalk.analysis.ministat import Sample, difference
from perfwalk.analysis.sequential import each_confidence

ENVS = ("gcc-12", "gcc-13")


def _values(
    levels: dict[tuple[str, str], float], seed: int, *, noise: float = 0.02, drift: float = 0.0
) -> dict[tuple[str, str], list[float]]:
    """Five rounds of every side at its level, with noise and a drift that grows with
    the position in the run (the rounds alternate their order, as drill-env's do)."""
    rng = random.Random(seed)
    sides = list(levels)
    values: dict[tuple[str, str], list[float]] = {side: [] for side in sides}
    position = 0
    for rep in range(5):
        for side in sides if rep % 2 == 0 else reversed(sides):
            wander = 1 + drift * position / (5 * len(sides))
            values[side].append(levels[side] * wander * (1 + noise * rng.gauss(0, 1)))
            position += 1
    return values


def _levels(
    before: tuple[float, float], after: tuple[float, float]
) -> dict[tuple[str, str], float]:
    return {
        ("before", ENVS[0]): before[0],
        ("after", ENVS[0]): after[0],
        ("before", ENVS[1]): before[1],
        ("after", ENVS[1]): after[1],
    }


@pytest.mark.parametrize("seed", range(5))
def test_a_step_that_follows_the_compiler_is_named_with_its_share(seed: int) -> None:
    values = _values(_levels((100, 140), (100, 140)), seed, drift=0.03)
    answer = env_effects(values, ENVS, min_change=0.05, step=0.40)
    assert answer.verdict == "environment"
    assert answer.moved_by == ENVS
    assert answer.share is not None
    assert 0.8 < answer.share < 1.2
    assert "follows gcc-12 → gcc-13" in answer.said("bench.time")


@pytest.mark.parametrize("seed", range(5))
def test_a_step_the_commits_make_in_every_environment_is_the_codes(seed: int) -> None:
    values = _values(_levels((100, 100), (130, 130)), seed, drift=0.03)
    answer = env_effects(values, ENVS, min_change=0.05, step=0.30)
    assert answer.verdict == "code"
    assert all(c.counts and c.change > 0.2 for c in answer.commits)


def test_both_and_neither_and_an_effect_at_one_commit_only() -> None:
    both = env_effects(_values(_levels((100, 150), (130, 195)), 1), ENVS, min_change=0.05)
    assert both.verdict == "both"
    neither = env_effects(_values(_levels((100, 100), (100, 100)), 1), ENVS, min_change=0.05)
    assert neither.verdict == "neither"
    assert "not reproduced here" in neither.said("m")
    # the environment moves the after commit only: not one step
    one = env_effects(_values(_levels((100, 100), (100, 150)), 1), ENVS, min_change=0.05)
    assert one.verdict == "undecided"


def test_the_pair_named_is_the_one_that_matches_the_step() -> None:
    """Three environments: the second move doubles the metric, the first halves it like
    the walk's step did; the first is named."""
    envs = ("old", "new", "twice")
    levels = {(at, env): level for at in ("before", "after")
              for env, level in zip(envs, (18.0, 9.0, 18.0), strict=True)}  # fmt: skip
    answer = env_effects(_values(levels, 3, noise=0.01), envs, min_change=0.05, step=-0.49)
    assert (answer.verdict, answer.moved_by) == ("environment", ("old", "new"))


def test_noise_and_drift_alone_invent_no_explanation() -> None:
    """200 seeds of noise (2 %) with a drift of up to 4 % over the run and an outlier
    now and then (min_change 5 %): never an explanation (environment, code, both); at
    most now and then "undecided" (an effect at one commit only), else "neither"."""
    said = []
    for seed in range(200):
        values = _values(_levels((100, 100), (100, 100)), seed, drift=0.04)
        if seed % 7 == 0:  # one repetition disturbed
            values[("after", ENVS[1])][2] *= 1.12
        said.append(env_effects(values, ENVS, min_change=0.05).verdict)
    counts = {v: said.count(v) for v in set(said)}
    assert set(said) <= {"neither", "undecided"}, counts
    assert said.count("undecided") <= 10, counts


@pytest.mark.parametrize("noise", [0.10, 0.17])
def test_noise_as_wide_as_the_min_change_seldom_makes_a_commit_count(noise: float) -> None:
    """The compiler's step (-60 %), the two commits the same, the repetitions spread by
    10 or 17 % (a busy virtual machine's CPU time), a drift of 20 % over the run
    (min_change 5 %): each commit's effect is compared at 98.75 %, so that the four
    effects together hold at 95 %, and a commit that changed nothing counts in at most
    2.5 % of 400 drills (two of the four comparisons are of nothing). At 95 % each, as
    ministat compares two samples, 4 and 7 % of them did, and 2 and 4 % said "both"."""
    said: list[str] = []
    counted = 0
    for seed in range(400):
        values = _values(_levels((100, 40), (100, 40)), seed, noise=noise, drift=0.2)
        answer = env_effects(values, ENVS, min_change=0.05, step=-0.6)
        said.append(answer.verdict)
        counted += any(c.counts for c in answer.commits)
    assert counted <= 10, counted
    assert said.count("both") <= 4, said.count("both")
    assert said.count("environment") >= 370, {v: said.count(v) for v in set(said)}


def test_each_effect_is_compared_at_the_confidence_of_all_together() -> None:
    """Two environments make 4 comparisons, three make 7; at 80 % for all four, each
    is ministat's comparison at 95 % (its table's t)."""
    assert (comparisons(2), comparisons(3)) == (4, 7)
    assert each_confidence(95, 4) == pytest.approx(98.75)
    values = _values(_levels((100, 40), (100, 40)), 5, noise=0.05)
    answer = env_effects(values, ENVS, min_change=0.05, confidence=80)
    assert (answer.confidence, answer.each) == (80, 95)
    of = difference(
        Sample("gcc-13", tuple(values[("after", ENVS[1])])),
        Sample("gcc-12", tuple(values[("after", ENVS[0])])),
    )
    effect = answer.environments[-1]
    assert effect.change == pytest.approx(of.percent / 100)
    assert effect.high - effect.change == pytest.approx(of.percent_half_width / 100, rel=1e-3)
    wider = env_effects(values, ENVS, min_change=0.05).environments[-1]
    assert wider.high - wider.change > 1.3 * (effect.high - effect.change)
    with pytest.raises(ValueError, match="between 0 and 100"):
        env_effects(values, ENVS, min_change=0.05, confidence=100)
