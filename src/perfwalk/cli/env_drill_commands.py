"""Sub-command of the drill area: does a step follow the code or the environment?"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from perfwalk.cli import exits, options
from perfwalk.cli.analysis_commands import format_arg
from perfwalk.cli.spec import Command
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.composites.env_drill import EnvDrillResult


def _env_drill_args(p: argparse.ArgumentParser) -> None:
    from perfwalk.analysis.ministat import CONFIDENCE_LEVELS, DEFAULT_CONFIDENCE
    from perfwalk.composites.env_drill import REPETITIONS

    p.add_argument(
        "change",
        nargs="?",
        metavar="ID",
        help="the change to compare, as `perfwalk changes` names it (its strongest metric "
        "unless --metric names one)",
    )
    p.add_argument(
        "--between",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="compare two commits instead (with --metric)",
    )
    p.add_argument(
        "--metric",
        metavar="TEST.VALUE",
        help="the metric to compare, e.g. bench.time",
    )
    p.add_argument(
        "--environments",
        metavar="NAME,…",
        help="the [[environment]]s to measure in, oldest first (default: every one, in "
        "the file's order)",
    )
    p.add_argument(
        "--repetitions",
        type=options.COUNT,
        default=REPETITIONS,
        metavar="N",
        help=f"repetitions of each commit in each environment (default {REPETITIONS})",
    )
    p.add_argument(
        "--confidence",
        type=float,
        choices=CONFIDENCE_LEVELS,
        default=DEFAULT_CONFIDENCE,
        metavar="LEVEL",
        help="the confidence that no effect said to count is the noise's, all of them "
        "together (each is compared at a higher one: 98.75 for each of the 4 effects of "
        "two environments at 95), one of "
        + ", ".join(f"{c:g}" for c in CONFIDENCE_LEVELS)
        + f" (default {DEFAULT_CONFIDENCE:g})",
    )
    format_arg(p)


def cmd_env_drill(args: argparse.Namespace) -> int:
    from perfwalk.composites.env_drill import (
        chosen_environments,
        drill_environments,
        env_target,
    )
    from perfwalk.config.load import load_config
    from perfwalk.config.test_selection import named_metric
    from perfwalk.numbers import json_text
    from perfwalk.services.inspect import opened

    config = load_config(args.config)
    test = name = None
    if args.metric is not None:
        test, name = named_metric(config, args.metric, "drill-env --metric")
    names = None if args.environments is None else args.environments.split(",")
    environments = chosen_environments(config, names)
    text = args.format == "text"
    with opened(config) as store:
        target = env_target(
            store,
            config,
            chosen=args.change,
            between=None if args.between is None else tuple(args.between),
            test=test,
            name=name,
        )
        result = drill_environments(
            store,
            config,
            target,
            environments,
            repetitions=args.repetitions,
            confidence=args.confidence,
            say=(lambda line: print(show_controls(line))) if text else lambda _s: None,
        )
    if text:
        print("\n".join(env_drill_lines(result)))
    else:
        print(json_text(env_drill_json(result), indent=2))
    verdict = result.answer.verdict
    if verdict in ("environment", "both"):
        return exits.FOUND
    return exits.UNDECIDED if verdict == "undecided" else exits.OK


def env_drill_lines(result: EnvDrillResult) -> list[str]:
    """The answer in the terminal: each side's median, each effect, the verdict."""
    from perfwalk.quantities import format_change, format_value

    def interval(change: float, low: float, high: float) -> str:
        return f"{format_change(change)} [{format_change(low)}, {format_change(high)}]"

    medians: dict[tuple[str, str], str] = {}
    for (at, env), got in result.values.items():
        medians[(at, env)] = show_controls(format_value(sorted(got)[len(got) // 2], result.unit))
    lines = []
    for effect in result.answer.commits:
        env = effect.where
        lines.append(
            f"  in {show_controls(env)}: before {medians[('before', env)]}, after "
            f"{medians[('after', env)]} (medians): the commits "
            f"{interval(effect.change, effect.low, effect.high)}"
            + ("" if effect.counts else " (within min_change or not proven)")
        )
    for effect in result.answer.environments:
        lines.append(
            f"  {show_controls(effect.of)} → {show_controls(effect.to)} at {effect.where}: "
            f"{interval(effect.change, effect.low, effect.high)}"
            + ("" if effect.counts else " (within min_change or not proven)")
        )
    answer = result.answer
    lines.append(
        f"  each effect at {answer.each:g} % confidence: {answer.confidence:g} % for all "
        f"{len(answer.commits) + len(answer.environments)} together"
    )
    lines.append(f"  {result.answer.verdict.upper()}: {show_controls(result.said())}")
    lines.append(f"  series {result.series_id}")
    return lines


def env_drill_json(result: EnvDrillResult) -> dict[str, Any]:
    """The answer as ``--format json`` gives it."""
    from perfwalk.composites.env_drill import answer_json

    return {
        "series": result.series_id,
        "change": result.target.change.get("id"),
        "metric": result.target.metric,
        "before": result.target.before,
        "after": result.target.after,
        "environments": [e.name for e in result.environments],
        "said": result.said(),
        **answer_json(result.answer, result.values, result.unit),
    }


COMMANDS: dict[str, Command] = {
    "drill-env": Command(
        "measure a change's two commits in each [[environment]] (a toolchain, a library "
        "path, a setting) to tell whether its step follows the code or the environment; "
        "exit 1 when an environment moves it, 4 when it cannot tell, else 0",
        _env_drill_args,
        cmd_env_drill,
        when_interrupted="`perfwalk drill-env` again measures anew; the values so far are "
        "kept in its series",
    ),
}
