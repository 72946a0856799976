"""Statistics of numbers far from 1 (1e308, 1e-300): never an overflow, never a wrong digit.

Sums of values and of their squares leave the float range long before the values do;
every statistic is checked against exact rational arithmetic over the whole float
range, and against the same numbers scaled by a power of two (which is exact).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from perfwalk.analysis import scaled
from perfwalk.analysis.changepoints import find_change_points
from perfwalk.analysis.ministat import Sample, difference, report
from perfwalk.analysis.summary import moments, summarize

#: every finite float, the largest and the subnormals included
anything = st.floats(allow_nan=False, allow_infinity=False)
samples = st.lists(anything, min_size=1, max_size=40)
MAX = 1.7976931348623157e308


def exact_mean(values: list[float]) -> Fraction:
    return sum(map(Fraction, values), Fraction(0)) / len(values)


def exact_variance(values: list[float]) -> Fraction:
    mean = exact_mean(values)
    return sum(((Fraction(v) - mean) ** 2 for v in values), Fraction(0)) / (len(values) - 1)


@settings(max_examples=400, deadline=None)
@given(values=samples)
# a standard deviation a hair above the largest float rounds to it, not to infinity
@example(values=[1.0, MAX, -MAX])
def test_moments_of_any_finite_numbers_are_right(values: list[float]) -> None:
    found = moments(values)
    assert found is not None
    assert math.isfinite(found.mean)  # never beyond the values
    assert found.min <= found.median <= found.max
    # as exact as floats allow: a rounding of the sum, one of the division
    rounding = Fraction(max(map(abs, values))) * Fraction(2.0**-50) + Fraction(5e-324)
    assert abs(Fraction(found.mean) - exact_mean(values)) <= rounding
    if len(values) > 1:
        variance = exact_variance(values)
        # the least number that rounds to infinity (to nearest): the largest float and
        # half of its last unit
        beyond = (Fraction(MAX) + Fraction(math.ulp(MAX)) / 2) ** 2
        if variance > beyond * (1 + Fraction(1, 10**9)):
            assert found.sd == math.inf  # beyond the float range, and said so
        elif variance >= Fraction(MAX) ** 2:  # at its edge: the largest float or beyond
            assert found.sd >= MAX * (1 - 1e-9)
        else:  # two passes: each deviation is as exact as the mean it is taken from
            tolerance = variance / 10**9 + 4 * rounding * (Fraction(found.sd) + rounding)
            assert abs(Fraction(found.sd) ** 2 - variance) <= tolerance


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.floats(min_value=1.0, max_value=2.0), min_size=2, max_size=30),
    power=st.integers(-1070, 1022),
)
def test_a_power_of_two_scales_every_statistic_exactly(values: list[float], power: int) -> None:
    """Far from 1 as near it: the figures of 2**power × values are 2**power × theirs."""
    plain = moments(values)
    big = moments([math.ldexp(v, power) for v in values])
    assert plain is not None
    assert big is not None
    if power >= -1020:  # not among the subnormals, where digits are lost on the way in
        assert big.mean == math.ldexp(plain.mean, power)
        assert big.median == math.ldexp(plain.median, power)
        assert big.sd == pytest.approx(math.ldexp(plain.sd, power), rel=1e-12)


def test_the_figures_of_the_largest_and_the_smallest_numbers() -> None:
    twice = summarize([1e308, 1e308])
    assert twice is not None
    assert (twice.mean, twice.median, twice.sd, twice.unstable) == (1e308, 1e308, 0.0, False)
    apart = summarize([-1.7e308, 1.7e308, 1.7e308])
    assert apart is not None
    assert apart.mean == pytest.approx(1.7e308 / 3)
    assert apart.sd == math.inf  # 1.96e308: not a float; the set is flagged unstable
    assert apart.unstable
    assert apart.deviation(-1.7e308) == pytest.approx(4.0)  # not inf: |x - mean| / |mean|
    balanced = summarize([-1.7e308, 1.7e308])
    assert balanced is not None
    assert (balanced.mean, balanced.sd, balanced.unstable) == (0.0, math.inf, True)
    tiny = summarize([1e-300, 2e-300, 3e-300])
    assert tiny is not None
    assert tiny.sd == pytest.approx(1e-300)  # its squares are below the float range
    assert tiny.rsd == pytest.approx(0.5)


@settings(max_examples=150, deadline=None)
@given(
    a=st.lists(st.floats(min_value=1.0, max_value=2.0), min_size=3, max_size=12),
    b=st.lists(st.floats(min_value=-2.0, max_value=2.0), min_size=3, max_size=12),
    power=st.integers(-1000, 1022),
)
def test_ministat_decides_the_same_at_any_scale(a: list[float], b: list[float], power: int) -> None:
    plain = difference(Sample("b", tuple(b)), Sample("a", tuple(a)))
    x, y = (Sample(n, tuple(math.ldexp(v, power) for v in s)) for n, s in (("a", a), ("b", b)))
    big = difference(y, x)
    assert big.proven == plain.proven
    assert big.percent == pytest.approx(plain.percent, rel=1e-9, abs=1e-9)
    assert x.avg == math.ldexp(Sample("a", tuple(a)).avg, power)
    assert "Difference" in report([x, y]) or "No difference" in report([x, y])


def test_ministat_compares_the_ends_of_the_float_range() -> None:
    a = Sample("a", (1e308, -1e308, 1e308))
    b = Sample("b", (1.0, 2.0, 3.0))
    text = report([a, b])
    assert "3.3333333e+307 1.1547005e+308" in text  # avg and stddev of a: finite
    diff = difference(
        Sample("c", (-1e308, -1.1e308, -0.9e308)), Sample("d", (1e308, 1.1e308, 0.9e308))
    )
    assert diff.proven
    assert diff.difference == -math.inf  # -2e308 is beyond the float range …
    assert diff.percent == pytest.approx(-200.0)  # … its percentage is not


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.floats(min_value=-2.0, max_value=2.0), min_size=6, max_size=60),
    power=st.integers(-1000, 1022),
)
@example(values=[1.0, 1.0, 1.0, 1.0, 4.409693555452783e-164, 1.0], power=1017)
def test_change_points_are_the_same_at_any_scale(values: list[float], power: int) -> None:
    """Signs mixed: no logarithms, the search itself runs on the numbers."""
    plain = find_change_points([[v] for v in values])
    big = find_change_points([[math.ldexp(v, power)] for v in values])
    assert [c.index for c in big.changes] == [c.index for c in plain.changes]
    for p, b in zip(plain.changes, big.changes, strict=True):
        assert b.before == pytest.approx(math.ldexp(p.before, power), rel=1e-9)
        if p.relative is None:  # from a level of 0: no relative size at any scale
            assert b.relative is None
        else:
            assert b.relative == pytest.approx(p.relative, rel=1e-9, abs=1e-12)
    assert big.noise == pytest.approx(_scaled(plain.noise, power), rel=1e-9)


def _scaled(value: float, power: int) -> float:
    """``value`` × 2**``power``, infinite beyond the float range (as the noise of numbers
    near its end is)."""
    try:
        return math.ldexp(value, power)
    except OverflowError:
        return math.copysign(math.inf, value)


def test_a_change_from_plus_to_minus_1e308_is_found_and_measured() -> None:
    sets = [[1e308, 1e308]] * 10 + [[-1e308, -1e308]] * 10
    (change,) = find_change_points(sets).changes
    assert (change.index, change.before, change.after) == (10, 1e308, -1e308)
    assert change.relative == pytest.approx(-2.0)
    assert change.difference == -math.inf  # -2e308: beyond the float range


def test_the_helpers_on_their_own() -> None:
    assert scaled.exponent([1.0, -3.0]) == 0  # everyday numbers are used as they are
    assert scaled.exponent([1e308]) == 1024
    assert scaled.mean([1e308, 1e308, 1e308]) == 1e308
    assert scaled.median([1e308, 1.5e308]) == 1.25e308
    assert scaled.sample_sd([MAX, -MAX]) == math.inf
    assert scaled.scale(1.0, 2000) == math.inf
    with pytest.raises(ValueError, match="no values"):
        scaled.mean([])


def test_a_ratio_change_beyond_the_float_range_is_infinite() -> None:
    assert scaled.ratio_change(0.1) == math.expm1(0.1)
    assert scaled.ratio_change(-1000.0) == -1.0
    assert scaled.ratio_change(709.5) == math.inf
    assert scaled.ratio_change(1e6) == math.inf
