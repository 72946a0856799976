"""``perfwalk changes``: the changes of every stored series, as text (within the
terminal's width), JSON or a Markdown report.

Exit status, for CI: 0 nothing to act on; 1 a confirmed regression without a known
cause, not triaged (``perfwalk triage``), or a build broken or a test newly failing,
not triaged; 2 a user error; 4 none of those, but an untriaged regression whose verdict
is suspect or undecided (:mod:`perfwalk.analysis.verdict`), or a metric the walk could
not judge (no change found, and too noisy to see one of its ``min_change``, or judged
only with the repetitions ``exclude_loaded`` leaves out).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from perfwalk.cli import exits, options
from perfwalk.cli.analysis_commands import FORMATS, tuning, tuning_args
from perfwalk.cli.change_lines import changes_status, undecided_lines
from perfwalk.cli.change_texts import break_text, episode_text, event_text
from perfwalk.cli.spec import Command
from perfwalk.cli.terminal import wants_colour, width_of, wrapped

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.config.model import Config
    from perfwalk.report.change_list import ListedChange, ListedEpisode


def _changes_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--series",
        type=options.SERIES_ID,
        action="append",
        metavar="ID",
        help="a series to analyse (repeatable; default: every series)",
    )
    tuning_args(p)
    p.add_argument(
        "--format",
        choices=(*FORMATS, "markdown"),
        default="text",
        help="default: text; markdown: a report to post as a pull-request comment (links "
        "with [project] commit_url and [report] base_url)",
    )


def cmd_changes(args: argparse.Namespace) -> int:
    from perfwalk.cli.change_lines import group_lines
    from perfwalk.config.load import load_config
    from perfwalk.numbers import json_text
    from perfwalk.orchestrate.findings.changes import find_all
    from perfwalk.orchestrate.findings.listed_changes import listed_findings
    from perfwalk.report.change_groups import grouped
    from perfwalk.services.change_json import change_key, changes_document, marks_of
    from perfwalk.services.inspect import opened

    config = load_config(args.config)
    with opened(config, read_only=True) as store:
        found = find_all(store, config, args.series, tuning=tuning(args))
        listing = listed_findings(store, found)
        names = {s.id: s.name for s in store.list_series()}
    events = found.changes
    marks = marks_of(listing[0])
    blind = undecided_lines(found.undecided, names)
    if args.format == "markdown":
        sys.stdout.write(_changes_markdown(listing, config, blind))
    elif args.format == "json":
        print(json_text(changes_document(found, listing), indent=2))
    else:
        width, colour = width_of(sys.stdout), wants_colour(sys.stdout)
        listed = [e for e in events if not e.refuted]
        texts = [event_text(e, marks.get(change_key(e)), width, colour) for e in listed]
        texts += [break_text(c, width, colour) for c in listing[0] if c.broke]
        if blind:  # "no changes found" only where a change that matters could be seen
            texts.append("\n".join(part for line in blind for part in wrapped(line, width)))
        texts = texts or ["no changes found"]
        if groups := group_lines(grouped(c for c in listing[0] if not c.refuted), width):
            texts.append("\n".join(groups))
        if found.episodes:  # shown, never a failure
            episodes = [episode_text(e) for e in found.episodes]
            texts.append("\n".join(part for e in episodes for part in wrapped(e, width)))
        if ruled_out := [e for e in events if e.refuted]:  # apart, never counted
            texts.append(
                "ruled out (measured again, the change was not there):\n\n"
                + "\n\n".join(
                    event_text(e, marks.get(change_key(e)), width, colour) for e in ruled_out
                )
            )
        print("\n\n".join(texts))
    broken = any(c.broke and c.triage is None for c in listing[0])
    return exits.FOUND if broken else changes_status(events, marks, blind=bool(found.undecided))


def _changes_markdown(
    listing: tuple[list[ListedChange], list[ListedEpisode]],
    config: Config,
    undecided: Sequence[str] = (),
) -> str:
    from perfwalk.report.markdown import Links, changes_markdown

    changes, episodes = listing
    links = Links(commit_url=config.project.commit_url, base_url=config.report.base_url)
    return changes_markdown(config.project.name, changes, episodes, links, undecided=undecided)


COMMANDS: dict[str, Command] = {
    "changes": Command(
        "regressions and improvements of every stored series, each with its verdict "
        "(confirmed, suspect, undecided, layout artefact; the refuted ones apart), its "
        "commits, its triage and its drill's answer, then the metrics a walk could not "
        "judge, the alert groups (the changes of one culprit or of overlapping commit "
        "ranges, across walks and hosts: one line each, its id for `perfwalk triage`) and "
        "the excursions and drifts (shown, never a failure); exit 1 for an untriaged "
        "confirmed regression without a known cause, else 4 for an untriaged suspect or "
        "undecided one or a metric too noisy to see a change of its min_change",
        _changes_args,
        cmd_changes,
    ),
}
