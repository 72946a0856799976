"""How perfwalk stops: SIGINT (Ctrl-C), SIGTERM and SIGHUP all end it the same way.

Two stages, so that a signal at any moment after the first line of perfwalk's code
ends the command with one line and exit status 128 + the signal's number (130 for
Ctrl-C, 143 for SIGTERM, 129 for SIGHUP), never with a traceback:

A signal perfwalk was started to ignore (``nohup`` ignores SIGHUP, a shell ignores
SIGINT for its background jobs) stays ignored.

1. **starting** (:func:`exit_at_once`): while the command line is imported and
   the arguments parsed, nothing needs undoing: the handler writes one line and
   ends the process at once. :func:`perfwalk.cli.entry.entry` (the ``perfwalk``
   program and ``python -m perfwalk``) installs it before importing anything else.
2. **running** (:class:`Raising`, entered by :func:`perfwalk.cli.main.main`): the
   handler raises :class:`~perfwalk.errors.Interrupted`, a KeyboardInterrupt, in
   the main thread, so that every layer stops as for Ctrl-C: the running test's
   reset phase runs, its process group is killed, the series is marked
   interrupted; ``main`` then exits 128 + the signal's number. Code that kills
   processes finishes first (:mod:`perfwalk.interrupts`). A command imports what
   it needs when it runs (start-up time), so a signal may also land in an import
   here: it ends the command the same way.

What remains is the interpreter's own start (a few milliseconds before the first
line of perfwalk runs): a signal there ends Python by its default action, without
a traceback.

This module imports nothing beyond what the interpreter has loaded already (and
``signal``; ``typing`` only for the type checker), so stage 1 starts as early as it
can.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys

TYPE_CHECKING = False  # typing itself is not imported this early (mypy knows the name)
if TYPE_CHECKING:
    from types import FrameType, TracebackType
    from typing import Any

#: The signals that stop perfwalk like Ctrl-C (SIGHUP where the platform has it).
STOPPING: tuple[signal.Signals, ...] = tuple(
    sig for sig in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if sig
)


def exit_status(signum: int) -> int:
    """The exit status of a command stopped by ``signum``: 128 + its number."""
    return 128 + signum


def describe(signum: int) -> str:
    """``interrupted`` for Ctrl-C, ``stopped by SIGTERM`` for the others."""
    if signum == signal.SIGINT:
        return "interrupted"
    try:
        return f"stopped by {signal.Signals(signum).name}"
    except ValueError:
        return f"stopped by signal {signum}"


def _exit_now(signum: int, _frame: FrameType | None) -> None:
    try:  # noqa: SIM105 (contextlib is not imported this early)
        os.write(2, f"\nperfwalk: {describe(signum)}\n".encode())
    except OSError:  # no terminal any more (SIGHUP): the status says it
        pass
    os._exit(exit_status(signum))


def exit_at_once() -> None:
    """Stage 1: a stopping signal ends the process at once (one line, 128 + signal).

    A signal this process was started to ignore stays ignored: ``nohup`` ignores
    SIGHUP, a shell ignores SIGINT for its background jobs."""
    for sig in STOPPING:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _exit_now)


def _raise(signum: int, _frame: FrameType | None) -> None:
    from perfwalk.interrupts import deliver

    deliver(signum)  # raises Interrupted, now or once the process killing it interrupts ends


class Raising:
    """Stage 2, for the life of a ``with`` block: a stopping signal raises
    :class:`~perfwalk.errors.Interrupted` in the main thread. Leaving the block puts
    the previous handlers back. Outside the main thread (where Python cannot set
    handlers) it does nothing."""

    def __init__(self) -> None:
        self._previous: dict[signal.Signals, Any] = {}
        self._unraisable: Any = None  # the unraisable hook before the block

    def __enter__(self) -> Raising:
        import threading

        # imported now, not by the handler: commands import what they need as they
        # run, and a handler importing while an import runs can meet a module half
        # made (``dataclasses`` while ``inspect`` is being imported: an ImportError)
        import perfwalk.interrupts  # noqa: F401

        if threading.current_thread() is threading.main_thread():
            self._unraisable, sys.unraisablehook = sys.unraisablehook, self._deliver_again
            for sig in STOPPING:
                previous = signal.getsignal(sig)
                if previous is not signal.SIG_IGN:  # ignored stays ignored (nohup)
                    self._previous[sig] = previous
                    signal.signal(sig, _raise)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for sig, handler in self._previous.items():
            # None: a handler set outside Python, which cannot be put back: the default
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        self._previous.clear()
        if self._unraisable is not None:
            sys.unraisablehook, self._unraisable = self._unraisable, None

    def _deliver_again(self, unraisable: Any) -> None:
        """``sys.unraisablehook`` within the block: an Interrupted raised where Python
        cannot raise it (a weak reference's callback in an import, a ``__del__``) would
        be printed with a traceback and lost. Its signal is sent again instead, from a
        thread of its own so that it lands once the callback has returned (sent at
        once, its handler would run in this hook, where it is lost the same way); one
        that lands in such a callback again is sent again. Anything else goes to the
        hook that was there before."""
        from perfwalk.errors import Interrupted

        found = unraisable.exc_value
        if isinstance(found, Interrupted):  # (threading's start would wait for it here)
            _thread.start_new_thread(_thread.interrupt_main, (signal.Signals(found.signum),))
            return
        self._unraisable(unraisable)
