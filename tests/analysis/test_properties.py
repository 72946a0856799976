"""Properties of the change detector, over generated series (hypothesis)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfwalk.analysis.changepoints import find_change_points

finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)
series = st.lists(
    st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False),
    min_size=0,
    max_size=120,
)


def indexes(sets: list[list[float]]) -> list[int]:
    return [c.index for c in find_change_points(sets).changes]


@settings(max_examples=150, deadline=None)
@given(value=finite, length=st.integers(0, 300), reps=st.integers(1, 5))
def test_a_constant_series_has_no_change(value: float, length: int, reps: int) -> None:
    assert indexes([[value] * reps for _ in range(length)]) == []


@settings(max_examples=150, deadline=None)
@given(values=series, power=st.integers(-30, 30))
def test_scaling_by_a_power_of_two_moves_nothing(values: list[float], power: int) -> None:
    factor = 2.0**power
    plain = find_change_points([[v] for v in values])
    scaled = find_change_points([[v * factor] for v in values])
    assert [c.index for c in scaled.changes] == [c.index for c in plain.changes]
    for a, b in zip(plain.changes, scaled.changes, strict=True):
        assert b.before == pytest.approx(a.before * factor, rel=1e-9)
        assert b.relative == pytest.approx(a.relative, rel=1e-9, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    factor=st.floats(min_value=1e-6, max_value=1e6),
    cuts=st.lists(st.integers(8, 40), min_size=1, max_size=6),
)
def test_scaling_by_any_factor_moves_nothing(seed: int, factor: float, cuts: list[int]) -> None:
    rng = random.Random(seed)
    values, level = [], 100.0
    for length in [*cuts, 20]:
        values += [level * (1 + 0.01 * rng.gauss(0, 1)) for _ in range(length)]
        level *= rng.choice((0.7, 1.4))
    truth = [sum(cuts[: i + 1]) for i in range(len(cuts))]
    plain = find_change_points([[v] for v in values])
    found = [c.index for c in plain.changes]
    # the clear steps (noise may add a small one); a level of up to 11 points that comes
    # back where it was is an excursion, its two steps its ends (issue 13)
    ends = {i for e in plain.excursions for i in (e.start, e.end)}
    assert set(truth) <= set(found) | ends
    scaled = find_change_points([[v * factor] for v in values])
    assert [c.index for c in scaled.changes] == found
    assert [(e.start, e.end) for e in scaled.excursions] == [
        (e.start, e.end) for e in plain.excursions
    ]
