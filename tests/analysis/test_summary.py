"""Per-checkout summaries: the figures, the policies, unstable sets and outliers."""

from __future__ import annotations

import statistics

import pytest

from perfwalk.analysis.summary import summarize
from perfwalk.model import Direction


def test_the_figures_of_a_set() -> None:
    s = summarize([10.0, 12.0, 11.0, 13.0])
    assert s is not None
    assert (s.n, s.mean, s.median, s.min, s.max) == (4, 11.5, 11.5, 10.0, 13.0)
    assert s.sd == pytest.approx(statistics.stdev([10, 12, 11, 13]))  # sample sd (n - 1)
    assert s.rsd == pytest.approx(s.sd / 11.5)


def test_no_values_and_non_finite_values() -> None:
    assert summarize([]) is None
    assert summarize([float("nan"), float("inf")]) is None
    s = summarize([5.0, float("nan")])
    assert s is not None
    assert s.n == 1
    assert s.sd == 0.0
    assert not s.unstable


@pytest.mark.parametrize(
    ("policy", "direction", "expected"),
    [
        ("mean", Direction.LOWER, 4.0),
        ("median", Direction.LOWER, 3.0),
        ("best", Direction.LOWER, 1.0),
        ("best", Direction.HIGHER, 9.0),
    ],
)
def test_the_summary_follows_the_policy(policy: str, direction: Direction, expected: float) -> None:
    s = summarize([3.0, 1.0, 9.0, 3.0, 4.0], policy=policy, direction=direction)
    assert s is not None
    assert s.summary == expected


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="policy"):
        summarize([1.0], policy="mode")


def test_unstable_at_the_default_and_a_configured_threshold() -> None:
    steady = [100.0, 101.0, 99.0, 100.5]  # rsd about 0.85 %
    shaky = [100.0, 104.0, 96.0, 101.0]  # rsd about 3.3 %
    assert not summarize(steady).unstable  # type: ignore[union-attr]
    assert summarize(shaky).unstable  # type: ignore[union-attr]
    assert summarize(steady, unstable_rsd=0.005).unstable  # type: ignore[union-attr]


def test_outliers_are_the_values_far_from_the_summary() -> None:
    values = [100.0, 101.0, 99.0, 125.0, 100.0]
    s = summarize(values, policy="median")
    assert s is not None
    assert s.outliers == (3,)
    assert summarize(values, policy="median", outlier=0.30).outliers == ()  # type: ignore[union-attr]
