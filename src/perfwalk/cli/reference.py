"""The CLI reference (``docs/cli.md``), generated from the argument parser.

``pytest tests/cli --regen-golden`` rewrites the file; a test checks that the
committed file is what this module generates.
"""

from __future__ import annotations

import argparse

from perfwalk.cli import exits
from perfwalk.cli.parser import build_parser
from perfwalk.cli.tables import MAX_CELL
from perfwalk.cli.terminal import TEXT_MOST

_INTRO = f"""\
# Command-line reference

<!-- Generated from src/perfwalk/cli: run `pytest tests/cli --regen-golden` after
     changing a command. Do not edit by hand. -->

Every command takes `--help`. Commands that read a configuration take
`-c/--config FILE` (default `./perfwalk.toml`; see `configuration.md`), after the
command's name or before it (`perfwalk -c FILE list` is `perfwalk list -c FILE`).
A command's options may come between its arguments (`perfwalk regress import -c
FILE x.xml`). Tables (`list`, `show`, `hosts`, `jobs`…) wrap to the terminal's width
(`COLUMNS`); a cell but in the last column shows at most {MAX_CELL} characters, a longer
one (a pushed branch or host name, a path) is cut in its middle (`…`): `--format
json` (`export`, `conduct --list`…) has it whole. A commit's subject and author (in
`drill`, `changes`, `watch`, `run --dry-run`) and a profiled function's name are cut
with `…` to what the terminal's line leaves them, or to {TEXT_MOST} characters when
the output is not a terminal; `--format json` and the pages keep them whole.

## Exit status

| code | meaning |
|---|---|
"""


def _exit_rows() -> str:
    rows = [f"| {code} | {meaning} |" for code, meaning in exits.MEANINGS.items()]
    return "\n".join(rows) + "\n"


def _option(action: argparse.Action) -> str:
    names = ", ".join(f"`{n}`" for n in action.option_strings) or f"`{action.dest}`"
    if action.metavar or (action.nargs != 0 and action.option_strings):
        metavar = action.metavar or action.dest.upper()
        names += f" `{metavar}`"
    helptext = (action.help or "").replace("|", "\\|")
    if action.choices:
        helptext += " (one of " + ", ".join(map(str, action.choices)) + ")"
    expected = getattr(action.type, "expected", "")
    if expected:  # the bounds of a number (perfwalk.cli.options)
        helptext += f"; allowed: {expected}"
    return f"| {names} | {helptext} |"


def _fixed_width(prog: str) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(prog, width=88)


def reference() -> str:
    parser = build_parser(complete=True)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    parts = [_INTRO, _exit_rows()]
    for name, command in sub.choices.items():
        command.formatter_class = _fixed_width  # the same file whatever the terminal
        parts.append(f"\n## `perfwalk {name}`\n\n{command.description}\n\n")
        parts.append("```\n" + command.format_usage().replace("usage: ", "") + "```\n\n")
        rows = [_option(a) for a in command._actions if not isinstance(a, argparse._HelpAction)]
        parts.append("| option | meaning |\n|---|---|\n" + "\n".join(rows) + "\n")
    return "".join(parts)
