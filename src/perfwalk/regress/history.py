"""What a test's history of statuses means, and the pass rate of a run.

A history is the severities of one test's statuses in a row of runs, **newest
first**; ``0`` (:data:`NO_RESULT`) stands for a run without that test. A status
is *failing* when it is neither PASS, XFAIL nor SKIP (XPASS counts: the pass rate
counts it against the run too); SKIP and missing results say nothing either way.
A test *breaks* where it fails twice in a row after passing, unless it was flaky
before (:func:`newly_failing`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfwalk.model import Status

NO_RESULT = 0
#: Runs looked at, newest first, to decide whether a test is flaky …
FLAKY_WINDOW = 20
#: … and how many times its outcome must flip between passing and failing in them.
FLAKY_CHANGES = 3

_NEUTRAL = frozenset({NO_RESULT, int(Status.SKIP)})
_PASSING = frozenset({int(Status.PASS), int(Status.XFAIL)})


def failing(severity: int) -> bool:
    """True for a status that is bad news (XPASS and worse)."""
    return severity not in _NEUTRAL and severity not in _PASSING


def decayed_severity(history: Sequence[int]) -> float:
    """S = Σ severityᵢ · 0.5^i over the runs newest first (i = age in runs, newest 0).

    Recent and persistent failures weigh most; a run without the test adds 0 but
    still ages the older ones. Computed oldest first as S ← S/2 + severity, the
    way the lab tool accumulated it run by run.
    """
    total = 0.0
    for severity in reversed(history):
        total = total * 0.5 + severity
    return total


def severity_order(histories: Mapping[str, Sequence[int]]) -> list[str]:
    """The test names by decayed severity, highest first, then by name."""
    scores = {name: decayed_severity(history) for name, history in histories.items()}
    return sorted(scores, key=lambda name: (-scores[name], name))


def pass_rate(counts: Mapping[Status, int]) -> float | None:
    """PASS / (all − SKIP − XFAIL) of one run; None when nothing is left to divide by."""
    total = sum(counts.values())
    denominator = total - counts.get(Status.SKIP, 0) - counts.get(Status.XFAIL, 0)
    if denominator <= 0:
        return None
    return counts.get(Status.PASS, 0) / denominator


def is_flaky(
    history: Sequence[int], window: int = FLAKY_WINDOW, changes: int = FLAKY_CHANGES
) -> bool:
    """True when, in its ``window`` newest results that pass or fail (SKIP and missing
    runs left out), the test flipped between passing and failing ``changes`` times."""
    outcomes: list[bool] = []
    for severity in history:
        if severity not in _NEUTRAL:
            outcomes.append(failing(severity))
            if len(outcomes) == window:
                break
    flips = sum(1 for newer, older in itertools.pairwise(outcomes) if newer != older)
    return flips >= changes


@dataclass(frozen=True)
class FailingSince:
    """Where the current failure of a test began, as positions in its history.

    ``first_failing`` is the oldest run of the failing streak that reaches the newest
    result; ``last_passing`` the run before it that passed (None when it never did).
    """

    first_failing: int
    last_passing: int | None


def failing_since(history: Sequence[int]) -> FailingSince | None:
    """The current failing streak of a test; None when its newest result is not failing.

    SKIP and missing results inside the streak neither end nor extend it.
    """
    first: int | None = None
    for position, severity in enumerate(history):
        if severity in _NEUTRAL:
            continue
        if failing(severity):
            first = position
            continue
        return None if first is None else FailingSince(first, position)
    return None if first is None else FailingSince(first, None)


#: failing results in a row (after a pass) that make a test's break: one failure alone
#: may be a flake, which the next run shows
BREAK_HOLDS = 2


@dataclass(frozen=True)
class Broke:
    """Where a test broke, as positions in its history (newest first): its last result
    that passed before the failure, and the first of the failing streak."""

    last_passing: int
    first_failing: int


def newly_failing(
    history: Sequence[int],
    holds: int = BREAK_HOLDS,
    window: int = FLAKY_WINDOW,
    changes: int = FLAKY_CHANGES,
) -> list[Broke]:
    """Where the test of ``history`` (newest first) broke, oldest first: each failing
    streak of ``holds`` results or more right after a result that passed (SKIP and
    missing results looked past), unless the test was flaky before it (``changes``
    flips in its ``window`` results before the streak: :func:`is_flaky`). A test that
    flips between passing and failing breaks nowhere; the newest failure waits for the
    next run to confirm it."""
    outcomes = [(at, failing(s)) for at, s in enumerate(history) if s not in _NEUTRAL]
    outcomes.reverse()  # oldest first
    found = []
    for i in range(1, len(outcomes)):
        (passed_at, failed_before), (failed_at, failed_now) = outcomes[i - 1], outcomes[i]
        if failed_before or not failed_now:
            continue
        streak = outcomes[i : i + holds]
        if len(streak) < holds or not all(bad for _at, bad in streak):
            continue
        if is_flaky(history[failed_at + 1 :], window, changes):
            continue
        found.append(Broke(passed_at, failed_at))
    return found


def failed_value(status: Status) -> tuple[float, ...]:
    """What a drill of a regress test's break reads at a commit, noise-free: 1.0 when the
    test fails there, 0.0 when it passes; nothing for SKIP."""
    severity = int(status)
    return () if severity in _NEUTRAL else (1.0 if failing(severity) else 0.0,)
