"""The levels of a metric: its checkouts' summaries cut at the changes."""

from __future__ import annotations

import math
import statistics

import pytest

from perfwalk.analysis.levels import levels

NAN = math.nan


def test_a_series_without_a_change_is_one_level() -> None:
    points = [10.0, 10.2, 9.9, 10.1]
    (one,) = levels(points, [])
    assert (one.first, one.last, one.n) == (0, 3, 4)
    assert one.median == pytest.approx(10.05)
    assert one.mean == pytest.approx(statistics.fmean(points))
    assert (one.min, one.max) == (9.9, 10.2)
    assert one.sd == pytest.approx(statistics.stdev(points))
    assert one.rsd == pytest.approx(one.sd / one.mean)
    assert one.change is None


def test_a_staircase_gives_a_level_per_step_with_its_move() -> None:
    points = [100.0] * 5 + [80.0, 81.0, 79.0] + [40.0] * 4
    found = levels(points, [5, 8])
    assert [(x.first, x.last, x.n) for x in found] == [(0, 4, 5), (5, 7, 3), (8, 11, 4)]
    assert [x.median for x in found] == [100.0, 80.0, 40.0]
    assert found[0].change is None
    assert found[1].change == pytest.approx(-0.2)
    assert found[2].change == pytest.approx(-0.5)
    assert found[0].rsd == 0.0  # each level's spread is its own noise, not the steps


def test_a_spike_that_is_no_change_stays_in_its_level_and_moves_not_its_median() -> None:
    points = [50.0, 50.5, 49.5, 90.0, 50.0, 50.2]
    (one,) = levels(points, [])
    assert one.median == pytest.approx(50.1)
    assert one.max == 90.0  # shown in its extremes
    assert one.n == 6


def test_checkouts_without_a_value_are_skipped_and_an_empty_piece_is_no_level() -> None:
    points = [NAN, 1.0, math.inf, 1.2, NAN, NAN, 2.0, NAN]
    found = levels(points, [4, 6])
    assert [(x.first, x.last, x.n) for x in found] == [(1, 3, 2), (6, 6, 1)]
    assert found[1].sd == 0.0
    assert found[1].change == pytest.approx(2.0 / 1.1 - 1)  # from the level before it


def test_no_value_no_level_and_starts_out_of_range_are_ignored() -> None:
    assert levels([], [3]) == ()
    assert levels([NAN, NAN], [1]) == ()
    assert len(levels([1.0, 2.0], [0, 2, 7, -1])) == 1
    assert len(levels([1.0, 2.0, 2.0], [1, 1, 2])) == 3  # sorted, once each


def test_a_move_from_a_median_of_zero_has_no_relative_size() -> None:
    found = levels([0.0, 0.0, 5.0], [2])
    assert found[1].change is None
    assert found[0].rsd == 0.0
