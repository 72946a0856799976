"""The heatmap's shared value ranges and how a histogram's buckets fill them: pure."""

from __future__ import annotations

import pytest

from perfwalk.model import Histogram
from perfwalk.report.heatmaps import BINS, edges, spread


def test_ranges_are_spaced_by_ratio_over_a_wide_span_and_evenly_over_a_narrow_one() -> None:
    wide = edges([Histogram("x", "us", ((100.0, 100.0, 1), (1000.0, 10000.0, 1)))])
    assert len(wide) == BINS + 1
    assert wide[0] == pytest.approx(100.0)
    assert wide[-1] == pytest.approx(10000.0)
    assert wide[1] / wide[0] == pytest.approx(wide[-1] / wide[-2])
    narrow = edges([Histogram("x", "us", ((100.0, 150.0, 3),))])
    assert narrow[1] - narrow[0] == pytest.approx(50.0 / BINS)
    assert edges([Histogram("x", "us", ((0.0, 0.0, 4),))]) == [0.0, 1.0]  # one value
    assert edges([Histogram("x", "us", ((5.0, 9.0, 0),))]) == [0.0, 1.0]  # no sample


def test_a_bucket_is_spread_over_the_ranges_it_overlaps() -> None:
    bounds = [0.0, 10.0, 20.0, 30.0]
    histogram = Histogram("x", "us", ((0.0, 0.0, 2), (5.0, 25.0, 8), (30.0, 30.0, 1)))
    assert spread(histogram, bounds) == pytest.approx([2 + 2, 4, 2 + 1])
    assert sum(spread(histogram, bounds)) == pytest.approx(histogram.count)
