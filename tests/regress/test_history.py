"""Decayed severity, pass rate, flakiness, the failing streak and where a test broke on
a fixed history."""

from __future__ import annotations

import itertools
import random

import pytest

from perfwalk.model import Status
from perfwalk.regress.grid import host_grids
from perfwalk.regress.history import (
    Broke,
    FailingSince,
    decayed_severity,
    failed_value,
    failing_since,
    is_flaky,
    newly_failing,
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


def _oldest_first(*history: int) -> list[int]:
    """A history written oldest first (as it happened), turned newest first."""
    return list(reversed(history))


@pytest.mark.parametrize(
    ("history", "broke"),
    [
        # broke for good: where the streak started, after its last pass
        (_oldest_first(P, P, P, P, F, F, F), [Broke(3, 2)]),
        # failed last night only: the next run tells a flake from a break
        (_oldest_first(P, P, P, P, F), []),
        # confirmed by the second failure, whatever status the failures have
        (_oldest_first(P, P, X, NE, NT), [Broke(2, 1)]),
        # SKIP and runs without the test are looked past, on either side
        (_oldest_first(P, S, 0, F, S, F), [Broke(5, 2)]),
        # flips every night (a flaky test): never a break, at any flip
        (_oldest_first(P, F, P, F, P, F, P, F, P, F, F, P, F), []),
        # one flake long before a real break does not hide it
        (_oldest_first(P, F, P, P, P, P, F, F), [Broke(2, 1)]),
        # but a test that flaked often before does not break by failing twice
        (_oldest_first(P, F, P, F, P, P, F, F), []),
        # broke, was fixed, broke again: two breaks
        (_oldest_first(P, F, F, P, P, P, P, P, F, F), [Broke(9, 8), Broke(2, 1)]),
        # failing from its first run: it never passed, nothing broke
        (_oldest_first(F, F, F), []),
        # XPASS counts against a test, as in the pass rate
        (_oldest_first(X, X, XP, XP), [Broke(2, 1)]),
    ],
)
def test_a_test_breaks_where_it_fails_twice_in_a_row_after_passing(
    history: list[int], broke: list[Broke]
) -> None:
    assert newly_failing(history) == broke


def test_a_seeded_flaky_test_over_a_year_of_nights_seldom_breaks() -> None:
    """A test that fails one night in four at random, over 365 nights, flips some 130
    times and fails twice in a row after a pass 20 times; it had flaked often before
    nearly each of those, so it breaks at most twice; a steady test that breaks for
    good is found at its first failure."""
    draw = random.Random(30)
    flaky = [F if draw.random() < 0.25 else P for _ in range(365)]
    flips = sum(1 for a, b in itertools.pairwise(flaky) if a != b)
    twice = sum(
        1 for a, b, c in zip(flaky, flaky[1:], flaky[2:], strict=False) if a == P and b == c == F
    )
    assert (flips, twice) == (134, 20)
    assert len(newly_failing(_oldest_first(*flaky))) <= 2
    steady = [P] * 300 + [F] * 65
    assert newly_failing(_oldest_first(*steady)) == [Broke(65, 64)]


def test_a_drill_reads_failing_as_one_and_passing_as_zero() -> None:
    assert failed_value(Status.PASS) == (0.0,)
    assert failed_value(Status.XFAIL) == (0.0,)
    assert failed_value(Status.NOEXIT) == (1.0,)
    assert failed_value(Status.XPASS) == (1.0,)
    assert failed_value(Status.SKIP) == ()
