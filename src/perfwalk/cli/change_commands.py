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
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from perfwalk.cli import exits, options
from perfwalk.cli.analysis_commands import FORMATS, tuning, tuning_args
from perfwalk.cli.change_lines import changes_status, group_lines, is_untriaged, undecided_lines
from perfwalk.cli.change_texts import break_text, episode_text, event_text
from perfwalk.cli.spec import Command
from perfwalk.cli.terminal import wants_colour, width_of, wrapped

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.config.model import Config
    from perfwalk.orchestrate.findings.change_events import ChangeEvent
    from perfwalk.orchestrate.findings.changes import Findings
    from perfwalk.report.change_list import ListedChange, ListedEpisode
    from perfwalk.services.change_json import Marks


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
    p.add_argument(
        "--all",
        action="store_true",
        help="text: every change, improvements, triaged and ruled-out ones, excursions and "
        "drifts too (default: the untriaged regressions and breaks, newest first, and a "
        "line counting the others; the exit status, JSON and Markdown always weigh all)",
    )
    options.add_tests_option(p, "list and weigh the changes of")


def cmd_changes(args: argparse.Namespace) -> int:
    from perfwalk.config.test_selection import load_selected
    from perfwalk.numbers import json_text
    from perfwalk.orchestrate.findings.changes import find_all
    from perfwalk.orchestrate.findings.kept_tests import of_tests
    from perfwalk.orchestrate.findings.listed_changes import listed_findings
    from perfwalk.services.change_json import changes_document, marks_of
    from perfwalk.services.inspect import opened

    config = load_selected(args.config, args.tests)
    with opened(config, read_only=True) as store:
        found = of_tests(find_all(store, config, args.series, tuning=tuning(args)), config.keeps)
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
        print(
            _changes_text(found, listing, marks, blind, every=args.all, width=width, colour=colour)
        )
    broken = any(c.broke and c.triage is None for c in listing[0])
    return exits.FOUND if broken else changes_status(events, marks, blind=bool(found.undecided))


def _changes_text(
    found: Findings,
    listing: tuple[list[ListedChange], list[ListedEpisode]],
    marks: Mapping[Any, Marks],
    blind: Sequence[str],
    *,
    every: bool,
    width: int | None,
    colour: bool,
) -> str:
    """The changes as text: by default (not ``every``) the untriaged regressions and
    breaks, newest first, and the metrics a walk could not judge (never hidden: they
    are why "no changes" would be false), then their alert groups and a line counting
    what it left out; with ``every``, all of it in the walks' order, the excursions and
    drifts and the changes ruled out apart."""
    from perfwalk.report.change_groups import grouped
    from perfwalk.services.change_json import change_key

    def untriaged(e: ChangeEvent) -> bool:
        return is_untriaged(e, marks)

    listed = [e for e in found.changes if not e.refuted]
    breaks = [c for c in listing[0] if c.broke]
    members = [c for c in listing[0] if not c.refuted]
    if not every:
        listed = sorted(
            (e for e in listed if e.regression and untriaged(e)),
            key=lambda e: e.after.date,
            reverse=True,
        )
        breaks = sorted((c for c in breaks if c.triage is None), key=lambda c: -c.date.timestamp())
        members = [c for c in members if c.needs_action]
    texts = [event_text(e, marks.get(change_key(e)), width, colour) for e in listed]
    texts += [break_text(c, width, colour) for c in breaks]
    if blind:  # "no changes found" only where a change that matters could be seen
        texts.append("\n".join(part for line in blind for part in wrapped(line, width)))
    left = [] if every else _left_out(found, listing[0], untriaged)
    if not texts:  # "no changes" only where there are none, ruled out apart
        there = any(not e.refuted for e in found.changes) or any(c.broke for c in listing[0])
        texts = ["no untriaged regression found" if there else "no changes found"]
    if groups := group_lines(grouped(members), width):
        texts.append("\n".join(groups))
    if every and found.episodes:  # shown, never a failure
        episodes = [episode_text(e) for e in found.episodes]
        texts.append("\n".join(part for e in episodes for part in wrapped(e, width)))
    ruled_out = [e for e in found.changes if e.refuted]
    if every and ruled_out:  # apart, never counted
        texts.append(
            "ruled out (measured again, the change was not there):\n\n"
            + "\n\n".join(event_text(e, marks.get(change_key(e)), width, colour) for e in ruled_out)
        )
    if left:
        said = f"not shown: {', '.join(left)} (perfwalk changes --all lists them)"
        texts.append("\n".join(wrapped(said, width)))
    return "\n\n".join(texts)


def _left_out(
    found: Findings, changes: Sequence[ListedChange], untriaged: Callable[[ChangeEvent], bool]
) -> list[str]:
    """What the default view of ``perfwalk changes`` leaves out, counted: "2
    improvements", "1 triaged", "3 excursions or drifts", "1 ruled out"."""
    events = [e for e in found.changes if not e.refuted]
    counts = (
        (sum(not e.regression and untriaged(e) for e in events), "improvement", "improvements"),
        (
            sum(not untriaged(e) for e in events)
            + sum(c.broke != "" and c.triage is not None for c in changes),
            "triaged",
            "triaged",
        ),
        (len(found.episodes), "excursion or drift", "excursions or drifts"),
        (sum(e.refuted for e in found.changes), "ruled out", "ruled out"),
    )
    return [f"{n} {one if n == 1 else more}" for n, one, more in counts if n]


def _changes_markdown(
    listing: tuple[list[ListedChange], list[ListedEpisode]],
    config: Config,
    undecided: Sequence[str] = (),
) -> str:
    from perfwalk.report.markdown import Links, changes_markdown
    from perfwalk.report.times import SiteTimes

    changes, episodes = listing
    links = Links(commit_url=config.project.commit_url, base_url=config.report.base_url)
    times = SiteTimes(config.report.time_zone)
    return changes_markdown(
        config.project.name, changes, episodes, links, undecided=undecided, times=times
    )


COMMANDS: dict[str, Command] = {
    "changes": Command(
        "the untriaged regressions and breaks of every stored series, newest first "
        "(--all: improvements, triaged and ruled-out changes too), each with its verdict "
        "(confirmed, suspect, undecided, layout artefact), its commits, its triage and its "
        "drill's answer, then the metrics a walk could not judge, the alert groups (the "
        "changes of one culprit or of overlapping commit ranges, across walks and hosts: "
        "one line each, its id for `perfwalk triage`) and a line counting what it left out "
        "(--all: the excursions and drifts, shown, never a failure, and the refuted "
        "changes apart); exit 1 for an untriaged "
        "confirmed regression without a known cause, else 4 for an untriaged suspect or "
        "undecided one or a metric too noisy to see a change of its min_change",
        _changes_args,
        cmd_changes,
    ),
}
