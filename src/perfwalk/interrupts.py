"""Interrupts held back while perfwalk stops what it started.

A stopping signal (SIGINT, SIGTERM, SIGHUP) raises
:class:`~perfwalk.errors.Interrupted` in the main thread wherever it lands
(:mod:`perfwalk.cli.signals` calls :func:`deliver`). Landing inside the code that
kills a test's processes would leave them running; such code runs
:func:`shielded`: a signal that arrives meanwhile is raised when the block ends,
once what it does is done. Only the main thread is shielded (signals are only
handled there); elsewhere :func:`shielded` does nothing.

Part of the lowest layer, with :mod:`perfwalk.errors`: every layer may use it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from perfwalk.errors import Interrupted


@dataclass
class _Shield:
    held: int = 0  # shielded blocks the main thread is in
    pending: int | None = None  # the first signal that arrived inside them


_SHIELD = _Shield()


def deliver(signum: int) -> None:
    """What a signal handler calls: raise Interrupted now, or once the shield ends."""
    if _SHIELD.held:
        _SHIELD.pending = _SHIELD.pending or signum
        return
    raise Interrupted(signum)


@contextmanager
def shielded() -> Iterator[None]:
    """Run the block to its end whatever signal arrives; raise that signal's
    Interrupted after it (unless the block raised: its error goes on instead)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _SHIELD.held += 1
    try:
        yield
    except BaseException:
        _SHIELD.held -= 1
        if not _SHIELD.held:
            _SHIELD.pending = None  # the error raised stops the command anyway
        raise
    _SHIELD.held -= 1
    if not _SHIELD.held and _SHIELD.pending is not None:
        signum, _SHIELD.pending = _SHIELD.pending, None
        raise Interrupted(signum)
