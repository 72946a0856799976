"""The rule of a re-measure: the change held when the difference measured again has
its sign and at least half its size."""

from __future__ import annotations

import math

import pytest

from perfwalk.analysis.confirmation import held, one_value


@pytest.mark.parametrize(
    ("again", "expected"),
    [
        ((100.0, 130.0), True),  # the same step
        ((101.0, 116.0), True),  # exactly half of it
        ((100.0, 160.0), True),  # larger: still the change's way
        ((100.0, 114.9), False),  # less than half: nearer to "nothing changed"
        ((110.0, 110.1), False),  # the machine's doing: measured side by side, no step
        ((130.0, 100.0), False),  # the other way
        ((100.0, 100.0), False),
    ],
)
def test_a_regression_holds_with_its_sign_and_half_its_size(
    again: tuple[float, float], expected: bool
) -> None:
    assert held(100.0, 130.0, *again) is expected


def test_a_drop_holds_only_as_a_drop() -> None:
    assert held(50.0, 40.0, 51.0, 44.0)
    assert not held(50.0, 40.0, 51.0, 47.0)
    assert not held(50.0, 40.0, 40.0, 50.0)


def test_no_change_or_a_value_that_is_not_a_number_never_holds() -> None:
    assert not held(100.0, 100.0, 100.0, 100.0)
    assert not held(100.0, 130.0, math.nan, 130.0)
    assert not held(100.0, math.inf, 100.0, 130.0)


def test_one_value_of_a_repetition() -> None:
    assert one_value([]) is None
    assert one_value([2.0]) == 2.0
    assert one_value([1.0, 2.0]) == 1.5
