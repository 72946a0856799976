"""The daily loop's command: ``perfwalk watch`` (a cycle every [watch] interval) and
``perfwalk watch --once`` (one cycle, for cron or a systemd timer)."""

from __future__ import annotations

import argparse
import contextlib
import gc
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from perfwalk.cli import exits
from perfwalk.cli.spec import Command
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.composites.watch import WatchCycle


def _watch_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--once",
        action="store_true",
        help="one cycle, then exit: 1 when it found a new confirmed regression nobody "
        "triaged, 2 when a walk failed, 4 when its new regressions are only suspect or "
        "undecided, or a walk's metric is undecided (too noisy to see a change that "
        "matters), 0 otherwise (for cron or a systemd timer)",
    )


def cmd_watch(args: argparse.Namespace) -> int:
    with _loading():
        from perfwalk.composites.watch import watch_forever, watch_once
        from perfwalk.config.load import load_config

    config = load_config(args.config)

    def say(line: str) -> None:
        print(show_controls(line), flush=True)

    if args.once:
        return _told(watch_once(config, say=say))
    say(
        f"watching {len(config.walks)} walk{'' if len(config.walks) == 1 else 's'} of "
        f"{config.project.name}: a cycle every {config.watch.interval:g} s (Ctrl-C stops)"
    )
    watch_forever(config, _told, say=say)
    return exits.OK


@contextlib.contextmanager
def _loading() -> Iterator[None]:
    """The command's imports with the cyclic garbage collector paused, and what they
    loaded frozen after: the modules allocate much and free nothing, and live as long
    as the process (a cycle's collections need not scan them again and again)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was:
            gc.enable()


def _told(cycle: WatchCycle) -> int:
    """Print what a cycle did; its exit status."""
    from perfwalk.cli.terminal import fitted, width_of
    from perfwalk.report.feed import culprit_text, summary, title

    width = width_of(sys.stdout)
    for change in cycle.new:
        said = show_controls(summary(change, culprit=False))
        print(f"new {show_controls(title(change))} ({change.id}): {said}")
        if change.culprit is not None:  # the commit's subject and author cut to the line
            print("  " + fitted(culprit_text(change.culprit), 2, width))
        if change.drill is not None and change.drill.proof:
            print(f"  on today's tip: {show_controls(change.drill.proof)}")
    for drill in cycle.drills:
        if drill.error is not None:
            print(f"drill of {drill.target.metric} failed: {show_controls(str(drill.error))}")
    if cycle.undrilled:
        ids = ", ".join(str(t.change.get("id")) for t in cycle.undrilled)
        print(
            f"left for the next cycle (the drill budget, [watch] drill_builds and "
            f"drill_repetitions, is spent): {ids}"
        )
    if not cycle.new:
        print("no new changes")
    if cycle.undecided:
        from perfwalk.cli.change_lines import undecided_lines

        names = {sid: f"walk {walk}" for sid, walk, _sight in cycle.undecided}
        blind = [(sid, sight) for sid, _walk, sight in cycle.undecided]
        for line in undecided_lines(blind, names):
            print(line)
    if cycle.pruned is not None:
        from perfwalk.cli.log_commands import prune_lines

        for line in prune_lines(cycle.pruned):
            print(f"retention: {line}")
    print(f"site: {cycle.site.index.resolve()}")
    if cycle.notified is not None:
        from perfwalk.cli.report_commands import notify_lines

        for line in notify_lines(cycle.notified):
            print(f"notify: {show_controls(line)}")
    print(f"cycle took {cycle.seconds:.1f} s")
    for walk in cycle.failed:
        print(
            f"perfwalk: walk {walk.name} failed: {show_controls(str(walk.error))}", file=sys.stderr
        )
    alarms = cycle.alarms
    if alarms:
        first = alarms[0]
        print(
            f"{len(alarms)} new regression{'' if len(alarms) == 1 else 's'} nobody triaged; "
            f"once looked at: perfwalk triage {first.id} "
            '--state acknowledged --reason "…"'
        )
    unsettled = {state: cycle.unsettled(state) for state in ("suspect", "undecided")}
    for state, changes in unsettled.items():
        if changes:
            print(
                f"{len(changes)} new regression{'' if len(changes) == 1 else 's'} {state}, "
                f"neither confirmed nor refuted yet: `perfwalk changes` tells why; a "
                f"re-measure or a drill (perfwalk drill {changes[0].id}) decides"
            )
    from perfwalk.cli.change_lines import found_line, painted_found

    print(painted_found(found_line(cycle.new, len(cycle.undecided), width=width)))
    if cycle.failed:
        return exits.USER
    if alarms:
        return exits.FOUND
    undecided = unsettled["suspect"] or unsettled["undecided"] or cycle.undecided
    return exits.UNDECIDED if undecided else exits.OK


COMMANDS: dict[str, Command] = {
    "watch": Command(
        "the daily loop: continue every [[walk]], drill the new changes, publish, notify; "
        "a cycle every [watch] interval, or one with --once",
        _watch_args,
        cmd_watch,
        when_interrupted="the walk that was measuring is marked interrupted; the next "
        "cycle continues it",
    ),
}
