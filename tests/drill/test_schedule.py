"""The drill scheduler on seeded simulated lines with known culprits."""

from __future__ import annotations

import math
import random

import pytest

from perfwalk.drill import (
    Budget,
    Done,
    DrillState,
    Measure,
    Settings,
    Side,
    Verdict,
    next_action,
)
from perfwalk.drill.shift import mann_whitney_p
from perfwalk.errors import UsageError
from tests.drill.simulate import (
    LEVEL,
    SIGMA,
    Line,
    Loaded,
    Noise,
    Run,
    bimodal,
    drill,
    gaussian,
    spiky,
)


def honest(run: Run, culprit: int) -> bool:
    """Exact, or a range that holds the culprit, or no claim at all."""
    done = run.done
    if done.verdict is Verdict.CULPRIT:
        return done.culprit == culprit
    if done.verdict is Verdict.RANGE:
        return done.lo < culprit <= done.hi
    return True


CASES: list[tuple[int, float, Noise]] = [
    (1, 3, gaussian),
    (40, 3, gaussian),
    (17, 2, gaussian),
    (23, 2, spiky),
    (5, 3, spiky),
    (31, 2, bimodal),
    (12, 3, bimodal),
    (20, -2, gaussian),  # the metric rises
]


@pytest.mark.parametrize(("culprit", "step", "noise"), CASES)
def test_known_culprit_is_found(culprit: int, step: float, noise: Noise) -> None:
    line = Line(culprit=culprit, step=step, noise=noise)
    run = drill(line, f"test-drill-known-{culprit}-{step}")
    done = run.done
    assert done.verdict is Verdict.CULPRIT, done.reason
    assert done.culprit == culprit
    assert (done.lo, done.hi) == (culprit - 1, culprit)
    assert done.confidence is not None
    assert done.confidence > 0.99
    assert done.levels is not None
    assert done.levels.before == pytest.approx(LEVEL, abs=2 * SIGMA)
    assert done.levels.shift.estimate == pytest.approx(-step * SIGMA, abs=1.5 * SIGMA)
    assert done.step is not None
    assert done.builds <= 12
    assert done.builds == len({r.position for r in run.requests})
    assert done.repetitions == sum(r.repetitions for r in run.requests)
    placed = {p.position: p for p in done.placements}
    assert placed[culprit - 1].side is Side.BEFORE
    assert placed[culprit - 1].confirmed
    assert placed[culprit].side is Side.AFTER
    assert placed[culprit].confirmed
    assert run.state.line[culprit][:12] in done.reason


def test_many_seeded_cases_are_exact_and_never_wrong() -> None:
    exact = 0
    for n in range(30):
        rng = random.Random(f"test-drill-many-{n}")
        culprit = rng.randint(1, 40)
        run = drill(Line(culprit=culprit, step=2.5), f"test-drill-many-run-{n}")
        assert honest(run, culprit), (n, run.done.reason)
        exact += run.done.culprit == culprit
    assert exact >= 28


def test_unbuildable_commit_at_the_change_gives_the_smallest_range() -> None:
    line = Line(culprit=17, step=3, unbuildable=frozenset({17}))
    run = drill(line, "test-drill-unbuildable")
    done = run.done
    assert done.verdict is Verdict.RANGE, done.reason
    assert (done.lo, done.hi) == (16, 18)
    assert "17" in done.reason
    assert "unbuildable" in done.reason
    tried = [r.position for r in run.requests]
    assert tried.count(17) == 1  # a failed build is never retried
    assert {p.position: p.side for p in done.placements}[17] is Side.UNBUILDABLE


def test_unbuildable_run_of_commits_widens_the_range_to_what_builds() -> None:
    line = Line(culprit=17, step=3, unbuildable=frozenset({15, 16, 17, 18}))
    done = drill(line, "test-drill-unbuildable-run").done
    assert done.verdict is Verdict.RANGE, done.reason
    assert (done.lo, done.hi) == (14, 19)


def test_unbuildable_neighbour_is_skipped_for_another() -> None:
    line = Line(culprit=30, step=3, unbuildable=frozenset({20, 10}))
    run = drill(line, "test-drill-neighbour")
    assert run.done.culprit == 30
    tried = [r.position for r in run.requests]
    assert 20 in tried
    assert tried.index(20) < len(tried) - 1
    assert tried[tried.index(20) + 1] in (19, 21)


def _ends_at_each_request(run: Run) -> list[tuple[Measure, int, int, float]]:
    """Each request with the values the two ends had then and their Mann–Whitney p."""
    last = run.state.last
    have = {end: len(run.state.stored.get(end, ())) for end in (0, last)}
    seen = []
    for request in run.requests:
        before, after = (run.state.values(end)[: have[end]] for end in (0, last))
        p = mann_whitney_p(before, after) if min(len(before), len(after)) >= 2 else 1.0
        seen.append((request, have[0], have[last], p))
        if request.position in have:
            have[request.position] += request.repetitions
    return seen


def test_heavy_noise_with_ends_that_clearly_differ_is_bisected_at_once() -> None:
    """A +50 % change under load: 30 % spread, loaded stretches, neighbouring runs alike.
    The ends differ at p ≤ 1e-4 after a few batches; from then on every repetition goes
    to the bisection (they were spent at the ends, up to 60 values each, "to pin the
    change", while the ends differed at p ≈ 1e-7) and the culprit is named, or a range
    that holds it: never a commit that a loaded stretch made look moved (the commits
    around the answer are measured in turns before it is given)."""
    exact = wrong = 0
    late: list[tuple[int, int, float]] = []  # drill, values at an end asked for, p then
    starts: list[tuple[int, int, float]] = []  # drill, values at an end, p: bisecting
    for n in range(20):
        culprit = random.Random(f"test-drill-loaded-{n}").randint(1, 39)
        line = Line(culprit=culprit, step=-0.5 * LEVEL / SIGMA, noise=Loaded(f"test-drill-l{n}"))
        run = drill(line, f"test-drill-loaded-run-{n}", expected=0.5)
        seen = _ends_at_each_request(run)
        first = next(i for i, (r, *_) in enumerate(seen) if r.position not in (0, line.length))
        late += [(n, r.repetitions, p) for r, _, _, p in seen[:first] if p <= 1e-4]
        _, at_start, at_end, p = seen[first]
        starts.append((n, max(at_start, at_end), p))
        exact += run.done.culprit == culprit
        wrong += not honest(run, culprit)
    assert late == []  # no end measured once the ends differ …
    assert all(p <= 1e-4 and values <= 40 for _, values, p in starts), starts  # … till then
    assert exact >= 17
    assert wrong == 0


@pytest.mark.parametrize("loaded", [12, 60])
def test_a_commit_measured_in_a_loaded_stretch_is_not_named_the_culprit(loaded: int) -> None:
    """Commit 19 is at the before level, but the values stored there (measured while
    the machine was loaded) are at the after level: they placed it after the change, at
    odds of 10 000:1 and more, and it was named the culprit. Measured in turns with its
    neighbour, one repetition at a time, it does not differ from it: 19 is left
    unplaced (a range that holds the culprit) or, when its stored values outweigh
    all it gets, the drill is undecided and says why."""
    line = Line(culprit=20, step=3)
    rng = random.Random("test-drill-stored-loaded")
    stored = {p: tuple(gaussian(line.level(p), rng) for _ in range(10)) for p in (0, 40)}
    stored[19] = tuple(gaussian(LEVEL - 3 * SIGMA, rng) for _ in range(loaded))
    run = drill(line, "test-drill-stored-loaded-run", stored=stored)
    done = run.done
    assert honest(run, 20), done.reason
    assert done.culprit != 19
    in_turns = [r for r in run.requests if "in turns" in r.reason]
    assert [r.position for r in in_turns][:12] == [19, 18] * 6  # each after the other …
    assert {r.repetitions for r in in_turns} == {1}  # … one at a time
    if done.verdict is Verdict.UNDECIDED:
        assert "measured in turns (30 and 30 values)" in done.reason
        assert "0018cccccccc and 0019cccccccc do not differ the way of the change" in done.reason
        assert "machine's load" in done.reason
    else:
        assert (done.verdict, done.lo, done.hi) == (Verdict.RANGE, 18, 20), done.reason


@pytest.mark.parametrize("step", [1.0, 1.5, 2.0])
def test_bimodal_noise_is_right_or_honestly_undecided(step: float) -> None:
    budget = Budget(max_builds=10, max_repetitions=150)
    for n in range(12):
        culprit = random.Random(f"test-drill-bimodal-{step}-{n}").randint(1, 40)
        run = drill(
            Line(culprit=culprit, step=step, noise=bimodal),
            f"test-drill-bi-{step}-{n}",
            budget=budget,
        )
        done = run.done
        assert honest(run, culprit), (n, done.verdict, done.culprit, culprit, done.reason)
        assert done.builds <= budget.max_builds
        assert done.repetitions <= budget.max_repetitions
        if done.verdict is Verdict.UNDECIDED:
            assert "budget" in done.reason or "not a single step" in done.reason


def test_stored_values_are_reused_not_measured_again() -> None:
    line = Line(culprit=25, step=3)
    rng = random.Random("test-drill-stored")
    stored = {
        p: tuple(gaussian(line.level(p), rng) for _ in range(20)) for p in (0, 10, 20, 30, 40)
    }
    run = drill(line, "test-drill-stored-run", stored=stored)
    assert run.done.culprit == 25
    tried = {r.position for r in run.requests}
    assert not tried & {0, 10, 30, 40}  # enough values there already: never measured
    # only commits between the stored 20 and 30 were built
    assert all(20 <= p <= 30 for p in tried)
    assert run.done.builds == len(tried)
    assert run.done.repetitions == sum(r.repetitions for r in run.requests)


def test_budget_of_builds_gives_undecided_with_the_narrowest_range() -> None:
    line = Line(culprit=23, step=3)
    done = drill(line, "test-drill-budget", budget=Budget(max_builds=3)).done
    assert done.verdict is Verdict.UNDECIDED
    assert "3 builds" in done.reason
    assert done.builds == 3
    assert done.lo < 23 <= done.hi  # what is known so far
    assert done.hi - done.lo < 40


def test_budget_of_repetitions_is_never_exceeded() -> None:
    line = Line(culprit=23, step=1)
    done = drill(line, "test-drill-budget-reps", budget=Budget(max_repetitions=40)).done
    assert done.verdict is Verdict.UNDECIDED
    assert done.repetitions == 40
    assert "40 repetitions" in done.reason


def test_ends_that_rule_out_the_change_reported_stop_the_drill_at_once() -> None:
    """A change the walk reported (-5 %) that the ends, measured again, rule out: the
    drill answers NO_CHANGE as soon as they have their first values, instead of
    spending up to 60 repetitions at each end (110 in all, as seen on a real history)."""
    line = Line(culprit=20, step=0)
    told = drill(line, "test-drill-ruled-out", expected=-0.05).done
    blind = drill(line, "test-drill-ruled-out").done
    assert told.verdict is blind.verdict is Verdict.NO_CHANGE
    assert "rule out the change reported (-5.0 %)" in told.reason
    assert told.repetitions == 2 * (Settings().min_end_repetitions - 5)  # 5 stored per end
    assert blind.repetitions > 3 * told.repetitions


@pytest.mark.parametrize("seed", range(20))
def test_a_real_change_of_the_size_reported_is_never_ruled_out(seed: int) -> None:
    line = Line(culprit=23, step=3)  # 3 sigma: -4.5 %
    done = drill(line, f"test-drill-real-{seed}", expected=-0.045).done
    assert done.verdict is not Verdict.NO_CHANGE
    assert honest(drill(line, f"test-drill-real-{seed}", expected=-0.045), 23)


def test_ends_that_do_not_differ_give_no_change() -> None:
    line = Line(culprit=20, step=0)
    run = drill(line, "test-drill-nochange")
    done = run.done
    assert done.verdict is Verdict.NO_CHANGE
    assert "do not differ convincingly" in done.reason
    assert {r.position for r in run.requests} <= {0, 40}  # only the ends were measured
    assert done.placements == ()
    assert done.levels is not None
    assert done.levels.shift.p_value > 1e-3


@pytest.mark.parametrize("step", [2, 4])
def test_a_commit_midway_between_the_levels_is_not_a_confident_answer(step: int) -> None:
    """Commit 20 moves the metric halfway, 21 the rest: not a single step."""
    honest_answers = 0
    for n in range(10):
        line = Line(culprit=20, step=step, levels={20: step / 2})
        done = drill(line, f"test-drill-midway-{step}-{n}").done
        if done.verdict is Verdict.CULPRIT:
            assert done.culprit in (20, 21), done.reason  # one of the two commits that moved it
        else:
            assert done.verdict in (Verdict.RANGE, Verdict.UNDECIDED), done.reason
            assert done.lo < 20
            assert done.hi >= 21
            assert {p.position: p.side for p in done.placements}[20] in (
                Side.BETWEEN,
                Side.UNPLACED,
            )
            honest_answers += 1
    assert honest_answers >= 8


def test_placements_that_contradict_each_other_give_undecided() -> None:
    line = Line(culprit=20, step=3)
    rng = random.Random("test-drill-contradiction")
    stored = {p: tuple(gaussian(line.level(p), rng) for _ in range(8)) for p in (0, 40)}
    stored[10] = tuple(gaussian(LEVEL - 3 * SIGMA, rng) for _ in range(30))  # after level …
    stored[30] = tuple(gaussian(LEVEL, rng) for _ in range(30))  # … before the before level
    run = drill(line, "test-drill-contradiction-run", stored=stored)
    assert run.done.verdict is Verdict.UNDECIDED
    assert "not a single step" in run.done.reason
    assert (run.done.lo, run.done.hi) == (10, 30)


def test_a_deterministic_metric_needs_few_repetitions() -> None:
    line = Line(culprit=13, step=3, noise=lambda level, _rng: level)
    done = drill(line, "test-drill-exact").done
    assert done.culprit == 13
    assert done.repetitions <= 60


@pytest.mark.parametrize("power", [1013, -1000])
def test_values_at_the_ends_of_the_float_range_are_drilled_as_any_others(power: int) -> None:
    """1000 → -1100 times 2**1013 is 9e307 → -9.7e307: the change (-1.85e308) and every
    sum of values are beyond the float range; times 2**-1000, every square is below it."""

    def noise(level: float, rng: random.Random) -> float:
        return math.ldexp(gaussian(level, rng), power)

    plain = drill(Line(culprit=17, step=140), "test-drill-far")
    far = drill(Line(culprit=17, step=140, noise=noise), "test-drill-far")
    assert [(r.position, r.repetitions) for r in far.requests] == [
        (r.position, r.repetitions) for r in plain.requests
    ]
    assert (far.done.verdict, far.done.culprit) == (Verdict.CULPRIT, 17)
    assert far.done.levels is not None
    assert plain.done.levels is not None
    assert far.done.levels.before == math.ldexp(plain.done.levels.before, power)
    assert far.done.levels.relative == pytest.approx(plain.done.levels.relative)
    assert far.done.placements[0].values == tuple(
        math.ldexp(v, power) for v in plain.done.placements[0].values
    )


def test_two_commits_line_names_the_second_once_the_ends_differ() -> None:
    line = Line(culprit=1, step=3, length=1)
    run = drill(line, "test-drill-two")
    assert run.done.verdict is Verdict.CULPRIT
    assert run.done.culprit == 1
    assert {r.position for r in run.requests} <= {0, 1}


def test_the_ends_are_measured_first_when_they_have_few_values() -> None:
    state = DrillState(line=tuple("abc"), stored={0: (1.0, 1.1)})
    action = next_action(state)
    assert isinstance(action, Measure)
    assert (action.position, action.commit, action.repetitions) == (0, "a", 8)
    assert "ends" in action.reason


def test_an_end_that_does_not_build_and_has_no_values_is_undecided() -> None:
    state = DrillState(line=tuple("abc"), stored={0: (1.0,) * 10}, unbuildable=frozenset({2}))
    done = next_action(state)
    assert isinstance(done, Done)
    assert done.verdict is Verdict.UNDECIDED
    assert "does not build" in done.reason


def test_the_same_state_gives_the_same_action() -> None:
    rng = random.Random("test-drill-pure")
    state = DrillState(
        line=tuple(str(p) for p in range(41)),
        stored={
            0: tuple(gaussian(LEVEL, rng) for _ in range(8)),
            40: tuple(gaussian(LEVEL - 45, rng) for _ in range(8)),
        },
    )
    assert next_action(state) == next_action(state)


@pytest.mark.parametrize(
    ("budget", "message"),
    [({"max_builds": 0}, "--max-builds"), ({"max_repetitions": 1}, "--max-repetitions")],
)
def test_a_bad_budget_is_a_usage_error(budget: dict[str, int], message: str) -> None:
    with pytest.raises(UsageError) as caught:
        Budget(**budget)
    assert message in (caught.value.hint or "")


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ({"line": ("a",)}, "at least two"),
        ({"line": ("a", "b"), "stored": {2: (1.0,)}}, "off the line"),
        ({"line": ("a", "b"), "measured": {0: (float("nan"),)}}, "finite"),
        ({"line": ("a", "b"), "unbuildable": frozenset({-1})}, "off the line"),
        ({"line": ("a", "b"), "measured": {0: (1.0, 2.0)}, "order": (0,)}, "order"),
        ({"line": ("a", "b"), "measured": {0: (1.0,)}, "order": (1,)}, "order"),
    ],
)
def test_a_bad_state_is_refused(state: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DrillState(**state)  # type: ignore[arg-type]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="odds"):
        Settings(search_odds=1.0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        Settings(ends_alpha=2.0)
