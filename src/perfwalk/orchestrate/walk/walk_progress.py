"""Where a walk stands (:class:`Progress`), told as it goes on, for a progress bar."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from perfwalk.model import Checkout, Status
from perfwalk.quantities import format_value
from perfwalk.store.records import NewResult

#: what a :class:`Progress` tells: a step within a checkout (a warm-up, a
#: repetition), a build that failed, a checkout whose repetitions are all done, a
#: build that begins (one of the walk's planned builds), a host that hung (and
#: was power-cycled, or ends the walk), or values a parser lost (a test passed
#: without metrics it gave at the checkouts before)
STEP, BUILD_FAILED, CHECKOUT_DONE, BUILDING = "step", "build failed", "checkout done", "building"
HUNG = "host hung"
VALUES_LOST = "values lost"


@dataclass(frozen=True)
class Progress:
    """Where a walk stands, for a progress bar."""

    done: int  # repetitions finished (or given up) so far
    total: int
    checkout: int  # the checkout's index + 1
    checkouts: int
    message: str  # what happens; for CHECKOUT_DONE a short summary of its values
    kind: str = STEP
    commit: str = ""  # the checkout's commit id
    builds: int = 0  # builds this call of the walk plans (one per checkout it measures)
    built: int = 0  # … begun so far
    number: int = 0  # the checkout's number in the count of ``checkouts`` (0: ``checkout``)
    at_most: bool = False  # ``checkouts`` is the most the walk measures (an adaptive budget)

    @property
    def counted(self) -> str:
        """``3/30``, or ``3 of at most 30`` for a walk that stops when it has seen enough."""
        number = self.number or self.checkout
        return (
            f"{number} of at most {self.checkouts}"
            if self.at_most
            else f"{number}/{self.checkouts}"
        )


@dataclass(frozen=True)
class Frame:
    """One call of a walk as a part of a whole that measures one checkout at a time (an
    adaptive walk): its checkout is the ``number``-th of at most ``checkouts``, after
    ``done`` repetitions of at most ``total`` and ``built`` builds of at most
    ``checkouts``."""

    number: int
    checkouts: int
    done: int
    total: int
    built: int


def time_left(
    repetition: float | None, build: float | None, repetitions: int, builds: int
) -> float | None:
    """The seconds a walk has left: ``repetitions`` left at ``repetition`` seconds each
    and ``builds`` left at ``build`` seconds each, as measured (None: what is left is
    not measured yet: no repetition timed, or builds left and none timed)."""
    if repetitions > 0 and repetition is None:
        return None
    if builds > 0 and build is None:
        return None
    return max(0, repetitions) * (repetition or 0.0) + max(0, builds) * (build or 0.0)


@dataclass
class ProgressCount:
    """The progress of the current call of a walk, told to ``progress`` at each step."""

    progress: Callable[[Progress], None]
    done: int = 0  # repetitions finished (or given up) in this call
    total: int = 0
    checkouts: int = 0
    builds: int = 0  # builds planned in this call
    built: int = 0  # … begun
    frame: Frame | None = None  # the whole this call is a part of (None: it is the whole)

    def start(self, done: int, total: int, checkouts: int, builds: int = 0) -> None:
        """A new call of the walk: ``done`` of ``total`` repetitions, over ``checkouts``,
        ``builds`` to build."""
        self.done, self.total, self.checkouts = done, total, checkouts
        self.builds, self.built = builds, 0

    def building(self, checkout: Checkout) -> None:
        """One of the planned builds begins."""
        self.built += 1
        self.report(checkout, f"building {checkout.commit[:12]}", BUILDING)

    def report(self, checkout: Checkout, message: str, kind: str = STEP) -> None:
        frame = self.frame
        done, total, checkouts = self.done, self.total, self.checkouts
        builds, built = self.builds, self.built
        if frame is not None:  # one checkout of a whole: counted in the whole
            done, total, checkouts = frame.done + done, frame.total, frame.checkouts
            builds, built = frame.checkouts, frame.built + built
        self.progress(
            Progress(
                done,
                total,
                checkout.index + 1,
                checkouts,
                message,
                kind,
                checkout.commit,
                builds,
                built,
                0 if frame is None else frame.number,
                frame is not None,
            )
        )

    def checkout_done(self, checkout: Checkout, results: Sequence[NewResult]) -> None:
        """The checkout has all its repetitions: told with a summary of ``results``."""
        self.report(checkout, results_summary(results), CHECKOUT_DONE)


def results_summary(results: Sequence[NewResult], most: int = 2) -> str:
    """A few words on the results of a checkout's repetitions: the median of the first
    ``most`` metrics (``latency.latency 100.0 ms``), or a test's worst status when it
    gave no value (``latency FAIL``)."""
    values: dict[tuple[str, str, str], list[float]] = {}
    worst: dict[str, Status] = {}
    for result in results:
        worst[result.test] = max(worst.get(result.test, Status.PASS), result.status)
        if result.status is Status.PASS:
            for value, _direction in result.values:
                values.setdefault((result.test, value.name, value.unit), []).append(value.value)
    words = [
        f"{test}.{name} {format_value(statistics.median(found), unit)}"
        for (test, name, unit), found in list(values.items())[:most]
    ]
    if len(values) > most:
        words.append(f"(+{len(values) - most} more)")
    words += [
        f"{test} {status.name}" for test, status in worst.items() if status is not Status.PASS
    ]
    return ", ".join(words) or "no result"
