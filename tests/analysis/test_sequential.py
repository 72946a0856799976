"""The sequential A/B decision of ``perfwalk try``: its order, its looks, its Student's
t, crafted decisions, and seeded simulated tries (drift, autocorrelation, a loaded
stretch) whose wrong-verdict rates must stay within the promised confidence."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfwalk.analysis import ministat
from perfwalk.analysis.sequential import (
    Decision,
    Verdict,
    decide,
    estimate,
    incomplete_beta,
    look_confidence,
    looks,
    side,
    slot,
    student_t_cdf,
    student_t_quantile,
)
from perfwalk.errors import UsageError

SOME = settings(derandomize=True, max_examples=60, deadline=None)


def simulated_try(
    rng: random.Random,
    *,
    effect: float,
    noise: float,
    drift: float = 0.0,
    phi: float = 0.0,
    loaded: int = 0,
    most: int = 30,
) -> Decision:
    """One try as the try loop runs it: values measured in the order of ``side``,
    ``decide`` after every pair, stopped at the first final decision.

    A lower-is-better metric of level 100; B is ``effect`` higher (worse); the
    machine drifts by ``drift`` per repetition; the noise is AR(1) with coefficient
    ``phi`` and relative spread ``noise``; ``loaded`` repetitions in a row, from a
    random position, are 30 % slower."""
    start = rng.randrange(2 * most) if loaded else -1
    a: list[float] = []
    b: list[float] = []
    e = rng.gauss(0, noise)
    decision = None
    for position in range(2 * most):
        if position:
            e = phi * e + math.sqrt(1 - phi * phi) * noise * rng.gauss(0, 1)
        value = 100 * (1 + drift * position) * (1 + e)
        if start <= position < start + loaded:
            value *= 1.3
        if side(position) == "B":
            b.append(value * (1 + effect))
        else:
            a.append(value)
        if position % 2:
            decision = decide(a, b, higher_is_better=False, most=most)
            if decision.final:
                return decision
    raise AssertionError(f"no final decision at {most} repetitions per side: {decision}")


def verdicts(
    seed: str,
    tries: int,
    *,
    effect: float,
    noise: float,
    drift: float = 0.0,
    phi: float = 0.0,
    loaded: int = 0,
) -> Counter[Verdict]:
    rng = random.Random(seed)
    return Counter(
        simulated_try(rng, effect=effect, noise=noise, drift=drift, phi=phi, loaded=loaded).verdict
        for _ in range(tries)
    )


# the order and the looks


def test_the_order_is_a_b_b_a_repeated() -> None:
    assert "".join(side(p) for p in range(12)) == "ABBAABBAABBA"
    with pytest.raises(ValueError, match="negative"):
        side(-1)


def test_slot_is_where_each_sides_repetition_is_measured() -> None:
    seen: Counter[str] = Counter()
    for position in range(40):
        which = side(position)
        assert slot(which, seen[which]) == position
        seen[which] += 1


def test_looks_grow_by_about_root_two_and_end_at_most() -> None:
    assert looks(30) == (3, 4, 6, 8, 11, 16, 23, 30)
    assert looks(20) == (3, 4, 6, 8, 11, 16, 20)
    assert looks(3) == (3,)
    assert looks(100)[-3:] == (64, 91, 100)
    assert look_confidence(95, 30) == pytest.approx(100 - 5 / 8)


def test_fewer_than_three_repetitions_per_side_are_refused() -> None:
    with pytest.raises(UsageError, match="at most 2 repetitions") as caught:
        decide([1, 2], [1, 2], higher_is_better=True, most=2)
    assert "--max-repetitions" in (caught.value.hint or "")


def test_a_confidence_out_of_range_is_refused() -> None:
    with pytest.raises(UsageError, match="confidence 100"):
        decide([1, 2, 3], [1, 2, 3], higher_is_better=True, confidence=100, most=30)


# Student's t


def test_student_t_matches_ministats_table() -> None:
    """ministat's table to its three decimals, every degree of freedom, 80 to 99 %."""
    for degrees, row in enumerate(ministat._STUDENT):
        for level, value in zip(ministat.CONFIDENCE_LEVELS[:5], row[:5], strict=True):
            t = student_t_quantile(1 - (1 - level / 100) / 2, degrees or math.inf)
            assert t == pytest.approx(value, abs=0.0005), (degrees, level)


def test_ministats_last_column_is_two_sided_99_8_percent() -> None:
    """ministat labels it 99.5 % but prints t at 0.999 (two-sided 99.8 %), with a few
    typos in the last digit (4.782 for 4.785 at 7 degrees of freedom)."""
    for degrees, row in enumerate(ministat._STUDENT):
        t = student_t_quantile(0.999, degrees or math.inf)
        assert t == pytest.approx(row[5], abs=0.005), degrees


@pytest.mark.parametrize(
    ("p", "degrees", "t"),
    [  # R's qt()
        (0.975, 1, 12.7062047361747),
        (0.975, 10, 2.228138851986274),
        (0.995, 3, 5.840909309733351),
        (0.999, 1, 318.3088389855497),
        (0.95, 5, 2.015048373333024),
    ],
)
def test_student_t_known_values(p: float, degrees: float, t: float) -> None:
    assert student_t_quantile(p, degrees) == pytest.approx(t, rel=1e-9)
    assert student_t_cdf(t, degrees) == pytest.approx(p, rel=1e-12)
    assert student_t_quantile(1 - p, degrees) == pytest.approx(-t, rel=1e-9)


@pytest.mark.parametrize("p", [0.51, 0.6, 0.9, 0.975, 0.99, 0.999, 0.99999])
def test_student_t_with_one_and_two_degrees_has_closed_forms(p: float) -> None:
    x = 2 * p - 1
    assert student_t_quantile(p, 1) == pytest.approx(math.tan(math.pi * x / 2), rel=1e-9)
    assert student_t_quantile(p, 2) == pytest.approx(x * math.sqrt(2 / (1 - x * x)), rel=1e-9)


def test_student_t_cdf_with_one_degree_is_cauchys() -> None:
    for t in (-50.0, -3.0, -0.2, 0.0, 0.7, 4.0, 1e6):
        assert student_t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-13)


@given(
    x=st.integers(0, 2**30).map(lambda k: k / 2**30),  # 1 - x exact
    a=st.floats(0.05, 200),
    b=st.floats(0.05, 200),
)
@SOME
def test_incomplete_beta_identities(x: float, a: float, b: float) -> None:
    value = incomplete_beta(x, a, b)
    assert 0 <= value <= 1
    assert value + incomplete_beta(1 - x, b, a) == pytest.approx(1, abs=1e-10)
    assert incomplete_beta(x, a, 1) == pytest.approx(x**a, abs=1e-10)
    assert incomplete_beta(x, 1, 1) == pytest.approx(x, abs=1e-12)


# the estimate


def _least_squares(ys: list[float], xs: list[float], gs: list[float]) -> tuple[float, float]:
    """δ and its standard error of y = μ + δ g + β x, by the normal equations and
    Cramer's rule (an independent way to the same numbers)."""
    cols = [[1.0] * len(ys), gs, xs]
    m = [[sum(u * v for u, v in zip(ci, cj, strict=True)) for cj in cols] for ci in cols]
    r = [sum(u * y for u, y in zip(c, ys, strict=True)) for c in cols]

    def det(q: list[list[float]]) -> float:
        return (
            q[0][0] * (q[1][1] * q[2][2] - q[1][2] * q[2][1])
            - q[0][1] * (q[1][0] * q[2][2] - q[1][2] * q[2][0])
            + q[0][2] * (q[1][0] * q[2][1] - q[1][1] * q[2][0])
        )

    d = det(m)
    coef = [
        det([[r[i] if j == k else m[i][j] for j in range(3)] for i in range(3)]) / d
        for k in range(3)
    ]
    rss = sum(
        (y - coef[0] - coef[1] * g - coef[2] * x) ** 2 for y, g, x in zip(ys, gs, xs, strict=True)
    )
    minor = m[0][0] * m[2][2] - m[0][2] * m[2][0]  # the (1, 1) cofactor of the inverse
    return coef[1], math.sqrt(rss / (len(ys) - 3) * minor / d)


@given(seed=st.integers(0, 2**32), n_a=st.integers(2, 30), n_b=st.integers(2, 30))
@SOME
def test_the_estimate_is_the_least_squares_fit_with_a_drift_line(
    seed: int, n_a: int, n_b: int
) -> None:
    rng = random.Random(seed)
    a = [100 * (1 + 0.03 * rng.gauss(0, 1)) for _ in range(n_a)]
    b = [107 * (1 + 0.03 * rng.gauss(0, 1)) for _ in range(n_b)]
    fit = estimate(a, b)
    assert fit is not None
    assert fit.logged
    assert fit.degrees == n_a + n_b - 3
    xs = [float(slot("A", i)) for i in range(n_a)] + [float(slot("B", i)) for i in range(n_b)]
    delta, se = _least_squares([math.log(v) for v in a + b], xs, [0.0] * n_a + [1.0] * n_b)
    assert fit.delta == pytest.approx(delta, rel=1e-9, abs=1e-12)
    assert fit.se == pytest.approx(se, rel=1e-6)


@given(seed=st.integers(0, 2**32), n=st.integers(2, 30), slope=st.floats(-0.05, 0.05))
@SOME
def test_a_linear_drift_changes_neither_the_change_nor_its_interval(
    seed: int, n: int, slope: float
) -> None:
    """The drift line takes all of a drift (linear in the log of the values) out of
    the estimate and out of the residuals: the same δ and the same standard error
    whether the machine drifts or not, half blocks (odd n) included."""
    rng = random.Random(seed)
    a = [100 * (1 + 0.02 * rng.gauss(0, 1)) for _ in range(n)]
    b = [103 * (1 + 0.02 * rng.gauss(0, 1)) for _ in range(n)]
    drifted_a = [v * math.exp(slope * slot("A", i)) for i, v in enumerate(a)]
    drifted_b = [v * math.exp(slope * slot("B", i)) for i, v in enumerate(b)]
    plain, drifted = estimate(a, b), estimate(drifted_a, drifted_b)
    assert plain is not None
    assert drifted is not None
    assert drifted.delta == pytest.approx(plain.delta, abs=1e-9)
    assert drifted.se == pytest.approx(plain.se, rel=1e-6, abs=1e-12)


# crafted decisions


def test_identical_values_are_the_same_at_the_first_look() -> None:
    d = decide([100.0] * 3, [100.0] * 3, higher_is_better=True, most=30)
    assert d.verdict is Verdict.SAME
    assert d.final
    assert (d.change, d.low, d.high) == (0.0, 0.0, 0.0)
    assert (
        d.reason
        == "equivalent within ±1 %: +0.0 % [+0.0 %, +0.0 %] at 95 % after 3 + 3 repetitions"
    )


def test_a_clear_change_is_worse_or_better_by_the_metrics_direction() -> None:
    a, b = [100.0, 101.0, 99.0], [110.0, 111.0, 109.0]
    slower = decide(a, b, higher_is_better=False, most=30)
    assert slower.verdict is Verdict.WORSE
    assert slower.final
    assert slower.look
    assert slower.level == pytest.approx(99.375)
    assert slower.change == pytest.approx(0.1008, abs=1e-4)  # exp(mean log ratio) - 1
    assert 0 < slower.low < slower.change < slower.high
    assert slower.reason == "B is worse by 10.1 % [4.2 %, 16.3 %] at 95 % after 3 + 3 repetitions"
    faster = decide(a, b, higher_is_better=True, most=30)
    assert faster.verdict is Verdict.BETTER
    assert faster.reason == "B is better by 10.1 % [4.2 %, 16.3 %] at 95 % after 3 + 3 repetitions"
    lower = decide(b, a, higher_is_better=True, most=30)
    assert lower.verdict is Verdict.WORSE
    assert lower.change < 0
    assert lower.reason.startswith("B is worse by 9.0 % [")


def test_between_looks_nothing_is_decided() -> None:
    a, b = [100.0, 101.0, 99.0, 100.0, 100.5], [110.0, 111.0, 109.0, 110.0, 110.5]
    d = decide(a, b, higher_is_better=False, most=30)
    assert d.verdict is Verdict.UNDECIDED
    assert not d.final
    assert not d.look
    assert d.change == pytest.approx(0.1, abs=0.002)
    assert d.reason.startswith("between looks: +10.0 % [")
    assert d.reason.endswith("after 5 + 5 repetitions; the next look is at 6 + 6")
    uneven = decide(a[:4], b[:3], higher_is_better=False, most=30)
    assert not uneven.look
    assert uneven.reason.endswith("after 4 + 3 repetitions; the next look is at 4 + 4")
    beyond = decide(a * 7, b, higher_is_better=False, most=30)  # A ran ahead of most
    assert not beyond.final
    assert beyond.reason.endswith("after 35 + 5 repetitions; the next look is at 30 + 30")


def test_too_few_values_decide_nothing() -> None:
    d = decide([100.0], [101.0], higher_is_better=False, most=30)
    assert d.verdict is Verdict.UNDECIDED
    assert not d.final
    assert math.isnan(d.change)
    assert d.reason == "no decision after 1 + 1 repetitions: too few values"


def _noisy(level: float, n: int, spread: float, seed: str) -> list[float]:
    rng = random.Random(seed)
    return [level * (1 + spread * rng.gauss(0, 1)) for _ in range(n)]


def test_the_last_look_ends_undecided() -> None:
    a, b = _noisy(100, 4, 0.05, "last:a"), _noisy(100, 4, 0.05, "last:b")
    d = decide(a, b, higher_is_better=False, most=4)
    assert d.verdict is Verdict.UNDECIDED
    assert d.final
    assert d.low < 0 < d.high
    assert d.reason.startswith("no decision after the maximum of 4 + 4 repetitions: ")
    assert d.reason.endswith("the interval holds both no change and a change beyond ±1 %")
    assert not decide(a, b, higher_is_better=False, most=6).final


def test_a_certain_change_smaller_than_min_change_is_same_or_keeps_going() -> None:
    """A change of 0.7 %, in more and more noise: SAME while its interval lies within
    ±1 %; then certain (the interval excludes 0) but reaching beyond 1 %: the try goes
    on (never WORSE: it is smaller than min_change); then not even certain."""
    patterns = [[v - 100 for v in _noisy(100, 16, 0.01, f"small:{s}")] for s in "ab"]
    pattern_a, pattern_b = ([e - sum(p) / len(p) for e in p] for p in patterns)
    seen: list[tuple[bool, bool]] = []
    for k in range(1, 60):
        spread = k / 40
        a = [100 + spread * e for e in pattern_a]
        b = [100.7 + spread * e for e in pattern_b]
        d = decide(a, b, higher_is_better=False, most=30)
        assert d.look
        assert d.change == pytest.approx(0.007, abs=0.001)
        certain = d.low > 0 or d.high < 0
        within = d.low >= -0.01 and d.high <= 0.01
        if within:
            assert d.verdict is Verdict.SAME
            assert d.final
        else:
            assert d.verdict is Verdict.UNDECIDED
            assert not d.final
            assert d.reason.startswith("no decision yet: +0.7 % [")
            assert d.reason.endswith("after 16 + 16 repetitions; the next look is at 23 + 23")
        if not seen or seen[-1] != (certain, within):
            seen.append((certain, within))
    assert seen == [(True, True), (True, False), (False, False)]


def test_values_at_or_below_zero_are_compared_on_their_own_scale() -> None:
    d = decide([-10.0, -10.5, -9.5], [-20.0, -20.5, -19.5], higher_is_better=False, most=30)
    assert d.verdict is Verdict.BETTER  # lower is better: B is 10 lower, 100 % of |A|
    assert d.change == pytest.approx(-1.0, abs=0.01)
    zero = decide([-1.0, 0.0, 1.0], [9.0, 10.0, 11.0], higher_is_better=False, most=30)
    assert zero.verdict is Verdict.UNDECIDED
    assert zero.reason == "no decision after 3 + 3 repetitions: the A values average 0"


def test_values_that_are_not_finite_are_refused() -> None:
    with pytest.raises(ValueError, match="side B"):
        decide([1.0, 2.0, 3.0], [1.0, math.nan, 3.0], higher_is_better=False, most=30)


@given(
    seed=st.integers(0, 2**32),
    n=st.sampled_from(looks(30)),
    effect=st.floats(-0.05, 0.05),
    spread=st.sampled_from([0.001, 0.005, 0.02]),
    higher=st.booleans(),
)
@SOME
def test_the_verdict_follows_the_interval(
    seed: int, n: int, effect: float, spread: float, higher: bool
) -> None:
    rng = random.Random(seed)
    a = [100 * (1 + spread * rng.gauss(0, 1)) for _ in range(n)]
    b = [100 * (1 + effect) * (1 + spread * rng.gauss(0, 1)) for _ in range(n)]
    d = decide(a, b, higher_is_better=higher, most=30)
    assert d.look
    assert d.low <= d.change <= d.high
    bad = d.low > 0 if not higher else d.high < 0
    good = d.high < 0 if not higher else d.low > 0
    big = abs(d.change) > 0.01
    within = d.low >= -0.01 and d.high <= 0.01
    expected = (
        Verdict.WORSE
        if bad and big
        else Verdict.BETTER
        if good and big
        else Verdict.SAME
        if within
        else Verdict.UNDECIDED
    )
    assert d.verdict is expected
    assert d.final == (expected is not Verdict.UNDECIDED or n == 30)


# seeded simulated tries: 400 each, the same on every run


def test_no_false_difference_under_a_strong_linear_drift() -> None:
    """+1 % per repetition (up to +60 % over a try), no effect: a drift the unpaired
    test counts as noise and a back-to-back comparison takes for a change."""
    for noise in (0.01, 0.02, 0.05):
        counts = verdicts(f"drift:{noise}", 400, effect=0.0, noise=noise, drift=0.01)
        assert counts[Verdict.WORSE] + counts[Verdict.BETTER] <= 20, (noise, counts)


def test_no_false_difference_with_autocorrelated_noise() -> None:
    for phi in (0.5, 0.9):
        counts = verdicts(f"ar:{phi}", 400, effect=0.0, noise=0.02, phi=phi)
        assert counts[Verdict.WORSE] + counts[Verdict.BETTER] <= 20, (phi, counts)


def test_no_false_difference_with_a_drift_and_autocorrelated_noise() -> None:
    counts = verdicts("drift+ar", 400, effect=0.0, noise=0.02, drift=0.0025, phi=0.5)
    assert counts[Verdict.WORSE] + counts[Verdict.BETTER] <= 20, counts


@pytest.mark.parametrize("loaded", [2, 3, 5])
def test_a_loaded_stretch_rarely_makes_a_false_worse(loaded: int) -> None:
    """A few repetitions in a row 30 % slower, anywhere in the try: the ABBA order
    splits them between the sides and the residuals widen the interval."""
    counts = verdicts(f"loaded:{loaded}", 400, effect=0.0, noise=0.02, loaded=loaded)
    assert counts[Verdict.WORSE] <= 20, counts


def test_a_ten_percent_change_in_two_percent_noise_is_worse_early() -> None:
    rng = random.Random("power")
    decisions = [
        simulated_try(rng, effect=0.10, noise=0.02, drift=drift, phi=phi)
        for drift, phi in ((0.0, 0.0), (0.0025, 0.5))
        for _ in range(100)
    ]
    assert all(d.verdict is Verdict.WORSE for d in decisions)
    used = sorted(d.count_a + d.count_b for d in decisions)
    assert used[len(used) // 2] <= 10  # the median try stops at 4 + 4 or sooner


@pytest.mark.parametrize("confidence", [95.0, 99.99, 99.9999])
def test_an_interval_beyond_the_float_range_is_unbounded_not_an_error(confidence: float) -> None:
    # a re-measure of a real walk under load: two noisy wall-time values a side, at the
    # clear confidence a most likely step must hold at (1 degree of freedom: a bound of
    # the interval is exp() of more than 709); it stopped the walk with OverflowError
    found = decide(
        [221.8, 264.1], [363.1, 214.5], higher_is_better=True, confidence=confidence, most=10
    )
    assert found.verdict is Verdict.UNDECIDED
    assert found.change == pytest.approx(0.153, abs=0.001)
    assert found.low >= -1.0
    assert found.high > 1.0  # +inf at the clear confidences
    assert "after 2 + 2 repetitions" in found.reason
