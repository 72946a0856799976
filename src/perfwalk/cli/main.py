"""``perfwalk``: run one command (its handler prints; only :mod:`perfwalk.cli`
prints or exits).

Parses the command line, runs the command's handler, turns a user error into its
message and hint (exit 2), a bug into its traceback (exit 3) and a stopping signal
into one line (128 + the signal's number). The statuses are those of
:mod:`perfwalk.cli.exits` (also in docs/cli.md).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import traceback
from collections.abc import Callable, Sequence

from perfwalk.cli import exits
from perfwalk.cli.parser import build_parser, resolve_config
from perfwalk.cli.signals import Raising, describe, exit_at_once, exit_status
from perfwalk.cli.terminal import choose_colour
from perfwalk.errors import PerfwalkError
from perfwalk.untrusted import show_controls

Handler = Callable[[argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; SIGINT, SIGTERM and SIGHUP stop it like Ctrl-C
    (:mod:`perfwalk.cli.signals`) from its first line to its last."""
    with Raising():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    when_interrupted: str | None = None
    try:
        args = build_parser().parse_args(argv)
        resolve_config(args)
        choose_colour(args.color)
        handler: Handler = args.handler
        when_interrupted = args.when_interrupted
        return handler(args)
    except PerfwalkError as error:
        print(f"perfwalk: error: {show_controls(str(error))}", file=sys.stderr)
        for note in getattr(error, "__notes__", ()):
            print(f"note: {show_controls(note)}", file=sys.stderr)
        if error.hint:
            print(f"hint: {show_controls(error.hint)}", file=sys.stderr)
        return exits.USER
    except KeyboardInterrupt as stop:
        return _stopped(stop, when_interrupted)
    except BrokenPipeError:
        return exits.OK
    except Exception as error:
        wrapped = _interrupt_behind(error)
        if wrapped is not None:  # Python wrapped it: in a class body, a __set_name__ ...
            return _stopped(wrapped, when_interrupted)
        traceback.print_exc()
        print(
            "perfwalk: internal error; please report it with the traceback above", file=sys.stderr
        )
        return exits.BUG


def _interrupt_behind(error: BaseException) -> KeyboardInterrupt | None:
    """The signal behind ``error``: an interrupt that Python turned into another error
    (a signal landing in a class body being created raises RuntimeError from it)."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def _stopped(stop: KeyboardInterrupt, when_interrupted: str | None) -> int:
    """Say how the command stopped (one line) and return 128 + the signal's number."""
    exit_at_once()  # a second signal while saying goodbye ends the process at once
    signum = getattr(stop, "signum", signal.SIGINT)
    what = describe(signum) + (f"; {when_interrupted}" if when_interrupted else "")
    with contextlib.suppress(OSError):  # SIGHUP: the terminal may be gone
        print(f"\nperfwalk: {what}", file=sys.stderr)
        for note in getattr(stop, "__notes__", ()):
            print(f"note: {show_controls(note)}", file=sys.stderr)
    return exit_status(signum)


if __name__ == "__main__":
    sys.exit(main())
