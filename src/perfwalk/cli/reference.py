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


def _intro() -> str:
    return f"""\
# Command-line reference

<!-- Generated from src/perfwalk/cli: run `pytest tests/cli --regen-golden` after
     changing a command. Do not edit by hand. -->

Every command takes `--help`. Commands that read a configuration take
`-c/--config FILE` (default `./perfwalk.toml`; see `configuration.md`), after the
command's name or before it (`perfwalk -c FILE list` is `perfwalk list -c FILE`).
A command's options may come between its arguments (`perfwalk regress import -c
FILE x.xml`).

Width: what `changes`, `show`, `status`, `list` and the other tables print fits
`COLUMNS` when it is set, else the terminal's width (80 when the terminal does not
say); printed into a file or a pipe without `COLUMNS`, lines are kept whole, as
scripts that read them expect. A line of words wraps, its next lines indented; a
table (`list`, `show`, `hosts`, `jobs`…) too wide is cut into blocks of columns, each
repeating the first ones, but a change's table in `changes`, which first leaves out
{_drops()}.
A cell but in the last column shows at most {MAX_CELL} characters, a longer one (a
pushed branch or host name, a path) is cut in its middle (`…`): `--format json`
(`export`, `conduct --list`…) has it whole. A commit's subject and author (in
`drill`, `changes`, `watch`, `run --dry-run`) and a profiled function's name are cut
with `…` to what the terminal's line leaves them, or to {TEXT_MOST} characters when
the output is not a terminal; `--format json` and the pages keep them whole.

Colour: on a terminal, a change worse in red and better in green (with the words
`worse`/`better`), a verdict's state (confirmed bold, suspect yellow, undecided
magenta, layout artefact and refuted dim), a status but PASS in red; none when
`NO_COLOR` is set (any value but empty) or `TERM=dumb`, nor into a file or a pipe.
`--color WHEN`, before or after the command's name, says otherwise: `always` (a pipe
too, whatever `NO_COLOR` says) or `never`.

A walk (`run`) and a `watch` cycle end with one line naming what they found: the
untriaged regressions counted, then the worst (the surest verdict first, then the
largest size) with its size, metric, commit (the drill's culprit, else the checkout
after the step) and author, e.g. `1 regression: +41.7 % (walk 5) latency.latency at
5a17eab3 by Ada Lovelace (confirmed)`; else the improvements alike, else
`undecided: …` when a metric was too noisy to judge, else `no change found`.

The ETA of a walk (its progress bar, and `perfwalk status` while it runs) is the
repetitions left at the time a repetition took plus the builds left at the time a
build took, each measured apart (the bar: in this run; `status`: the median of the
last repetitions' own times and of the series' builds), so the two agree and a walk
in rounds, whose builds all come first, is not estimated at a build's pace.

## Exit status

| code | meaning |
|---|---|
"""


def _drops() -> str:
    """The columns `changes` leaves out of a change's table, in their order."""
    from perfwalk.cli.change_texts import CHANGE_COLUMNS as header
    from perfwalk.cli.change_texts import CHANGE_DROPS

    return ", then ".join(" and ".join(header[col] for col in group) for group in CHANGE_DROPS)


def _exit_rows() -> str:
    rows = [f"| {code} | {meaning} |" for code, meaning in exits.MEANINGS.items()]
    return "\n".join(rows) + "\n"


def _option(action: argparse.Action) -> str:
    names = ", ".join(f"`{n}`" for n in action.option_strings) or f"`{action.dest}`"
    if action.metavar or (action.nargs != 0 and action.option_strings):
        metavar = action.metavar or action.dest.upper()
        names += f" `{metavar}`"
    helptext = (action.help or "").replace("|", "\\|")
    if action.choices and "one of " not in helptext:  # unless the help names them
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
    parts = [_intro(), _exit_rows()]
    for name, command in sub.choices.items():
        command.formatter_class = _fixed_width  # the same file whatever the terminal
        parts.append(f"\n## `perfwalk {name}`\n\n{command.description}\n\n")
        parts.append("```\n" + command.format_usage().replace("usage: ", "") + "```\n\n")
        rows = [_option(a) for a in command._actions if not isinstance(a, argparse._HelpAction)]
        parts.append("| option | meaning |\n|---|---|\n" + "\n".join(rows) + "\n")
    return "".join(parts)
