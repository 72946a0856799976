"""Breaks: a build that fails after one that built, a test that fails after it passed;
SKIP and checkouts without the test are looked past, a failure that never passed (or
one that goes on failing) is no new break."""

from __future__ import annotations

from perfwalk.analysis.breaks import BUILD, TEST, Break, CheckoutStatuses, find_breaks
from perfwalk.model import Status

P, F, X, S, N = Status.PASS, Status.FAIL, Status.NOEXIT, Status.SKIP, Status.NOEXIST


def _line(*rows: tuple[Status | None, dict[str, Status]]) -> list[CheckoutStatuses]:
    return [CheckoutStatuses(idx, build, tests) for idx, (build, tests) in enumerate(rows)]


def test_a_build_that_breaks_after_one_that_built() -> None:
    found = find_breaks(_line((P, {}), (None, {}), (N, {}), (N, {}), (P, {}), (N, {})))
    assert found == [Break(BUILD, "", 0, 2, P, N), Break(BUILD, "", 4, 5, P, N)]


def test_a_test_that_fails_after_passing_across_skips_and_failed_builds() -> None:
    found = find_breaks(
        _line(
            (P, {"a": F, "b": P}),  # a never passed yet: no break
            (P, {"a": P, "b": S}),
            (N, {}),  # no result: looked past
            (P, {"a": S, "b": P}),
            (P, {"a": X, "b": P}),  # a passed at 1, fails at 4
            (P, {"a": F, "b": X}),  # a goes on failing; b breaks
        )
    )
    assert found == [
        Break(BUILD, "", 1, 2, P, N),
        Break(TEST, "a", 1, 4, P, X),
        Break(TEST, "b", 4, 5, P, X),
    ]


def test_nothing_broke() -> None:
    assert find_breaks(_line((P, {"a": P}), (P, {"a": Status.XFAIL}), (P, {"a": P}))) == []
    assert find_breaks([]) == []
