"""Breaks: a checkout whose build fails after one that built, and a functional test
that fails after it passed. Pure: statuses in, breaks out.

A status *passes* when it is PASS, XFAIL (failed as expected) or XPASS; it *fails*
from FAIL on (FAIL, NOEXIT, NOTERM … NOEXIST); SKIP is neither and is looked past, as
is a checkout without the test (its build failed, the test did not run there). A break
lies between the last checkout that passed and the first that failed after it: its
culprit is in the commits after ``before_idx`` up to ``after_idx``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfwalk.model import Status

#: the kinds of breaks: a build that broke, a test that started failing
BUILD, TEST = "build", "test"

#: what a break's drill narrows, as a drill names its test and value: the build's status
#: (any test is run beside it), a test's status
BUILD_TEST = "(build)"
STATUS = "status"

#: the statuses that pass (SKIP neither passes nor fails)
PASSING = frozenset({Status.PASS, Status.XFAIL, Status.XPASS})


def fails(status: Status) -> bool:
    """Whether ``status`` is a failure (FAIL or worse)."""
    return status >= Status.FAIL


@dataclass(frozen=True)
class Break:
    """A build (``kind`` build, ``test`` "") or a test (``kind`` test) that passed at
    checkout ``before_idx`` and fails at ``after_idx``, with both statuses."""

    kind: str
    test: str
    before_idx: int
    after_idx: int
    before: Status
    after: Status


@dataclass(frozen=True)
class CheckoutStatuses:
    """A checkout's build status (None: not built yet) and each test's worst status
    over its repetitions."""

    idx: int
    build: Status | None
    tests: Mapping[str, Status]


def find_breaks(checkouts: Sequence[CheckoutStatuses]) -> list[Break]:
    """Every build and test break of a series of ``checkouts`` (in index order), in the
    order of their checkouts, builds first."""
    found: list[Break] = []
    found.extend(_breaks(BUILD, "", [(c.idx, c.build) for c in checkouts]))
    tests = sorted({test for c in checkouts for test in c.tests})
    for test in tests:
        found.extend(_breaks(TEST, test, [(c.idx, c.tests.get(test)) for c in checkouts]))
    return sorted(found, key=lambda b: (b.after_idx, b.kind != BUILD, b.test))


def failed_value(kind: str, build: Status | None, statuses: Sequence[Status]) -> tuple[float, ...]:
    """What a break's drill reads at a commit, noise-free: 1.0 for a failure, 0.0 for a
    pass. A build drill reads the build (one value: failed or built; none while not
    built), a test drill each repetition's status of the test (SKIP: none)."""
    if kind == BUILD:
        return () if build is None else (1.0 if fails(build) else 0.0,)
    return tuple(1.0 if fails(s) else 0.0 for s in statuses if s in PASSING or fails(s))


def _breaks(kind: str, test: str, line: Sequence[tuple[int, Status | None]]) -> list[Break]:
    found = []
    last: tuple[int, Status] | None = None  # the last checkout that passed or failed
    for idx, status in line:
        if status is None or (status not in PASSING and not fails(status)):
            continue
        if fails(status) and last is not None and last[1] in PASSING:
            found.append(Break(kind, test, last[0], idx, last[1], status))
        last = (idx, status)
    return found
