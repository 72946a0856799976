"""Sub-command of the triage area: a person's word on a change, stored with its
history (``perfwalk triage CHANGE --state … --reason …``; ``--history`` prints it), or
on every change of an alert group at once (``perfwalk triage GROUP …``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from perfwalk.cli import exits
from perfwalk.cli.analysis_commands import tuning, tuning_args
from perfwalk.cli.change_texts import variant_text
from perfwalk.cli.spec import Command
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.services.triage import Change
    from perfwalk.store.triage import TriageRow


def _triage_args(p: argparse.ArgumentParser) -> None:
    from perfwalk.report.change_list import TRIAGE_STATES

    p.add_argument(
        "change",
        metavar="CHANGE",
        help="the change, as `perfwalk changes` names it: SERIES:CHECKOUT (e.g. 3:14) or "
        "SERIES:COMMIT (e.g. 34:4a84497e1f3c, 4 hex digits or more of the commit after the "
        "change), either form for any series; or an alert group, as `perfwalk changes` "
        "lists them: its culprit (e.g. 5a17eab3c0de) or its range BEFORE..AFTER, and the "
        "word goes to each of its changes (each can be triaged apart later)",
    )
    p.add_argument(
        "--state",
        choices=TRIAGE_STATES,
        help="acknowledged: a real change, being looked at; expected: meant to happen; "
        "invalid: not a change (noise, the machine); fixed: a later commit undid it. "
        "Any of them stops `perfwalk changes` from failing for the change",
    )
    p.add_argument(
        "--reason",
        metavar="TEXT",
        help="why (required with --state): what the next person reads",
    )
    p.add_argument(
        "--bug", default="", metavar="URL", help="the http(s) address of the bug that tracks it"
    )
    p.add_argument(
        "--history",
        action="store_true",
        help="print every word on the change, oldest first, instead of adding one",
    )
    tuning_args(p)


def cmd_triage(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config
    from perfwalk.errors import UsageError
    from perfwalk.services.inspect import opened
    from perfwalk.services.triage import (
        checked_word,
        names_group,
        triage_change,
        triage_group,
        triage_history,
    )

    if args.history and names_group(args.change):
        raise UsageError(
            f"--history reads the words on one change; {args.change!r} names a group",
            hint="give one of its changes as `perfwalk changes` names it (SERIES:CHECKOUT)",
        )
    if args.history:
        if args.state or args.reason or args.bug:
            raise UsageError(
                "--history prints the triage of a change: it takes no --state, --reason or --bug",
                hint=f"`perfwalk triage {args.change} --history`, or leave --history out "
                "to add a word",
            )
        config = load_config(args.config)
        with opened(config, read_only=True) as store:
            event, rows = triage_history(store, config, args.change, tuning=tuning(args))
        print(_history_text(event, rows))
        return exits.OK
    if args.state is None:
        raise UsageError(
            f"what is change {args.change!r}? --state is missing",
            hint="give --state acknowledged, expected, invalid or fixed with --reason TEXT, "
            "or --history to read what was said",
        )
    word = checked_word(args.state, args.reason or "", args.bug)  # before the store opens
    config = load_config(args.config)
    if names_group(args.change):
        with opened(config) as store:
            group, words = triage_group(store, config, args.change, word, tuning=tuning(args))
        print(
            f"group {group.id} ({show_controls(group.where())}, {group.spread()}): "
            f"{word.state} on its {len(words)} change{'' if len(words) == 1 else 's'}"
        )
        for done in words:
            was = "untriaged" if done.previous is None else done.previous.state
            print(f"  {_title(done.change)}: was {was}")
        print(_word_text(words[0].word) if words else "")
        return exits.OK
    with opened(config) as store:
        done = triage_change(store, config, args.change, word, tuning=tuning(args))
    was = "untriaged" if done.previous is None else done.previous.state
    print(f"{_title(done.change)}: {done.word.state} (was {was})")
    print(f"  commits: {_commit_range(done.change)}")
    print(_word_text(done.word))
    return exits.OK


def _title(event: Change) -> str:
    return (
        f"change {event.id} ({event.kind} in series {event.series_id} "
        f"{show_controls(event.series_name)!r}{variant_text(event.variant, event.variant_of)}"
        f", after {event.before.sha[:10]} up to "
        f"{event.after.sha[:10]})"
    )


def _commit_range(event: Change) -> str:
    """The commits of the change, whole: what the word is kept under."""
    return f"{event.before.sha}..{event.after.sha} (after the first, up to the second)"


def _word_text(row: TriageRow, indent: str = "  ") -> str:
    lines = [f"{indent}reason: {show_controls(row.reason)}"]
    if row.bug:
        lines.append(f"{indent}bug: {show_controls(row.bug)}")
    lines.append(f"{indent}by {show_controls(row.who)} at {row.at:%Y-%m-%d %H:%M:%S} UTC")
    return "\n".join(lines)


def _history_text(event: Change, rows: list[TriageRow]) -> str:
    if not rows:
        return f"{_title(event)}: untriaged, nobody said a word on it yet"
    count = f"{len(rows)} word{'' if len(rows) == 1 else 's'}"
    lines = [
        f"{_title(event)}: {rows[-1].state} ({count}, the last is the current one)",
        f"  commits: {_commit_range(event)}",
    ]
    for row in rows:
        lines.append(f"  {row.state}")
        lines.append(_word_text(row, indent="    "))
    return "\n".join(lines)


COMMANDS: dict[str, Command] = {
    "triage": Command(
        "say what a change is (acknowledged, expected, invalid, fixed) and why; kept with "
        "its history under the change's commit range; a triaged regression no longer "
        "fails `perfwalk changes`. Given an alert group, the word goes to each of its "
        'changes at once (docs/report.md, "Alert groups")',
        _triage_args,
        cmd_triage,
    ),
}
