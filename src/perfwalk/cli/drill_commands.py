"""Sub-command of the drill area: narrow detected changes down to their commits."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from perfwalk.cli import exits, options
from perfwalk.cli.analysis_commands import format_arg, tuning, tuning_args
from perfwalk.cli.prove_commands import proved_after_drill
from perfwalk.cli.spec import Command
from perfwalk.cli.terminal import fitted, width_of
from perfwalk.quantities import format_confidence
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.config.model import Config
    from perfwalk.services.drill import DrillResult, DrillTarget
    from perfwalk.store.drills import DrillRow


def _drill_args(p: argparse.ArgumentParser) -> None:
    from perfwalk.drill import Budget

    default = Budget()
    p.add_argument(
        "change",
        nargs="?",
        metavar="ID",
        help="the change to drill, as `perfwalk changes` names it (SERIES:CHECKOUT, or "
        "SERIES:COMMIT: 4 hex digits or more of the commit after it); default: every change "
        "not drilled yet",
    )
    p.add_argument(
        "--between",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="drill between two commits instead (the last known before, the first known after)",
    )
    p.add_argument("--test", help="the test to drill (default: the change's strongest metric)")
    p.add_argument("--value", help="the value of that test to drill (e.g. receiver, real)")
    p.add_argument(
        "--metric",
        metavar="TEST.VALUE",
        help="the test and value to drill at once, as try --metric takes them, e.g. an "
        "instrument's count: bench.cachegrind.instructions (instead of --test and --value)",
    )
    p.add_argument(
        "--max-builds",
        type=options.COUNT,
        default=default.max_builds,
        metavar="N",
        help=f"commits a drill may build, failed builds included (default {default.max_builds})",
    )
    p.add_argument(
        "--max-repetitions",
        type=options.TOTAL,
        default=default.max_repetitions,
        metavar="N",
        help=f"repetitions a drill may run in all (default {default.max_repetitions})",
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="profile the culprit and its parent (one perf run each, with the test's "
        "[test.profile] settings such as frequency) when no profile of them is stored, and "
        "show their differential profile; a test whose [test.profile] has a tool is "
        "profiled without it. A change drilled before is not drilled again: its culprit "
        "and parent are compared again (their stored profiles, else one run each), or it "
        "says why not",
    )
    p.add_argument(
        "--again",
        action="store_true",
        help="drill a change again even when an earlier drill answered it",
    )
    tuning_args(p)
    format_arg(p)


def cmd_drill(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config
    from perfwalk.config.test_selection import named_metric
    from perfwalk.drill import Budget, Verdict
    from perfwalk.errors import UsageError
    from perfwalk.numbers import json_text
    from perfwalk.report.pages.profiles import least_samples
    from perfwalk.services.drill import (
        between_target,
        change_targets,
        finished_drill,
        profile_drilled,
        run_drill,
    )
    from perfwalk.services.inspect import opened

    config = load_config(args.config)
    if args.metric is not None:
        if args.test is not None or args.value is not None:
            raise UsageError(
                f"drill --metric {args.metric} names the test and the value already",
                hint="give either --metric TEST.VALUE or --test and --value",
            )
        args.test, args.value = named_metric(config, args.metric, "drill --metric")
    budget = Budget(max_builds=args.max_builds, max_repetitions=args.max_repetitions)
    text = args.format == "text"
    with opened(config) as store:
        if args.between:
            targets = [
                between_target(store, config, tuple(args.between), test=args.test, name=args.value)
            ]
        else:
            targets = change_targets(
                store,
                config,
                chosen=args.change,
                test=args.test,
                name=args.value,
                tuning=tuning(args),
            )
        drills = store.drills.all()
        earlier = {
            id(t): row
            for t in targets
            if not args.again and (row := finished_drill(drills, t)) is not None
        }
    if not targets:
        print("no changes to drill" if text else json_text({"drills": []}, indent=2))
        return exits.OK
    answers: list[dict[str, Any]] = []
    for n, target in enumerate(targets):
        if text and n:
            print()
        row = earlier.get(id(target))
        if row is not None:
            answer = _row_json(row)
            unit = str(target.change.get("unit") or (row.answer or {}).get("unit") or "")
            if text:
                print(f"{_title(target)}: drilled before, series {row.series_id}")
            if args.profile:
                try:  # its culprit's stored profiles (or profiled now) compared again
                    profiled = profile_drilled(config, row, say=print if text else lambda _s: None)
                except UsageError as error:  # no culprit: said with the answer
                    profiled = {"test": row.test, "missing": f"{error}; {error.hint}"}
                answer = {**answer, "profile": profiled}
        else:
            if text:
                print(f"{_title(target)}:")
            result = run_drill(
                config,
                target,
                budget,
                say=print if text else lambda _s: None,
                profile=args.profile,
            )
            answer = _result_json(result)
            unit = result.unit
            if answer["verdict"] == Verdict.NO_CHANGE.value and not target.broke:
                answer["next"] = _environment_next(config, target)
            if config.drill.prove and result.culprit is not None and not target.broke:
                answer["proof"] = proved_after_drill(config, result.series_id, text)
        answers.append(answer)
        if text:
            least = least_samples(config, target.test)
            print(_answer_text(answer, unit, width_of(sys.stdout), least))
    if not text:
        print(json_text({"drills": answers}, indent=2))
    # a change ruled out (NO-CHANGE) is an answer like a culprit, not a failure
    undecided = any(a["verdict"] == Verdict.UNDECIDED.value for a in answers)
    return exits.UNDECIDED if undecided else exits.OK


def _environment_next(config: Config, target: DrillTarget) -> str:
    """What to do when the commits do not make a step the walk saw: drill the
    environments it may follow (``perfwalk drill-env``)."""
    seen = target.change.get("id")
    which = str(seen) if seen else f"--between {target.before[:12]} {target.after[:12]}"
    command = f"perfwalk drill-env {which} --metric {target.metric}"
    named = len(config.environments)
    if named >= 2:
        return (
            f"no commit makes it: does it follow the environment? `{command}` measures both "
            f"commits in each of the {named} [[environment]]s"
        )
    return (
        "no commit makes it: does it follow the environment? Name the environments it may "
        "follow in the configuration ([[environment]]: a toolchain, a library path, a host, "
        f"an image; docs/drill.md), then `{command}`"
    )


def _title(target: DrillTarget) -> str:
    seen = f"change {target.change['id']}" if target.change.get("id") else "the range"
    return (
        f"{seen}: {show_controls(target.metric)} between {target.before[:12]}"
        f" and {target.after[:12]}"
    )


def _result_json(result: DrillResult) -> dict[str, Any]:
    from perfwalk.services.drill import answer_json

    culprit = result.culprit
    answer = answer_json(result.done, result.line)
    if result.profile is not None:
        answer["profile"] = dict(result.profile)
    return _answer(
        series=result.series_id,
        target=result.target,
        answer=answer,
        subject=None if culprit is None else culprit.subject,
        reused=result.reused,
    )


def _row_json(row: DrillRow) -> dict[str, Any]:
    from perfwalk.services.drill import drilled_target

    target = drilled_target(row)
    answer = row.answer or {}
    return _answer(
        series=row.series_id,
        target=target,
        answer=answer,
        subject=answer.get("subject"),
        reused=answer.get("reused"),
    )


def _answer(
    *,
    series: int,
    target: DrillTarget,
    answer: dict[str, Any],
    subject: str | None,
    reused: int | None = None,
) -> dict[str, Any]:
    return {
        "series": series,
        "parent": target.parent,
        "change": target.change.get("id"),
        "test": target.test,
        "value": target.name,
        "verdict": answer.get("verdict"),
        "commit": answer.get("culprit"),
        "subject": subject,
        "range": [answer.get("lo"), answer.get("hi")],
        "before": answer.get("before"),
        "after": answer.get("after"),
        "relative": answer.get("relative"),
        "confidence": answer.get("confidence"),
        "builds": answer.get("builds"),
        "repetitions": answer.get("repetitions"),
        "reused": reused,
        "reason": answer.get("reason"),
        "profile": answer.get("profile"),
    }


def _answer_text(
    answer: dict[str, Any], unit: str = "", width: int | None = None, least: int = 0
) -> str:
    from perfwalk.drill import Verdict
    from perfwalk.quantities import format_change, format_levels, many

    verdict = answer["verdict"]
    spent = f"{many(answer['builds'], 'build')}, {many(answer['repetitions'], 'repetition')}"
    if verdict == Verdict.CULPRIT.value:
        head = f"  CULPRIT {answer['commit'][:12]}"
        if answer.get("subject"):  # quoted, then cut to the line
            head += " " + fitted(repr(show_controls(answer["subject"])), len(head) + 1, width)
    elif verdict == Verdict.RANGE.value:
        lo, hi = answer["range"]
        head = f"  RANGE after {lo[:12]} up to {hi[:12]}"
    else:
        head = f"  {str(verdict).upper()}"
    lines = [head]
    if answer.get("before") is not None and answer.get("after") is not None:
        relative = answer.get("relative")
        size = f" ({format_change(relative)})" if relative is not None else ""
        confidence = answer.get("confidence")
        sure = f", confidence {format_confidence(confidence)}" if confidence is not None else ""
        levels = format_levels(answer["before"], answer["after"], unit, "->")
        lines.append(f"  level {show_controls(levels)}{size}{sure}")
    lines.append(f"  {show_controls(answer.get('reason') or '')}")
    lines.append(f"  spent {spent}; series {answer['series']}")
    if answer.get("next"):
        lines.append(f"  {show_controls(answer['next'])}")
    lines += _profile_text(answer.get("profile"), width, least)
    return "\n".join(lines)


def _profile_text(
    profile: dict[str, Any] | None, width: int | None = None, least: int = 0
) -> list[str]:
    """The differential profile's table: the functions whose share changed beyond the
    noise of the counts (a name cut (…) to the ``width`` of the terminal,
    :func:`fitted`), how many changed within it, and a warning when a side has fewer
    than ``least`` samples."""
    from perfwalk.analysis.profile_diff import (
        FunctionShare,
        few_samples,
        noise_text,
        shown_functions,
    )

    if not profile:
        return []
    if "missing" in profile:
        return [f"  no differential profile: {show_controls(profile['missing'])}"]
    before, after = profile["before"], profile["after"]
    samples = (int(before["samples"]), int(after["samples"]))
    lines = [
        f"  differential profile of {show_controls(profile['test'])}: "
        f"{samples[0]} samples at the parent, {samples[1]} at the culprit "
        f"({show_controls(after['event'])} on {show_controls(after['host'])})",
    ]
    warning = few_samples(samples, ("the parent", "the culprit"), least)
    if warning:
        lines.append(f"  warning: {warning}")
    stripped = profile.get("unresolved") or (0, 0)
    if any(stripped):
        lines.append(
            f"  left out: the frames without a symbol inside the stacks of {stripped[0]} "
            f"samples at the parent, {stripped[1]} at the culprit ([unknown], addresses)"
        )
    rows, hidden = shown_functions(map(FunctionShare.of, profile["functions"]), *samples)
    lines.append(f"  {noise_text(*samples, int(profile.get('hidden') or 0) + hidden)}")
    lines.append(
        f"  {'self before':>11} {'after':>7} {'Δ':>7}  {'total before':>12} {'after':>7} "
        f"{'Δ':>7}  function"
    )
    for row in rows:
        shares = (
            f"  {row.self_before:10.1f}% {row.self_after:6.1f}% {row.self_delta:+6.1f}%"
            f"  {row.total_before:11.1f}% {row.total_after:6.1f}% "
            f"{row.total_delta:+6.1f}%  "
        )
        lines.append(shares + fitted(row.name, len(shares), width))
    return lines


COMMANDS: dict[str, Command] = {
    "drill": Command(
        "narrow each detected change down to the commit that caused it; exit 0 when "
        "every drill answered (a culprit, a range, or no change between its ends), 4 when "
        "one stayed undecided",
        _drill_args,
        cmd_drill,
        when_interrupted="`perfwalk drill` again continues: it reuses every value stored so far",
    ),
}
