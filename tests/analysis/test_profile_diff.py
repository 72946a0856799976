"""The differential profile: shares, the table of changed functions, the tree of a
differential flame graph; properties over generated profiles (hypothesis)."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfwalk.analysis.profile_diff import DiffNode, diff_functions, diff_tree, shares

frames = st.sampled_from(["main", "run", "crc", "fill", "<script>", "a b", "memcpy"])
stacks = st.dictionaries(
    st.lists(frames, min_size=1, max_size=6).map(";".join), st.integers(1, 1000), max_size=30
)

BEFORE = {"bench;main;checksum_block": 50, "bench;main;fill": 30, "bench;main;other": 20}
AFTER = {"bench;main;checksum_block": 100, "bench;main;fill": 30, "bench;main;other": 20}


def test_the_grown_function_comes_first() -> None:
    rows = diff_functions(BEFORE, AFTER)
    first = rows[0]
    assert first.name == "checksum_block"
    assert first.self_before == pytest.approx(50.0)
    assert first.self_after == pytest.approx(100 * 100 / 150)
    assert first.self_delta == pytest.approx(100 * 100 / 150 - 50)
    assert [r.name for r in rows[:3]] == ["checksum_block", "fill", "other"]
    assert {r.name: r.total_delta for r in rows}["main"] == pytest.approx(0.0)
    assert json.loads(json.dumps(first.as_dict()))["name"] == "checksum_block"


def test_recursion_counts_once_in_total() -> None:
    found = shares({"a;b;a;b": 3, "a;c": 1})
    assert found["a"] == (0.0, 100.0)
    assert found["b"] == (75.0, 75.0)


def test_a_growth_comes_before_a_loss_of_the_same_size() -> None:
    rows = diff_functions({"p;x": 1, "p;y": 1}, {"p;x": 3, "p;y": 1})
    assert (rows[0].name, rows[1].name) == ("x", "y")
    assert rows[0].self_delta == pytest.approx(-rows[1].self_delta)


def test_top_cuts_the_table() -> None:
    before = {f"p;f{i}": i + 1 for i in range(40)}
    after = {f"p;f{i}": 41 - i for i in range(40)}
    assert len(diff_functions(before, after, top=20)) == 20


def test_empty_profiles() -> None:
    assert shares({}) == {}
    assert diff_functions({}, {}) == []
    assert diff_tree({}, {}) == {
        "name": "all",
        "value": 0,
        "before": 0,
        "delta": 0.0,
        "children": [],
    }
    (row,) = [r for r in diff_functions({}, {"p;x": 2}) if r.name == "x"]
    assert (row.self_before, row.self_after) == (0.0, 100.0)


def test_the_tree_of_a_grown_function() -> None:
    tree = diff_tree(BEFORE, AFTER)
    assert (tree["name"], tree["value"], tree["before"]) == ("all", 150, 100)
    (bench,) = tree["children"]
    (main,) = bench["children"]
    assert [c["name"] for c in main["children"]] == ["checksum_block", "fill", "other"]
    grown = main["children"][0]
    assert (grown["value"], grown["before"]) == (100, 50)
    assert grown["delta"] == pytest.approx(100 * 100 / 150 - 50)
    assert json.loads(json.dumps(tree)) == tree


def test_a_path_only_before_is_in_the_tree_with_no_samples_after() -> None:
    tree = diff_tree({"p;gone": 4, "p;kept": 4}, {"p;kept": 4})
    gone = tree["children"][0]["children"][0]
    assert (gone["name"], gone["value"], gone["before"], gone["delta"]) == ("gone", 0, 4, -50.0)


def _walk(node: DiffNode) -> list[DiffNode]:
    found, pending = [], [node]
    while pending:
        here = pending.pop()
        found.append(here)
        pending.extend(here["children"])
    return found


@settings(max_examples=200, deadline=None)
@given(profile=stacks)
def test_self_shares_sum_to_100(profile: dict[str, int]) -> None:
    found = shares(profile)
    if profile:
        assert sum(own for own, _total in found.values()) == pytest.approx(100.0)
    for own, total in found.values():
        assert 0.0 <= own <= total <= 100.0 + 1e-9


@settings(max_examples=200, deadline=None)
@given(profile=stacks, factor=st.integers(1, 5))
def test_identical_or_scaled_profiles_change_nothing(profile: dict[str, int], factor: int) -> None:
    scaled = {stack: samples * factor for stack, samples in profile.items()}
    for row in diff_functions(profile, scaled):
        assert row.self_delta == pytest.approx(0.0, abs=1e-9)
        assert row.total_delta == pytest.approx(0.0, abs=1e-9)
    assert all(abs(n["delta"]) < 1e-9 for n in _walk(diff_tree(profile, scaled)))


@settings(max_examples=200, deadline=None)
@given(before=stacks, after=stacks)
def test_self_changes_sum_to_zero_and_the_tree_adds_up(
    before: dict[str, int], after: dict[str, int]
) -> None:
    rows = diff_functions(before, after)
    if before and after:
        assert sum(r.self_delta for r in rows) == pytest.approx(0.0, abs=1e-6)
    changes = [abs(r.change) for r in rows]
    assert changes == sorted(changes, reverse=True) or all(
        a >= b - 1e-9 for a, b in itertools.pairwise(changes)
    )
    for node in _walk(diff_tree(before, after)):
        assert node["value"] >= sum(c["value"] for c in node["children"])
        assert node["before"] >= sum(c["before"] for c in node["children"])
    tree = diff_tree(before, after)
    assert tree["value"] == sum(after.values())
    assert tree["before"] == sum(before.values())
