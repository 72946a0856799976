"""The difference of two snapshots of counters."""

from __future__ import annotations

from perfwalk.analysis.counters import Change, CounterChange, difference


def test_changed_counters_first_by_absolute_change_then_new_gone_same() -> None:
    before = {"a": 1, "b": 10, "c": 5, "gone": 3, "d": 7}
    after = {"d": 7, "a": 2, "b": 4, "c": 5, "fresh": 9}
    assert difference(before, after) == (
        CounterChange("b", 10, 4, -6, Change.CHANGED),
        CounterChange("a", 1, 2, 1, Change.CHANGED),
        CounterChange("fresh", None, 9, None, Change.NEW),
        CounterChange("gone", 3, None, None, Change.GONE),
        CounterChange("d", 7, 7, 0, Change.SAME),
        CounterChange("c", 5, 5, 0, Change.SAME),
    )


def test_equal_changes_are_ordered_by_name() -> None:
    found = difference({"y": 0, "x": 0}, {"y": 2, "x": -2})
    assert [c.name for c in found] == ["x", "y"]


def test_large_counters_differ_exactly() -> None:
    top = 2**64 - 1
    (change,) = difference({"bytes": top - 3}, {"bytes": top})
    assert change.delta == 3
    assert isinstance(change.delta, int)


def test_nothing_before_everything_new() -> None:
    assert [c.change for c in difference({}, {"a": 1})] == [Change.NEW]
    assert difference({}, {}) == ()
