"""``perfwalk parse``: what a parser makes of a saved output, before a walk runs it.

Exit status: 0 values found; 1 no value (the parser's reason is printed); 2 a bad
parser option, an unknown parser or test, a file that cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from perfwalk.cli import exits, options
from perfwalk.cli.spec import Command
from perfwalk.quantities import format_value
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.services.parse_output import Parsed


def _parse_args(p: argparse.ArgumentParser) -> None:
    from perfwalk.parsers import PARSER_NAMES

    p.add_argument(
        "file",
        metavar="FILE",
        help="a command's saved output (`cmd > out 2>&1`), read as written; - for the "
        "standard input",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--parser",
        metavar="NAME",
        choices=PARSER_NAMES,
        help="the parser (docs/parsers.md: its options and what it stores)",
    )
    which.add_argument(
        "--test",
        metavar="NAME",
        help="the parser, its options and the metrics' directions of this test of the "
        "configuration (-c), and its derived metrics (a sweep's name: its first member)",
    )
    p.add_argument(
        "--option",
        dest="options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a parser option (repeatable): unit=ms, scale=1000, units.compress=MB/s; the "
        "value is read as TOML when it is one (1000, true, 'text'), else as written",
    )
    p.add_argument(
        "--options-toml",
        metavar="TOML",
        help="parser options as the lines of a parser_options table: "
        "\"pattern = '(?P<value>[0-9.]+) s'\" (--option pairs are set over them)",
    )
    p.add_argument(
        "--timeout",
        type=options.PARSE_TIMEOUT,
        metavar="SECONDS",
        help="stop a parse that takes longer (default: the test's parse_timeout, else 30)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="default: text")


def cmd_parse(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from perfwalk.errors import UsageError
    from perfwalk.services.parse_output import (
        ParserChoice,
        options_from,
        parse_output,
        parser_of_test,
        read_output,
    )

    if args.test is not None:
        if args.options or args.options_toml is not None:
            raise UsageError(
                "--option and --options-toml go with --parser; --test takes the test's "
                "parser options from the configuration",
                hint="try options with --parser NAME --option …, then copy them to the test's "
                "parser_options",
            )
        from perfwalk.config.load import load_config

        choice = parser_of_test(load_config(args.config), args.test)
    else:
        choice = ParserChoice(args.parser, options_from(args.options, args.options_toml))
    choice = replace(choice, timeout=args.timeout)
    path = None if args.file == "-" else Path(args.file)
    text = read_output(path, sys.stdin.buffer.read() if path is None else None)
    parsed = parse_output(choice, text)
    if args.format == "json":
        from perfwalk.numbers import json_text

        print(json_text(_json(parsed), indent=2))
    else:
        print(_text(parsed))
    return exits.OK if parsed.values else exits.FOUND


def _text(parsed: Parsed) -> str:
    from perfwalk.cli.tables import format_table

    if not parsed.values:
        return show_controls(parsed.reason)
    rows = [["name", "value", "unit", "direction"]]
    rows += [
        [v.name, format_value(v.value, v.unit), v.unit, v.direction.value] for v in parsed.values
    ]
    table = format_table(rows)  # then what a derived metric could not be computed from
    return f"{table}\n{show_controls(parsed.reason)}" if parsed.reason else table


def _json(parsed: Parsed) -> dict[str, object]:
    return {
        "parser": parsed.parser,
        "values": [
            {
                "name": v.name,
                "value": v.value,
                "unit": v.unit,
                "direction": v.direction.value,
                "direction_from": "metrics" if v.configured else "unit",
            }
            for v in parsed.values
        ],
        "reason": parsed.reason or None,
    }


COMMANDS: dict[str, Command] = {
    "parse": Command(
        "what a parser makes of a saved output (FILE, - for stdin): its values with "
        "their units and directions, or why it found none (exit 1); try a parser's "
        "options before a walk. No store; a configuration only with --test",
        _parse_args,
        cmd_parse,
    ),
}
