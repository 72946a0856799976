"""Retention's command: ``perfwalk prune`` says what a rule would drop (a dry run), and
drops it with ``--apply``; what ``perfwalk show`` says of the checkouts pruned."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from perfwalk.cli import exits, options
from perfwalk.cli.spec import Command
from perfwalk.quantities import format_bytes, many
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:
    from perfwalk.model import Pruned
    from perfwalk.services.prune import PrunePlan, PruneReport
    from perfwalk.store.retention import CheckoutOutputs


def _prune_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--older-than",
        type=options.RETENTION_DAYS,
        metavar="DAYS",
        help="drop the outputs of the checkouts measured more than DAYS days ago "
        "(default: [retention] older_than)",
    )
    p.add_argument(
        "--max-size",
        type=options.SIZE,
        metavar="SIZE",
        help="drop the outputs of the checkouts measured longest ago until the logs and "
        "profiles take at most SIZE in the store: 500M, 2GiB, 1.5GB, 4096 (default: "
        "[retention] max_size)",
    )
    p.add_argument(
        "--series",
        type=options.SERIES_ID,
        action="append",
        default=[],
        metavar="ID",
        help="only this series (repeatable; default: every series)",
    )
    p.add_argument(
        "--apply",
        action="store_true",
        help="drop them, and give the space back (without it: a dry run that only says "
        "what it would drop)",
    )


def cmd_prune(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config
    from perfwalk.services.prune import Rule, prune

    config = load_config(args.config)
    rule = Rule.of(config, older_than=args.older_than, max_size=args.max_size, series=args.series)
    report = prune(config, rule, apply=args.apply, say=print)
    for line in prune_lines(report):
        print(line)
    return exits.OK


def prune_lines(report: PruneReport) -> list[str]:
    """What a prune did, or would do (a dry run), line by line."""
    plan = report.plan
    lines = [
        f"an earlier prune ({show_controls(p.rule)}, {p.started_at:%Y-%m-%d %H:%M} UTC) was "
        + (
            f"stopped after {many(p.dropped.checkouts, 'checkout')}: they stay pruned"
            if p.dropped.checkouts
            else "stopped before it dropped anything"
        )
        for p in report.stopped
    ]
    rule = show_controls(plan.rule.words)
    if not plan.dropped:
        lines.append(f"nothing to prune ({rule})")
    else:
        verb = "pruned" if report.applied else "would prune"
        lines.append(
            f"{verb} the outputs of {many(len(plan.dropped), 'checkout')} ({rule}): "
            + _what(plan.dropped)
        )
        measured = plan.measured
        if measured is not None:
            lines[-1] += f", measured {measured[0]:%Y-%m-%d} to {measured[1]:%Y-%m-%d}"
        for sid, checkouts in plan.by_series().items():
            name = show_controls(plan.names.get(sid, ""))
            lines.append(
                f"  series {sid} {name!r}: checkouts {indexes(c.idx for c in checkouts)}, "
                + _what(checkouts)
            )
    lines += _kept_lines(plan)
    size = f"logs and profiles in the store: {format_bytes(plan.total)}"
    if plan.dropped:
        size += f" before, {format_bytes(plan.after)} after"
    if plan.over:
        size += f", {format_bytes(plan.over)} beyond {format_bytes(plan.rule.max_size or 0)}: kept"
    lines.append(size)
    if not report.applied:
        if plan.dropped:
            lines.append("a dry run: nothing was dropped (perfwalk prune --apply drops them)")
        return lines
    found = report.reclaimed
    if found is not None:
        if found.after < found.before:
            lines.append(
                f"the store shrank from {format_bytes(found.before)} to "
                f"{format_bytes(found.after)} ({found.how})"
            )
        else:
            lines.append(
                f"the store keeps its size ({format_bytes(found.after)}): {found.how} made "
                "the space free for its next rows"
            )
    return lines


def _what(checkouts: Sequence[CheckoutOutputs]) -> str:
    """``27 logs and 2 profiles, 75.0 KiB`` (no profiles: not said)."""
    profiles = sum(c.profiles for c in checkouts)
    told = [many(sum(c.logs for c in checkouts), "log")]
    if profiles:
        told.append(many(profiles, "profile"))
    return f"{' and '.join(told)}, {format_bytes(sum(c.bytes for c in checkouts))}"


def _kept_lines(plan: PrunePlan) -> list[str]:
    """``kept: 12 logs that a change points at (checkouts 1:4, 1:5)``, per reason."""
    lines = []
    for kept in plan.kept:
        where = ", ".join(f"{c.series_id}:{c.idx}" for c in kept.checkouts[:6])
        if len(kept.checkouts) > 6:
            where += f" and {len(kept.checkouts) - 6} more"
        profiles = f" and {many(kept.profiles, 'profile')}" if kept.profiles else ""
        lines.append(
            f"kept: {many(kept.logs, 'log')}{profiles} {kept.reason} (checkout"
            f"{'' if len(kept.checkouts) == 1 else 's'} {where})"
        )
    return lines


def indexes(idxs: Iterable[int]) -> str:
    """Checkout indexes as runs: ``0-12, 14, 16-20``."""
    runs: list[list[int]] = []
    for idx in sorted(set(idxs)):
        if runs and idx == runs[-1][1] + 1:
            runs[-1][1] = idx
        else:
            runs.append([idx, idx])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def pruned_lines(pruned: Sequence[tuple[int, Pruned]]) -> list[str]:
    """What ``perfwalk show`` says of a series' checkouts pruned (index, prune):
    ``logs and profiles pruned on 2026-03-01 (retention: older than 30 days): checkouts
    0-12``."""
    by_prune: dict[Pruned, list[int]] = {}
    for idx, said in pruned:
        by_prune.setdefault(said, []).append(idx)
    return [
        f"{show_controls(said.said('logs and profiles'))}: checkouts {indexes(idxs)}"
        for said, idxs in by_prune.items()
    ]


COMMANDS: dict[str, Command] = {
    "prune": Command(
        "drop the logs and profiles of old checkouts ([retention], or --older-than, "
        "--max-size), keeping every value and summary; a dry run without --apply",
        _prune_args,
        cmd_prune,
        when_interrupted="what was pruned stays pruned, every checkout whole; "
        "`perfwalk prune --apply` again goes on",
    ),
}
