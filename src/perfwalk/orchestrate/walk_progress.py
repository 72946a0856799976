"""Where a walk stands (:class:`Progress`), told as it goes on, for a progress bar."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from perfwalk.model import Checkout


@dataclass(frozen=True)
class Progress:
    """Where a walk stands, for a progress bar."""

    done: int  # repetitions finished (or given up) so far
    total: int
    checkout: int
    checkouts: int
    message: str


@dataclass
class ProgressCount:
    """The progress of the current call of a walk, told to ``progress`` at each step."""

    progress: Callable[[Progress], None]
    done: int = 0  # repetitions finished (or given up) in this call
    total: int = 0
    checkouts: int = 0

    def start(self, done: int, total: int, checkouts: int) -> None:
        """A new call of the walk: ``done`` of ``total`` repetitions, over ``checkouts``."""
        self.done, self.total, self.checkouts = done, total, checkouts

    def report(self, checkout: Checkout, message: str) -> None:
        self.progress(Progress(self.done, self.total, checkout.index + 1, self.checkouts, message))
