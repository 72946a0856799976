"""One test's outcome, and a whole parsed suite, as the parsers give them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from perfwalk.model import Status

#: The name of the row that speaks for a suite as a whole: a runner that timed out or
#: wrote no results, a TAP stream that bailed out or did not keep its plan.
SUITE_TEST = "[suite]"


@dataclass(frozen=True)
class TestOutcome:
    """What one test of a suite did.

    ``log`` is the test's own output (untrusted bytes, not yet bounded);
    ``source`` the path of its source file or directory, when known.
    """

    __test__ = False  # not a pytest test class

    name: str
    status: Status
    message: str = ""
    log: bytes = b""
    duration: float | None = None
    source: str | None = None


@dataclass(frozen=True)
class ParsedSuite:
    """The outcomes found in one results file, with what the file says about its run."""

    outcomes: tuple[TestOutcome, ...]
    started: datetime | None = None  # when the suite ran, if the file says
    hostname: str | None = None  # where it ran, if the file says


def numbered(outcomes: Iterable[TestOutcome]) -> tuple[TestOutcome, ...]:
    """The outcomes with repeated names made unique: ``name``, ``name (2)``, ``name (3)``…

    A name is a test's id in the store, so two outcomes of one run may not share it;
    the suffix follows the order of the file, which stays the same from run to run.
    """
    seen: dict[str, int] = {}
    taken = set()
    result = []
    for outcome in outcomes:
        count = seen.get(outcome.name, 0) + 1
        seen[outcome.name] = count
        name = outcome.name
        while name in taken:
            name = f"{outcome.name} ({count})"
            count += 1
        taken.add(name)
        result.append(outcome if name == outcome.name else replace(outcome, name=name))
    return tuple(result)
