"""Rank-based shift between two sets of repetitions."""

from __future__ import annotations

import random

import pytest

from perfwalk.drill.shift import mann_whitney_p, rank_shift


def test_shift_of_a_moved_copy_is_the_move() -> None:
    before = [10.0, 11.0, 12.0, 13.0, 14.0]
    shift = rank_shift(before, [v - 5 for v in before])
    assert shift.estimate == -5
    assert shift.low <= -5 <= shift.high
    assert shift.half_width == pytest.approx((shift.high - shift.low) / 2)


def test_a_spike_does_not_move_the_shift() -> None:
    before = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2]
    after = [90.0, 91.0, 89.0, 90.5, 89.5, 130.0]  # one run ×1.3
    assert rank_shift(before, after).estimate == pytest.approx(-10, abs=0.6)


def test_identical_sets_do_not_differ() -> None:
    assert mann_whitney_p([1.0, 1.0, 1.0], [1.0, 1.0]) == 1.0
    shift = rank_shift([3.0, 1.0, 2.0], [2.0, 3.0, 1.0])
    assert shift.estimate == 0
    assert shift.p_value > 0.5


def test_separated_sets_differ_more_with_more_values() -> None:
    few = mann_whitney_p([1.0, 2, 3, 4, 5], [11.0, 12, 13, 14, 15])
    many = mann_whitney_p([float(v) for v in range(10)], [float(v) for v in range(20, 30)])
    assert 1e-3 < few < 0.02  # 5 against 5 cannot be convincing at 1e-3
    assert many < 1e-3
    assert mann_whitney_p([11.0, 12, 13, 14, 15], [1.0, 2, 3, 4, 5]) == few  # two-sided


def test_interval_covers_the_true_shift_about_as_often_as_it_says() -> None:
    rng = random.Random("test-drill-shift-coverage")
    covered = 0
    for _ in range(400):
        before = [rng.gauss(0, 1) for _ in range(8)]
        after = [rng.gauss(2, 1) for _ in range(8)]
        shift = rank_shift(before, after, confidence=0.9)
        covered += shift.low <= 2 <= shift.high
    assert 0.85 <= covered / 400 <= 0.97


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="both sides"):
        rank_shift([], [1.0])
    with pytest.raises(ValueError, match="confidence"):
        rank_shift([1.0], [2.0], confidence=1.0)
