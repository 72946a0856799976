"""The commands of the stored outputs: ``perfwalk log`` (a checkout's outputs, as the
store keeps them) and ``perfwalk prune`` (retention: what a rule would drop, a dry run,
and with ``--apply`` dropped); what ``perfwalk show`` says of the checkouts pruned."""

from __future__ import annotations

import argparse
import sys
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


def _log_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "checkout",
        metavar="SERIES:CHECKOUT",
        help="the checkout, e.g. 3:14 (series 3, checkout 14) or 3:1a2b3c (a commit id's "
        "start); :14 in the newest series",
    )
    p.add_argument("--test", help="only this test's outputs")
    p.add_argument(
        "--repetition", type=options.INDEX, metavar="N", help="only repetition N (0, 1, …)"
    )
    p.add_argument("--build", action="store_true", help="the build log instead")


def cmd_log(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config
    from perfwalk.services.inspect import checkout_logs, opened

    config = load_config(args.config)
    with opened(config, read_only=True) as store:
        found = checkout_logs(
            store, args.checkout, test=args.test, repetition=args.repetition, build=args.build
        )
    s, c = found.series, found.checkout
    print(f"series {s.id} {show_controls(s.name)!r}, checkout {c.idx} ({c.sha[:12]})")
    if not found.logs:
        print("no output stored yet")
    for shown in found.logs:
        kept = "" if not shown.log.truncated else f", {len(shown.log.data)} bytes kept"
        print(f"== {shown.title} ({shown.log.total} bytes{kept})")
        if shown.command:
            print(f"$ {show_controls(shown.command)}")
        if shown.log.pruned is not None:
            print(show_controls(shown.log.pruned.said("log")))
            continue
        lines = shown.log.text().replace("\r\n", "\n").replace("\r", "\n")  # progress lines
        text = show_controls(lines)
        sys.stdout.write(text if not text or text.endswith("\n") else text + "\n")
    return exits.OK


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
        if found.pending:
            lines.append(
                f"the store shrinks once the processes reading it are done ({found.how}: "
                "its write-ahead log holds the file rewritten until then)"
            )
        elif found.after < found.before:
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
    "log": Command(
        "the stored outputs of a checkout (each test's per repetition, and its hosts' "
        "reboots, power cycles and consoles; or its build log)",
        _log_args,
        cmd_log,
    ),
    "prune": Command(
        "drop the logs and profiles of old checkouts ([retention], or --older-than, "
        "--max-size), keeping every value and summary; a dry run without --apply",
        _prune_args,
        cmd_prune,
        when_interrupted="what was pruned stays pruned, every checkout whole; "
        "`perfwalk prune --apply` again goes on",
    ),
}
