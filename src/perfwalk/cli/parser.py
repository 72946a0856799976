"""The parser of the command line.

- ``--color=auto|always|never`` (:func:`colour_option`) may come before the command's
  name or after it, as ``-c``.
- ``-c/--config FILE`` may come before the command's name as well as after it:
  ``perfwalk -c FILE list`` is ``perfwalk list -c FILE``; given in both places with
  two different files it is refused (:func:`resolve_config`).
- A command's options may come between its positional arguments
  (``perfwalk regress import -c FILE x.xml``): each command is parsed with
  :meth:`argparse.ArgumentParser.parse_known_intermixed_args`.
- Only the command that runs gets its arguments (:class:`Commands`): building the
  others' would import what they need (their defaults, their choices) for nothing.
  ``perfwalk --help`` lists every command by its help line all the same.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfwalk import __version__
from perfwalk.cli import exits
from perfwalk.cli.spec import Command
from perfwalk.errors import UsageError

#: the configuration a command reads when no -c/--config names one
DEFAULT_CONFIG = Path("perfwalk.toml")


if TYPE_CHECKING:
    _Base = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    _Base = argparse._SubParsersAction  # generic only to the type checker


class Commands(_Base):
    """The sub-commands: a command's parser gets its arguments when it is chosen
    (or by :meth:`complete`), and parses them intermixed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._specs: dict[str, Command] = {}
        self._filled: set[str] = set()

    def add_command(self, name: str, spec: Command) -> None:
        self._specs[name] = spec
        command = self.add_parser(name, help=spec.help, description=spec.help)
        command.set_defaults(handler=spec.handler, when_interrupted=spec.when_interrupted)

    def fill(self, name: str) -> argparse.ArgumentParser:
        """The parser of the command ``name``, with its arguments."""
        command = self._name_parser_map[name]
        if name not in self._filled:
            self._filled.add(name)
            spec = self._specs[name]
            if spec.needs_config:
                command.add_argument(
                    "-c",
                    "--config",
                    type=Path,
                    default=None,
                    metavar="FILE",
                    help=f"configuration file (default: ./{DEFAULT_CONFIG}); may also come "
                    "before the command's name",
                )
            colour_option(command, default=argparse.SUPPRESS)
            spec.add_arguments(command)
        return command

    def complete(self) -> None:
        """Every command with its arguments (for docs/cli.md)."""
        for name in self._specs:
            self.fill(name)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        words = [] if values is None or isinstance(values, str) else list(values)
        if not words or words[0] not in self._specs:
            super().__call__(parser, namespace, values, option_string)  # argparse's error
            return
        name, rest = words[0], words[1:]
        setattr(namespace, self.dest, name)
        command = self.fill(name)
        if self._specs[name].takes_rest:
            parsed, extras = command.parse_known_args(rest)
            parsed.rest, extras = extras, []
        else:
            parsed, extras = command.parse_known_intermixed_args(rest)
        for key, value in vars(parsed).items():
            setattr(namespace, key, value)
        if extras:
            command.error(f"unrecognized arguments: {' '.join(extras)}")


def build_parser(*, complete: bool = False) -> argparse.ArgumentParser:
    """The parser of ``perfwalk``; ``complete``: every command with its arguments."""
    from perfwalk.cli.registry import all_commands

    parser = argparse.ArgumentParser(
        prog="perfwalk",
        description="Walk a git history, build and measure every checkout, keep every "
        "result, and find the commit that changed it.",
        epilog=exits.SUMMARY,
    )
    parser.add_argument("--version", action="version", version=f"perfwalk {__version__}")
    parser.add_argument(
        "-c",
        "--config",
        dest="config_before",
        type=Path,
        metavar="FILE",
        help="the configuration file of the command (as `-c FILE` after its name)",
    )
    colour_option(parser, default="auto")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, action=Commands)
    assert isinstance(sub, Commands)
    for name, spec in all_commands().items():
        sub.add_command(name, spec)
    if complete:
        sub.complete()
    return parser


def colour_option(parser: argparse.ArgumentParser, *, default: str) -> None:
    """``--color WHEN``: the one option of every command and of ``perfwalk`` itself."""
    from perfwalk.cli.terminal import COLOUR_CHOICES

    parser.add_argument(
        "--color",
        choices=COLOUR_CHOICES,
        default=default,
        metavar="WHEN",
        help="colour: auto (default: on a terminal, unless NO_COLOR is set or TERM=dumb), "
        "always (into a pipe too, whatever NO_COLOR says) or never; may also come before "
        "the command's name",
    )


def resolve_config(args: argparse.Namespace) -> None:
    """Set ``args.config`` from -c/--config given before or after the command's
    name; refuse two different files, and a file for a command that reads none."""
    before: Path | None = args.config_before
    if not hasattr(args, "config"):
        if before is not None:
            raise UsageError(
                f"-c/--config {before}: `perfwalk {args.command}` reads no configuration file",
                hint=f"leave -c/--config out (see `perfwalk {args.command} --help`)",
            )
        return
    after: Path | None = args.config
    if before is not None and after is not None and before != after:
        raise UsageError(
            f"-c/--config given twice with two files: {before} before the command's "
            f"name, {after} after it",
            hint="give -c/--config once",
        )
    args.config = after or before or DEFAULT_CONFIG
