"""Sub-commands of the analysis area: compare two samples (ministat's way), find the
change points of a file of numbers; and the options the analysing commands share
(``--min-change`` and its kin, ``--format``). ``perfwalk changes`` is in
:mod:`perfwalk.cli.change_commands`.

Exit status of these commands, for CI: 0 nothing found; 1 ``compare``: a difference
proven at the confidence level, ``detect``: a change point; 2 a user error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfwalk.cli import exits, options
from perfwalk.cli.spec import Command
from perfwalk.quantities import (
    format_confidence,
    format_difference,
    format_levels,
    format_size,
    format_value,
)
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.analysis.changepoints import ChangePoint, Detection
    from perfwalk.analysis.ranks import RankTest
    from perfwalk.analysis.thresholds import Thresholds
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
}
