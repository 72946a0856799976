"""Sub-commands of the analysis area: compare two samples (ministat's way), find the
change points of a file of numbers, list the changes of every stored series.

Exit status of these commands, for CI: 0 nothing found; 1 ``compare``: a difference
proven at the confidence level, ``detect``: a change point, ``changes``: a confirmed
regression without a known cause, not triaged (``perfwalk triage``); 2 a user error; 4
``changes``: none of those, but an untriaged regression whose verdict is suspect or
undecided (:mod:`perfwalk.analysis.verdict`), or a metric the walk could not judge (no
change found, and too noisy to see one of its ``min_change``, or judged only with the
repetitions ``exclude_loaded`` leaves out).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfwalk.cli import exits, options
from perfwalk.cli.spec import Command
from perfwalk.cli.tables import table_text
from perfwalk.cli.terminal import (
    BETTER,
    STATE_STYLES,
    WORSE,
    fitted,
    paint,
    wants_colour,
    width_of,
    wrapped,
)
from perfwalk.quantities import (
    format_confidence,
    format_difference,
    format_levels,
    format_size,
    format_value,
    many,
)
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.analysis.changepoints import ChangePoint, Detection
    from perfwalk.analysis.floor import Sight
    from perfwalk.analysis.ranks import RankTest
    from perfwalk.analysis.thresholds import Thresholds
    from perfwalk.config.model import Config
    from perfwalk.orchestrate.findings.change_events import (
        ChangeEvent,
        MetricChange,
        MetricEpisode,
        Remeasure,
    )
    from perfwalk.report.change_list import (
        Culprit,
        DrillMark,
        ListedChange,
        ListedEpisode,
        TriageMark,
    )
    from perfwalk.services.change_json import Marks
    from perfwalk.services.compare import Comparison

FORMATS = ("text", "json")


def tuning_args(p: argparse.ArgumentParser, *, configured: bool = True) -> None:
    """The detector's thresholds; ``configured``: each metric's own by default."""
    from perfwalk.policy import DEFAULT_MIN_CHANGE, DEFAULT_MIN_SIZE, DEFAULT_THRESHOLD

    where = "the metric's (analysis in the configuration), else " if configured else ""
    p.add_argument(
        "--threshold",
        type=options.Z,
        metavar="Z",
        help=f"how many standard errors a step must reach (default {where}"
        f"{DEFAULT_THRESHOLD}; lower finds smaller steps and raises more false alarms: "
        "see docs/analysis.md)",
    )
    p.add_argument(
        "--min-size",
        type=options.COUNT,
        metavar="N",
        help=f"points a level must hold at least (default {where}{DEFAULT_MIN_SIZE}; "
        "a step that leaves fewer at an end is reported at the edge)",
    )
    p.add_argument(
        "--min-change",
        type=options.MIN_CHANGE,
        metavar="FRACTION",
        help=f"the smallest relative change reported, however certain (default {where}"
        f"{DEFAULT_MIN_CHANGE:g}, a hundredth; 0: every certain change)",
    )


def tuning(args: argparse.Namespace) -> Thresholds:
    """The thresholds given on the command line (None: not given; each option's type
    has checked its bounds)."""
    from perfwalk.analysis.thresholds import Thresholds

    return Thresholds(args.threshold, args.min_size, args.min_change)


def format_arg(p: argparse.ArgumentParser, choices: tuple[str, ...] = FORMATS) -> None:
    p.add_argument("--format", choices=choices, default="text", help="default: text")


# -- compare --------------------------------------------------------------------------


def _compare_args(p: argparse.ArgumentParser) -> None:
    from perfwalk.analysis.ministat import CONFIDENCE_LEVELS, DEFAULT_CONFIDENCE, DEFAULT_WIDTH

    p.add_argument(
        "samples",
        nargs="*",
        metavar="SAMPLE",
        help="1 to 7 samples, each compared with the first: a file of numbers (one per "
        "line, # comments), - for the standard input (none given: the standard input), "
        "SERIES:CHECKOUT of the store, e.g. 3:14 or 3:1a2b3c (no series: the newest), "
        "or conduct:ID, a conductor run's value per trial",
    )
    p.add_argument(
        "-q",
        "--ministat-only",
        dest="ministat_only",
        action="store_true",
        help="print exactly what ministat prints (no rank test) and exit 0, as ministat does",
    )
    p.add_argument(
        "-c",
        dest="confidence",
        type=float,
        default=DEFAULT_CONFIDENCE,
        metavar="LEVEL",
        help="confidence level of Student's t, one of "
        + ", ".join(f"{c:g}" for c in CONFIDENCE_LEVELS)
        + f" (default {DEFAULT_CONFIDENCE:g})",
    )
    p.add_argument(
        "-C",
        dest="column",
        type=options.COLUMN,
        default=1,
        metavar="N",
        help="column of files (from 1)",
    )
    p.add_argument(
        "-d",
        dest="delimiters",
        default=" \t",
        metavar="CHARS",
        help="column delimiters (default space, tab)",
    )
    p.add_argument("-A", dest="no_plot", action="store_true", help="no plot")
    p.add_argument(
        "-n", dest="stats_only", action="store_true", help="only the table: no plot, no test"
    )
    p.add_argument(
        "-s", dest="separate", action="store_true", help="the bars of each sample on their own line"
    )
    p.add_argument(
        "-w",
        dest="width",
        type=options.WIDTH,
        default=DEFAULT_WIDTH,
        metavar="WIDTH",
        help="plot width (default 74)",
    )
    p.add_argument(
        "--metric",
        metavar="TEST.NAME",
        help="for SERIES:CHECKOUT: the metric to compare; for conduct:ID: the value name",
    )
    p.add_argument(
        "--store",
        metavar="URL",
        help="for SERIES:CHECKOUT and conduct:ID: the result store (default: the "
        "configuration's; a conductor run's is perfwalk.db next to its master file)",
    )
    p.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="FILE",
        help="for SERIES:CHECKOUT: the configuration naming the store (default ./perfwalk.toml)",
    )
    format_arg(p)


def cmd_compare(args: argparse.Namespace) -> int:
    from perfwalk.analysis.ministat import SYMBOLS, report
    from perfwalk.numbers import json_text
    from perfwalk.services.compare import ReadOptions, compare

    found = compare(
        args.samples,
        confidence=args.confidence,
        read=ReadOptions(column=args.column, delimiters=args.delimiters),
        metric=args.metric,
        config_file=args.config,
        stdin=sys.stdin.read,
        store_url=args.store,
    )
    if args.format == "json":
        print(json_text(_comparison_json(found), indent=2))
        return exits.FOUND if found.proven else exits.OK
    text = report(
        found.samples,
        confidence=args.confidence,
        plot=not (args.no_plot or args.stats_only),
        compare=not args.stats_only,
        width=args.width,
        separate_bars=args.separate,
    )
    sys.stdout.write(show_controls(text))  # sample names: file names, value names
    if args.ministat_only:
        return exits.OK  # as ministat: the verdict is in the text
    if not args.stats_only:
        many = len(found.ranks) > 1
        for symbol, ranks in zip(SYMBOLS[2:], found.ranks, strict=False):
            print(_ranks_text(ranks, symbol, f"{symbol} against x: " if many else ""))
    return exits.FOUND if found.proven else exits.OK


def _ranks_text(ranks: RankTest, symbol: str = "+", which: str = "") -> str:
    how = "exact" if ranks.exact else "normal approximation"
    return (
        f"{which}Mann-Whitney U = {ranks.u:g}, z = {ranks.z:.3g}, p = {ranks.p:.3g} "
        f"({how}, two-sided)\n"
        f"{which}Cliff's delta = {ranks.delta:+.3f} ({ranks.magnitude}): "
        f"P({symbol} > x) - P({symbol} < x)"
    )


def _comparison_json(found: Comparison) -> dict[str, Any]:
    """Every sample, and each after the first against the first; with two samples,
    also ``a``, ``b`` and B against A at the top, as before there could be more."""
    from perfwalk.analysis.ministat import Difference, Sample
    from perfwalk.numbers import finite_or_none

    def vitals(s: Sample) -> dict[str, Any]:
        return {
            "name": s.name,
            "n": s.n,
            "min": s.min,
            "max": s.max,
            "median": s.median,
            "avg": s.avg,
            "stddev": finite_or_none(s.stddev),
        }

    def against(diff: Difference, ranks: RankTest) -> dict[str, Any]:
        return {
            "student_t": {
                "confidence": diff.confidence,
                "difference_proven": diff.proven,
                "difference": diff.difference,
                "half_width": finite_or_none(diff.half_width),
                "percent": finite_or_none(diff.percent),
                "percent_half_width": finite_or_none(diff.percent_half_width),
                "pooled_s": finite_or_none(diff.pooled_s),
            },
            "mann_whitney": {"u": ranks.u, "z": ranks.z, "p": ranks.p, "exact": ranks.exact},
            "cliffs_delta": {"delta": ranks.delta, "magnitude": ranks.magnitude},
        }

    pairs = list(zip(found.differences, found.ranks, strict=True))
    told: dict[str, Any] = {
        "samples": [vitals(s) for s in found.samples],
        "comparisons": [
            {"sample": number, **against(diff, ranks)}
            for number, (diff, ranks) in enumerate(pairs, start=2)
        ],
    }
    if len(found.samples) == 2:
        told |= {"a": vitals(found.samples[0]), "b": vitals(found.samples[1])}
        told |= against(*pairs[0])
    return told


# -- detect ---------------------------------------------------------------------------


def _detect_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, help="one number per line (# comments), or a CSV table")
    p.add_argument(
        "--column",
        metavar="COL",
        help="read this column of a CSV table: a number (1 is the first) or a header name",
    )
    p.add_argument("--delimiter", default=",", metavar="CHAR", help="CSV delimiter (default ,)")
    tuning_args(p, configured=False)
    format_arg(p)


def cmd_detect(args: argparse.Namespace) -> int:
    from perfwalk.numbers import json_text
    from perfwalk.services.analyse import detect_file

    detection = detect_file(
        args.file, column=args.column, delimiter=args.delimiter, tuning=tuning(args).tuning()
    )
    if args.format == "json":
        print(json_text(_detection_json(str(args.file), detection), indent=2))
    else:
        print(_detection_text(str(args.file), detection))
    return exits.FOUND if detection.changes or detection.edges else exits.OK


def _detection_text(name: str, detection: Detection) -> str:
    from perfwalk.analysis.changepoints import EDGE_NOTE

    changes = sorted((*detection.changes, *detection.edges), key=lambda c: c.index)
    count = len(changes)
    head = (
        f"{show_controls(name)}: {detection.points} points, noise {format_value(detection.noise)}"
        " per point, "
        f"{count} change{'' if count == 1 else 's'}"
    )
    if detection.edges:
        head += f" ({len(detection.edges)} at the edge)"
    for episodes, what in ((detection.excursions, "excursion"), (detection.drifts, "drift")):
        if episodes:
            head += f", {len(episodes)} {what}{'' if len(episodes) == 1 else 's'}"
    lines = [head]
    if count:
        rows = [["index", "before", "after", "change", "95% interval", "z", "confidence"]]
        for c in changes:
            rows.append(
                [
                    str(c.index),
                    format_value(c.before),
                    format_value(c.after),
                    format_size(c.relative)
                    if c.relative is not None
                    else format_difference(c.difference),
                    _interval(c),
                    f"{c.z:+.1f}",
                    format_confidence(c.confidence),
                ]
            )
        lines.append(_table(rows))
        lines += [f"change at {c.index}: {EDGE_NOTE}" for c in changes if c.edge]
    for e in (*detection.excursions, *detection.drifts):
        size = (
            format_size(e.relative)
            if e.relative is not None
            else format_difference(e.after - e.before)
        )
        what = "then back to the level" if e.kind == "excursion" else "a slow move, no step"
        lines.append(
            f"{e.kind} at {e.start}..{e.end - 1}: {size}"
            f" ({format_levels(e.before, e.after, '', '->')}, "
            f"z {e.z:+.1f}), {what}"
        )
    return "\n".join(lines)


def _detection_json(name: str, detection: Detection) -> dict[str, Any]:
    from perfwalk.numbers import finite_or_none

    changes = sorted((*detection.changes, *detection.edges), key=lambda c: c.index)
    return {
        "file": name,
        "points": detection.points,
        # a noise or a difference beyond the float range (values of ±1e308) is null
        "noise": finite_or_none(detection.noise),
        "autocorrelation": detection.autocorrelation,
        "changes": [
            {
                "index": c.index,
                "previous": c.previous,
                "before": c.before,
                "after": c.after,
                "difference": finite_or_none(c.difference),
                "relative": finite_or_none(c.relative),
                "relative_low": finite_or_none(c.low),
                "relative_high": finite_or_none(c.high),
                "z": c.z,
                "confidence": c.confidence,
                "points_before": c.points_before,
                "points_after": c.points_after,
                "edge": c.edge,
            }
            for c in changes
        ],
        "episodes": [
            {
                "kind": e.kind,
                "start": e.start,
                "end": e.end,
                "before": e.before,
                "after": e.after,
                "relative": e.relative,
                "z": e.z,
            }
            for e in (*detection.excursions, *detection.drifts)
        ],
    }


def _interval(c: ChangePoint) -> str:
    if c.low is None or c.high is None:
        return f"{format_difference(c.difference_low)} .. {format_difference(c.difference_high)}"
    return f"{format_size(c.low)} .. {format_size(c.high)}"


def _table(rows: list[list[str]]) -> str:
    rows = [[show_controls(cell) for cell in row] for row in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(
            cell.rjust(w) if i else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in rows
    )


# -- changes --------------------------------------------------------------------------


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
        texts = [_event_text(e, marks.get(change_key(e)), width, colour) for e in listed]
        texts += [_break_text(c, width, colour) for c in listing[0] if c.broke]
        if blind:  # "no changes found" only where a change that matters could be seen
            texts.append("\n".join(part for line in blind for part in wrapped(line, width)))
        texts = texts or ["no changes found"]
        if groups := group_lines(grouped(c for c in listing[0] if not c.refuted), width):
            texts.append("\n".join(groups))
        if found.episodes:  # shown, never a failure
            episodes = [_episode_text(e) for e in found.episodes]
            texts.append("\n".join(part for e in episodes for part in wrapped(e, width)))
        if ruled_out := [e for e in events if e.refuted]:  # apart, never counted
            texts.append(
                "ruled out (measured again, the change was not there):\n\n"
                + "\n\n".join(
                    _event_text(e, marks.get(change_key(e)), width, colour) for e in ruled_out
                )
            )
        print("\n\n".join(texts))
    broken = any(c.broke and c.triage is None for c in listing[0])
    return exits.FOUND if broken else changes_status(events, marks, blind=bool(found.undecided))


def changes_status(
    events: Sequence[ChangeEvent], marks: Mapping[Any, Marks], *, blind: bool = False
) -> int:
    """``perfwalk changes``' exit status: 1 for an untriaged confirmed regression without
    a known cause; else 4 when such a regression is suspect or undecided, or a metric
    the walk could not judge (``blind``); else 0 (a person's triage, a known cause or a
    refuting measure explains the others)."""
    from perfwalk.services.change_json import change_key

    untriaged = [
        e for e in events if (mark := marks.get(change_key(e))) is None or mark.triage is None
    ]
    if any(e.to_act_on for e in untriaged):
        return exits.FOUND
    if blind or any(e.to_decide for e in untriaged):
        return exits.UNDECIDED
    return exits.OK


def undecided_lines(undecided: Iterable[tuple[int, Sight]], names: Mapping[int, str]) -> list[str]:
    """Each metric the walk could not judge (:attr:`Findings.undecided`), with its series
    (``names``: by id) and the most likely step it saw below its bar; a metric judged
    only with the values it was told to leave out says so on its changes instead."""
    lines = []
    for series, sight in undecided:
        if not sight.undecided:
            continue
        name = show_controls(names.get(series, ""))
        lines.append(f"series {series} {name!r}: {show_controls(sight.undecided)}")
        step = sight.floor.candidate
        if step is not None:
            lines.append(
                f"  most likely step: between checkout {step.previous} and {step.index}, "
                f"{format_size(step.relative)} ({step.share:.0%} of a change it could see there)"
            )
    return lines


def _changes_markdown(
    listing: tuple[list[ListedChange], list[ListedEpisode]],
    config: Config,
    undecided: Sequence[str] = (),
) -> str:
    from perfwalk.report.markdown import Links, changes_markdown

    changes, episodes = listing
    links = Links(commit_url=config.project.commit_url, base_url=config.report.base_url)
    return changes_markdown(config.project.name, changes, episodes, links, undecided=undecided)


#: the columns of a change's table in `perfwalk changes`
CHANGE_COLUMNS = (
    *("metric", "before", "after", "change", "95% interval", "confidence"),
    *("verdict", "checkouts"),
)
#: the columns of a change's table that `perfwalk changes` leaves out, in this order,
#: while it is wider than the terminal: checkouts, 95% interval, confidence (its
#: verdict's line says it), before and after; then it wraps (docs/cli.md)
CHANGE_DROPS = ((7,), (4,), (5,), (1, 2))


def _event_text(
    event: ChangeEvent, marks: Marks | None, width: int | None = None, colour: bool = False
) -> str:
    """A change as `perfwalk changes` shows it, within ``width`` columns: its lines
    wrapped, its table without the columns of :data:`CHANGE_DROPS` it has no room
    for, its commits' subjects and authors, and its culprit's, cut (:func:`fitted`);
    with ``colour``, its kind worse or better and its verdict's state in their
    colours."""
    from perfwalk.analysis.changepoints import EDGE_NOTE

    b, a = event.before, event.after
    verdict = event.verdict
    head = (
        f"{event.kind.upper()} {event.id} ({verdict.state.value}) in series {event.series_id} "
        f"{show_controls(event.series_name)!r}{variant_text(event.variant, event.variant_of)}"
        f": between checkout {b.idx} "
        f"({b.sha[:10]}, {b.date:%Y-%m-%d %H:%M}) and "
        f"{a.idx} ({a.sha[:10]}, {a.date:%Y-%m-%d %H:%M}), {len(event.commits)} "
        f"commit{'' if len(event.commits) == 1 else 's'}"
    )
    lines = [head, f"  triage: {_triage_text(None if marks is None else marks.triage)}"]
    if marks is not None and marks.drill is not None:
        lines.append(f"  {_drill_text(marks.drill, marks.culprit, width)}")
    lines.append(f"  {verdict.state.value}: {show_controls(verdict.told())}")
    for m in event.metrics:  # a metric that another chain decided
        if m.verdict.chain != verdict.chain:
            told = f"{m.verdict.state.value}: {m.verdict.told()}"
            lines.append(f"  {show_controls(m.test)}.{show_controls(m.name)} {show_controls(told)}")
    rows = [list(CHANGE_COLUMNS), *(_metric_row(m) for m in event.metrics)]
    after = [f"  {m.test}.{m.name}: {EDGE_NOTE}" for m in event.metrics if m.edge]
    for quirk in event.known_causes:
        after.append(f"  known cause: quirk {quirk.letter}: {show_controls(quirk.comment)}")
    if any(m.remeasured is not None for m in event.metrics):
        after.append(f"  {_remeasure_word(event.confirmed)}: {_remeasure_how(event)}")
        after += [_remeasure_text(m, m.remeasured) for m in event.metrics if m.remeasured]
    said = [part for line in lines for part in wrapped(line, width)]
    said[0] = _painted_head(said[0], event, colour)
    said += table_text(
        rows, width=width, colour=colour, style=_metric_style, drop=CHANGE_DROPS, indent="  "
    )
    said += [part for line in after for part in wrapped(line, width, indent="      ")]
    for commit in event.commits:
        start = f"  {commit.id[:10]} {commit.date:%Y-%m-%d} "
        said.append(start + fitted(f"{commit.author}: {commit.subject}", len(start), width))
    return "\n".join(said)


def _painted_head(line: str, event: ChangeEvent, colour: bool) -> str:
    """The first line of a change with its kind (``REGRESSION 5:7``) worse or better,
    and its state (``(confirmed)``) in their colours."""
    kind = f"{event.kind.upper()} {event.id}"
    state = event.verdict.state.value
    if not colour or not line.startswith(f"{kind} ({state})"):
        return line
    rest = line[len(kind) + len(state) + 3 :]
    return (
        f"{paint(kind, WORSE if event.regression else BETTER)} "
        f"({paint(state, STATE_STYLES.get(state))}){rest}"
    )


def _metric_style(_row: int, col: int, cell: str) -> str | None:
    """The colour of a cell of a change's table (:data:`perfwalk.cli.tables.Styler`):
    its change worse or better, its verdict by state."""
    if col == 3:
        return WORSE if cell.endswith(" worse") else BETTER
    if col == 6:
        return STATE_STYLES.get(cell)
    return None


def variant_text(variant: str | None, walk: int | None) -> str:
    """ " (variant fast of series 4)" for a walk's variant's series; "" otherwise."""
    if variant is None:
        return ""
    of = f" of series {walk}" if walk is not None else ""
    return f" (variant {show_controls(variant)}{of})"


def _break_text(change: ListedChange, width: int | None, colour: bool) -> str:
    """A build broken or a test newly failing as `perfwalk changes` shows it: its id,
    series and checkouts, its statuses, its triage and its drill's answer."""
    head = (
        f"{change.word.upper()} {change.id} in series {change.series_id} "
        f"{show_controls(change.series_name)!r}: {show_controls(change.metric)} "
        f"{change.levels_text()} between checkout {change.before_idx} "
        f"({change.before_sha[:10]}) and {change.after_idx} ({change.after_sha[:10]}, "
        f"{change.date:%Y-%m-%d %H:%M}), {many(change.commits, 'commit')}"
    )
    lines = [head, f"  triage: {_triage_text(change.triage)}"]
    if change.drill is not None:
        lines.append(f"  {_drill_text(change.drill, change.culprit, width)}")
    if change.culprit is not None and change.culprit.author:
        lines.append(f"  by {show_controls(change.culprit.author)}")
    said = [part for line in lines for part in wrapped(line, width)]
    said[0] = paint(said[0], "bold red", colour)
    return "\n".join(said)


def _triage_text(mark: TriageMark | None) -> str:
    """ "untriaged", or "expected by ada@lab on 2024-03-04 09:30 UTC: why (bug: URL)"."""
    if mark is None:
        return "untriaged"
    bug = f" (bug: {show_controls(mark.bug)})" if mark.bug else ""
    return (
        f"{mark.state} by {show_controls(mark.who)} on {mark.at:%Y-%m-%d %H:%M} UTC: "
        f"{show_controls(mark.reason)}{bug}"
    )


def _drill_text(drill: DrillMark, culprit: Culprit | None, width: int | None) -> str:
    """What the newest drill across the change answered: its culprit (its subject cut
    to a line of ``width`` columns, two of them an indent), the range it narrowed the
    change to, or why it named no commit."""
    head = f"drill {drill.drill}:"
    if drill.verdict == "culprit":
        sha = drill.hi if culprit is None else culprit.sha
        start = f"{head} culprit {sha[:10]}"
        if culprit is None or not culprit.subject:
            return start
        return f"{start} " + fitted(repr(show_controls(culprit.subject)), len(start) + 3, width)
    if drill.verdict == "range":
        return f"{head} narrowed to after {drill.lo[:10]} up to {drill.hi[:10]}"
    word = "not confirmed" if drill.verdict == "no-change" else drill.verdict
    why = f": {show_controls(drill.reason)}" if drill.reason else ""
    return f"{head} {word}{why}"


def _remeasure_word(confirmed: bool | None) -> str:
    """What a change's re-measure says of it (None: it is still undecided)."""
    if confirmed is None:
        return "re-measure undecided yet"
    return "confirmed by a re-measure" if confirmed else "refuted by a re-measure"


def _remeasure_how(event: ChangeEvent) -> str:
    """How a change was measured again: its rounds (a one-pair re-measure of an older
    store: once more) and what the sequential test made of them."""
    again = next(m.remeasured for m in event.metrics if m.remeasured is not None)
    if not again.outcome:
        return "its two checkouts measured once more, side by side, at the end of the walk"
    sides = [sum(1 for r in again.rounds if r.get("side") == s) for s in ("before", "after")]
    loaded = sum(1 for r in again.rounds if r.get("loaded"))
    state = again.outcome if again.final else f"{again.outcome}, to be measured on"
    own = (event.before.idx, event.after.idx)
    measured = tuple(
        next((r.get("checkout") for r in again.rounds if r.get("side") == s), at)
        for s, at in zip(("before", "after"), own, strict=True)
    )
    which = (
        "its two checkouts"
        if measured == own
        else f"checkouts {measured[0]} and {measured[1]} (around its {own[0]} and {own[1]})"
    )
    return (
        f"{which} measured again side by side, {sides[0]} + {sides[1]} "
        f"repetitions interleaved ({loaded} on a loaded machine): {state}"
    )


def _remeasure_text(m: MetricChange, again: Remeasure) -> str:
    """``    latency.value: 110.1 ms -> 110.2 ms (+0.1 %), did not hold (the change:
    +10.0 %)``, then the sequential test's reason and p-value when it ran."""
    if again.before is None or again.after is None:
        seen = "no value (the test failed)"
    else:
        from perfwalk.analysis.confirmation import moved

        went = moved(again.before, again.after)
        seen = f"{format_levels(again.before, again.after, m.unit, '->')} ({format_size(went)})"
    verdict = "held" if again.held else "did not hold"
    if again.outcome == "undecided":
        verdict = f"undecided yet (nearer to: {verdict})"
    why = f"; {show_controls(again.reason)}" if again.reason else ""
    if again.p_value is not None:
        why += f" (p = {again.p_value:.2g})"
    return (
        f"    {show_controls(m.test)}.{show_controls(m.name)}: {seen}, {verdict} "
        f"(the change: {format_size(m.size)}){why}"
    )


def _episode_text(e: MetricEpisode) -> str:
    first, last = e.first, e.last
    what = (
        "away from its level and back: an excursion, not a change"
        if e.kind == "excursion"
        else "a slow drift, no step"
    )
    return (
        f"{e.kind.upper()} in series {e.series_id} {show_controls(e.series_name)!r}"
        f"{variant_text(e.variant, None)}: "
        f"{show_controls(e.test)}.{show_controls(e.name)} [{show_controls(e.unit)}] "
        f"{format_levels(e.before, e.after, e.unit, '->')} ({format_size(e.size)} "
        f"{'worse' if e.worse else 'better'}, z {e.z:+.1f}) over checkouts {first.idx} "
        f"({first.sha[:10]}, {first.date:%Y-%m-%d %H:%M}) to {last.idx} ({last.sha[:10]}, "
        f"{last.date:%Y-%m-%d %H:%M}), {what}"
    )


def _metric_row(m: MetricChange) -> list[str]:
    mark = "worse" if m.regression else "better"
    headline = m.verdict.headline
    return [
        f"{m.test}.{m.name} [{m.unit}]",
        format_value(m.before, m.unit),
        format_value(m.after, m.unit),
        f"{headline.text()} {mark}",
        headline.interval() or "-",
        headline.confidence_text(),
        m.verdict.state.value,
        f"{m.checkouts_before} | {m.checkouts_after}",
    ]


COMMANDS: dict[str, Command] = {
    "compare": Command(
        "compare two samples like ministat (Student's t), plus Mann-Whitney U and Cliff's "
        "delta; exit 1 when a difference is proven",
        _compare_args,
        cmd_compare,
        needs_config=False,
    ),
    "detect": Command(
        "the change points of a file of numbers (0-based index of each new level); "
        "exit 1 when there is one",
        _detect_args,
        cmd_detect,
        needs_config=False,
    ),
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
