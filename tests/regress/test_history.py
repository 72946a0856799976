"""Decayed severity, pass rate, flakiness and the failing streak on a fixed history."""

from __future__ import annotations

import pytest

from perfwalk.model import Status
from perfwalk.regress.grid import host_grids
from perfwalk.regress.history import (
    FailingSince,
    decayed_severity,
    failing_since,
    is_flaky,
    pass_rate,
    severity_order,
)

P, X, S, XP, F, NE, NT = 1, 2, 3, 4, 5, 6, 7  # severities; 0 = not run

#: newest first, as the matrix shows them
HISTORY = {
    "broke-today": [F, P, P, P, P, P],
    "broken-for-long": [F, F, F, F, F, F],
    "fixed-yesterday": [P, NT, NT, NT, NT, NT],
    "hangs-since-two-days": [NT, NT, P, P, P, P],
    "always-passes": [P, P, P, P, P, P],
    "also-passes": [P, P, P, P, P, P],
    "skipped": [S, S, S, S, S, S],
    "new-test": [F, 0, 0, 0, 0, 0],
}


def test_decayed_severity_is_the_sum_of_halved_severities() -> None:
    assert decayed_severity([F, P, P]) == 5 + 0.5 + 0.25
    assert decayed_severity([0, F]) == 2.5  # a run without the test still ages the others
    assert decayed_severity([]) == 0.0
    # the lab tool's way: oldest first, halve, then add the new severity
    score = 0.0
    for severity in reversed(HISTORY["hangs-since-two-days"]):
        score = score / 2 + severity
    assert decayed_severity(HISTORY["hangs-since-two-days"]) == score


def test_recent_and_persistent_failures_come_first_then_names() -> None:
    scores = {name: decayed_severity(h) for name, h in HISTORY.items()}
    assert scores["hangs-since-two-days"] == 7 + 3.5 + 0.25 + 0.125 + 0.0625 + 0.03125
    assert scores["broken-for-long"] == 5 * (1 + 1 / 2 + 1 / 4 + 1 / 8 + 1 / 16 + 1 / 32)
    assert severity_order(HISTORY) == sorted(HISTORY, key=lambda n: (-scores[n], n))
    assert severity_order(HISTORY) == [
        "hangs-since-two-days",
        "broken-for-long",
        "fixed-yesterday",
        "broke-today",
        "skipped",
        "new-test",
        "also-passes",
        "always-passes",
    ]


@pytest.mark.parametrize(
    ("counts", "rate"),
    [
        ({Status.PASS: 8, Status.FAIL: 2}, 0.8),
        ({Status.PASS: 6, Status.FAIL: 2, Status.SKIP: 1, Status.XFAIL: 1}, 0.75),
        ({Status.PASS: 3, Status.XPASS: 1}, 0.75),  # an unexpected pass counts against
        ({Status.SKIP: 2, Status.XFAIL: 1}, None),  # nothing left to divide by
        ({}, None),
    ],
)
def test_pass_rate_is_pass_over_all_but_skip_and_xfail(
    counts: dict[Status, int], rate: float | None
) -> None:
    assert pass_rate(counts) == rate


def test_flaky_when_the_outcome_flips_back_and_forth() -> None:
    assert is_flaky([F, P, F, P])
    assert is_flaky([F, S, 0, P, NE, X])  # SKIP and missing runs are left out
    assert not is_flaky([F, F, F, P, P, P])  # a regression is not flaky
    assert not is_flaky([P, F, P])  # one bad night is not flaky
    assert not is_flaky([P] * 25 + [F, P, F, P])  # beyond the window


def test_failing_since_finds_the_start_of_the_streak() -> None:
    assert failing_since([F, NT, S, F, P, F]) == FailingSince(first_failing=3, last_passing=4)
    assert failing_since([F, F, 0]) == FailingSince(first_failing=1, last_passing=None)
    assert failing_since([P, F]) is None
    assert failing_since([S, 0]) is None
    assert failing_since([X, F]) is None  # XFAIL is expected: not failing


def test_host_grids_turn_run_columns_into_test_histories() -> None:
    columns = [  # newest first; byte i = severity of test id i
        (12, "b", bytes([0, 1, 5])),
        (11, "a", bytes([0, 1, 1, 7])),
        (10, "a", bytes([0, 5])),
    ]
    grids = host_grids(columns)
    assert list(grids) == ["b", "a"]
    assert grids["a"].run_ids == [11, 10]
    assert grids["a"].rows == {1: bytes([1, 5]), 2: bytes([1, 0]), 3: bytes([7, 0])}
    assert grids["b"].rows == {1: bytes([1]), 2: bytes([5])}
