"""Values a parser lost: the metrics a test gave at the checkouts before one that a
repetition there passed without (a regex that misses some lines of the output). A
lost metric leaves no status behind (the test still PASSes with the values it found):
it is said on the walk's line and marked on the checkout instead (pure).

Only PASS results count, on both sides; the instruments' metrics (measured beside the
parser, some in one run per checkout only) are the caller's to leave out.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

#: per test, how many of its results passed and, per metric name, how many of those
#: gave it: what one checkout's repetitions found
TestNames = Mapping[str, tuple[int, Mapping[str, int]]]


@dataclass(frozen=True)
class LostValues:
    """At checkout ``idx``, a repetition of ``test`` passed without ``missing``, of the
    metrics ``known`` the test gave at the checkouts before it."""

    idx: int
    test: str
    known: tuple[str, ...]
    missing: tuple[str, ...]

    def said(self) -> str:
        """``latency: parser found 2 of the 3 metrics the previous checkouts had:
        missing p99``."""
        found, known = len(self.known) - len(self.missing), len(self.known)
        metrics = "metric" if known == 1 else "metrics"
        return (
            f"{self.test}: parser found {found} of the {known} {metrics} the previous "
            f"checkouts had: missing {', '.join(self.missing)}"
        )


class MetricNames:
    """The metric names each test's passing results gave, by the first checkout (by
    index) that gave each, and what a repetition lost against the checkouts before its
    own."""

    def __init__(self, found: Mapping[int, TestNames] | None = None) -> None:
        self._first: dict[str, dict[str, int]] = {}  # test → metric → first checkout
        for idx, tests in (found or {}).items():
            for test, (_passed, names) in tests.items():
                self.add(idx, test, [name for name, count in names.items() if count > 0])

    def add(self, idx: int, test: str, names: Collection[str]) -> None:
        """``test`` passed at checkout ``idx`` with the metrics ``names``."""
        first = self._first.setdefault(test, {})
        for name in names:
            if first.get(name, idx + 1) > idx:
                first[name] = idx

    def before(self, idx: int, test: str) -> set[str]:
        """The metrics ``test`` gave at the checkouts before ``idx``."""
        return {name for name, first in self._first.get(test, {}).items() if first < idx}

    def lost(self, idx: int, test: str, names: Collection[str]) -> LostValues | None:
        """What a passing repetition of ``test`` at checkout ``idx`` with the metrics
        ``names`` lost (None: nothing)."""
        known = self.before(idx, test)
        missing = known - set(names)
        if not missing:
            return None
        return LostValues(idx, test, tuple(sorted(known)), tuple(sorted(missing)))


def lost_values(found: Mapping[int, TestNames]) -> list[LostValues]:
    """Per checkout (by index) and test, what its passing repetitions lost against the
    checkouts before it: each metric that one of them did not give."""
    names = MetricNames(found)
    lost: list[LostValues] = []
    for idx in sorted(found):
        for test, (passed, counts) in sorted(found[idx].items()):
            known = names.before(idx, test)
            missing = sorted(name for name in known if counts.get(name, 0) < passed)
            if missing:
                lost.append(LostValues(idx, test, tuple(sorted(known)), tuple(missing)))
    return lost
