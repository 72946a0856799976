"""``perfwalk``: the only module that prints or exits.

Exit status (also in docs/cli.md):
  0    success
  1    the command worked and found something to look at: a walk finished with
       builds or tests that are not PASS, compare proved a difference, detect found a
       change, changes found a regression without a known cause, regress found a
       failing test (each command's --help and docs/analysis.md say more)
  2    a user error: bad configuration, argument, repository, store (message + hint)
  3    an internal error (a bug: please report it with the traceback)
  129  stopped by SIGHUP (the terminal closed), as for Ctrl-C
  130  interrupted (Ctrl-C, SIGINT): the running test is reset and its processes
       killed, the series marked interrupted; `perfwalk run --resume` continues a walk
  143  stopped by SIGTERM, as for Ctrl-C (128 + the signal's number, like 129 and 130)
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from perfwalk import __version__
from perfwalk.cli.signals import Raising, describe, exit_at_once, exit_status
from perfwalk.errors import PerfwalkError
from perfwalk.untrusted import show_controls

EXIT_OK = 0
EXIT_FOUND = 1
EXIT_USER = 2
EXIT_BUG = 3
EXIT_INTERRUPTED = 130

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    from perfwalk.cli.registry import all_commands

    parser = argparse.ArgumentParser(
        prog="perfwalk",
        description="Walk a git history, build and measure every checkout, keep every "
        "result, and find the commit that changed it.",
        epilog="exit status: 0 ok, 1 non-PASS results found, 2 user error, "
        "3 internal error, 130 interrupted (129 SIGHUP, 143 SIGTERM)",
    )
    parser.add_argument("--version", action="version", version=f"perfwalk {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, spec in all_commands().items():
        command = sub.add_parser(name, help=spec.help, description=spec.help)
        if spec.needs_config:
            command.add_argument(
                "-c",
                "--config",
                type=Path,
                default=Path("perfwalk.toml"),
                metavar="FILE",
                help="configuration file (default: ./perfwalk.toml)",
            )
        spec.add_arguments(command)
        command.set_defaults(handler=spec.handler, when_interrupted=spec.when_interrupted)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; SIGINT, SIGTERM and SIGHUP stop it like Ctrl-C
    (:mod:`perfwalk.cli.signals`) from its first line to its last."""
    with Raising():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    when_interrupted: str | None = None
    try:
        args = build_parser().parse_args(argv)
        handler: Handler = args.handler
        when_interrupted = args.when_interrupted
        return handler(args)
    except PerfwalkError as error:
        print(f"perfwalk: error: {show_controls(str(error))}", file=sys.stderr)
        for note in getattr(error, "__notes__", ()):
            print(f"note: {show_controls(note)}", file=sys.stderr)
        if error.hint:
            print(f"hint: {show_controls(error.hint)}", file=sys.stderr)
        return EXIT_USER
    except KeyboardInterrupt as stop:
        return _stopped(stop, when_interrupted)
    except BrokenPipeError:
        return EXIT_OK
    except Exception as error:
        wrapped = _interrupt_behind(error)
        if wrapped is not None:  # Python wrapped it: in a class body, a __set_name__ ...
            return _stopped(wrapped, when_interrupted)
        traceback.print_exc()
        print(
            "perfwalk: internal error; please report it with the traceback above", file=sys.stderr
        )
        return EXIT_BUG


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
