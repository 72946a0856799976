"""Who sees a command's output while it runs: the :class:`Tap` in place, if any.

A walk puts a tap in place around the steps whose output is shown live
(:mod:`perfwalk.orchestrate.steps.live`): every command a host starts meanwhile,
locally or over ssh, tells it that it began, each chunk of its output (stdout and
stderr as they come) and that it ended. The tap in place is a context variable:
it follows the code that put it in place, and the threads that copy its context
(:func:`perfwalk.orchestrate.hosts.together.run_together`), and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol


class Tap(Protocol):
    """What a command tells while it runs; called from the thread that runs it."""

    def begin(self, host: str, argv: Sequence[str]) -> None: ...

    def output(self, host: str, chunk: bytes) -> None: ...

    def end(self, host: str) -> None: ...


_tap: ContextVar[Tap | None] = ContextVar("perfwalk_output_tap", default=None)


def current_tap() -> Tap | None:
    """The tap in place here, if any."""
    return _tap.get()


@contextmanager
def tapping(tap: Tap | None) -> Iterator[None]:
    """Put ``tap`` in place (None: none) for the commands run inside."""
    token = _tap.set(tap)
    try:
        yield
    finally:
        _tap.reset(token)
