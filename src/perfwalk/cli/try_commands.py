"""Sub-command of the try area: is a change faster or slower than its base, before it
lands? Exit 1 when a metric got worse beyond its min_change (for CI), 0 otherwise."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from perfwalk.cli import exits, options
from perfwalk.cli.analysis_commands import format_arg
from perfwalk.cli.spec import Command
from perfwalk.limits import MAX_USER_FILE_BYTES
from perfwalk.numbers import json_text
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.services.try_change import TryResult


def _try_args(p: argparse.ArgumentParser) -> None:
    from perfwalk.config.settings import TRY_CONFIDENCES

    p.add_argument("base", metavar="BASE", help="the commit-ish to compare against (side A)")
    p.add_argument(
        "head",
        nargs="?",
        metavar="HEAD",
        help="the commit-ish to try (side B); default: BASE itself, with --patch or --variant",
    )
    p.add_argument(
        "--patch",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="a patch applied to side B before its build (repeatable, applied in order): "
        f"a regular file of at most {MAX_USER_FILE_BYTES >> 20} MiB (a FIFO, a device or a "
        "directory is refused)",
    )
    p.add_argument(
        "--variant", metavar="NAME", help="side B is measured as this [[variant]] of the config"
    )
    p.add_argument(
        "--max-repetitions",
        type=options.COUNT,
        metavar="N",
        help="the most repetitions per side before it stops undecided (default [try] "
        "max_repetitions)",
    )
    p.add_argument(
        "--confidence",
        type=float,
        choices=TRY_CONFIDENCES,
        metavar="LEVEL",
        help="the confidence of the verdicts, one of "
        + ", ".join(f"{c:g}" for c in TRY_CONFIDENCES)
        + " (default [try] confidence)",
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="once decided, profile each side in one extra run (perf, with the test's "
        "[test.profile] settings such as frequency, for a test whose [test.profile] has no "
        "tool); the try's page draws B's profile against A's",
    )
    p.add_argument(
        "--metric",
        metavar="TEST.VALUE",
        help="stop as soon as this metric is decided, and let it alone say whether B is "
        "worse (exit 1), e.g. an instrument's count: bench.rusage.user_cpu (default: every "
        "metric decides)",
    )
    format_arg(p, ("text", "json"))


def cmd_try(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config
    from perfwalk.services.try_change import TryOptions, run_try

    config = load_config(args.config)
    say = print if args.format == "text" else (lambda _s: None)
    result = run_try(
        config,
        TryOptions(
            base=args.base,
            head=args.head,
            patches=tuple(args.patch),
            variant=args.variant,
            max_repetitions=args.max_repetitions,
            confidence=args.confidence,
            profile=args.profile,
            metric=args.metric,
        ),
        say=say,
    )
    if args.format == "json":
        print(json_text(try_json(result), indent=2))
    else:
        print(try_text(result), end="")
    return exits.FOUND if result.worse else exits.OK


def try_text(result: TryResult) -> str:
    """ministat's table and the verdict per metric, Mann–Whitney U, the repetitions used
    and why the try stopped."""
    from perfwalk.analysis.ministat import Sample, report

    a_count, b_count = result.repetitions
    out = [f"A: {result.base[:12]}\nB: {show_controls(result.described)}\n\n"]
    for metric in result.metrics:
        decision = result.decisions[metric.key]
        out.append(f"{show_controls(metric.key)} ({show_controls(metric.unit)}):\n")
        if len(metric.a) >= 3 and len(metric.b) >= 3:
            samples = [Sample("A", tuple(metric.a)), Sample("B", tuple(metric.b))]
            out.append(report(samples, confidence=result.confidence, plot=False))
        ranks = metric.ranks()
        if ranks is not None:
            out.append(
                f"Mann-Whitney U = {ranks.u:g}, p = {ranks.p:.3g}"
                f" ({'exact' if ranks.exact else 'normal approximation'}),"
                f" Cliff's delta {ranks.delta:+.2f} ({ranks.magnitude})\n"
            )
        out.append(f"verdict: {decision.verdict.value}: {decision.reason}\n\n")
    out.append(
        f"try {result.series_id}: {a_count} + {b_count} repetitions; stopped: {result.stopped}\n"
    )
    worse = ", ".join(m.key for m in result.worse)
    out.append(f"worse: {show_controls(worse)}\n" if worse else "nothing got worse\n")
    return "".join(out)


def try_json(result: TryResult) -> dict[str, object]:
    from perfwalk.services.try_change import verdict_json

    return {
        "series_id": result.series_id,
        "base": result.base,
        "head": result.head,
        "b": result.described,
        "repetitions": {"a": result.repetitions[0], "b": result.repetitions[1]},
        "stopped": result.stopped,
        "confidence": result.confidence,
        "metrics": [verdict_json(m, result.decisions[m.key]) for m in result.metrics],
        "worse": [m.key for m in result.worse],
        "deciding": result.deciding,
    }


COMMANDS: dict[str, Command] = {
    "try": Command(
        "A/B-test a change before it lands: build BASE and HEAD (or BASE with --patch or "
        "--variant) once, measure them in turns A B B A … until a sequential test decides "
        "every metric; exit 1 when one got worse beyond its min_change",
        _try_args,
        cmd_try,
    ),
}
