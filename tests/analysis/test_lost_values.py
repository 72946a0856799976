"""What a parser lost (perfwalk.analysis.lost_values): the metrics a test gave at the
checkouts before one that a passing repetition there lacked."""

from __future__ import annotations

from perfwalk.analysis.lost_values import LostValues, MetricNames, lost_values


def test_a_metric_missing_from_one_checkout_on_is_lost_at_each_of_them() -> None:
    found = {
        0: {"latency": (3, {"p50": 3, "p99": 3})},
        1: {"latency": (3, {"p50": 3, "p99": 3})},
        2: {"latency": (3, {"p50": 3})},
        3: {"latency": (2, {"p50": 2})},
    }
    lost = lost_values(found)
    assert lost == [
        LostValues(2, "latency", ("p50", "p99"), ("p99",)),
        LostValues(3, "latency", ("p50", "p99"), ("p99",)),
    ]
    assert lost[0].said() == (
        "latency: parser found 1 of the 2 metrics the previous checkouts had: missing p99"
    )


def test_one_repetition_that_lacks_a_metric_marks_its_checkout() -> None:
    found = {
        0: {"latency": (2, {"p50": 2, "p99": 2})},
        1: {"latency": (3, {"p50": 3, "p99": 2})},  # one of three passed without p99
    }
    assert lost_values(found) == [LostValues(1, "latency", ("p50", "p99"), ("p99",))]


def test_a_metric_new_at_a_checkout_and_the_first_checkout_lose_nothing() -> None:
    found = {
        0: {"latency": (1, {"p50": 1})},
        1: {"latency": (1, {"p50": 1, "p999": 1}), "boot": (1, {"seconds": 1})},
        2: {"latency": (1, {"p50": 1, "p999": 1})},
    }
    assert lost_values(found) == []


def test_tests_are_apart_and_a_test_without_a_pass_loses_nothing() -> None:
    found = {
        0: {"a": (1, {"x": 1}), "b": (1, {"y": 1})},
        1: {"a": (1, {"y": 1})},  # b did not pass here: its FAIL says it
    }
    assert lost_values(found) == [LostValues(1, "a", ("x",), ("x",))]


def test_a_walk_compares_a_repetition_with_the_checkouts_before_its_own() -> None:
    names = MetricNames({4: {"latency": (1, {"p50": 1, "p99": 1})}})
    assert names.lost(2, "latency", {"p50"}) is None  # checkout 4 is after it
    names.add(2, "latency", {"p50"})
    lost = names.lost(6, "latency", {"p50"})
    assert lost == LostValues(6, "latency", ("p50", "p99"), ("p99",))
    assert names.lost(6, "latency", {"p50", "p99"}) is None
    assert names.before(5, "latency") == {"p50", "p99"}
    assert LostValues(1, "t", ("x",), ("x",)).said() == (
        "t: parser found 0 of the 1 metric the previous checkouts had: missing x"
    )
