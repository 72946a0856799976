"""One handler per sub-command: parse → service → print. Exit statuses in cli.exits."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from perfwalk.cli import exits, options
from perfwalk.cli.adaptive_args import adaptive_budget, add_adaptive_args
from perfwalk.cli.spec import Command, no_arguments
from perfwalk.quantities import many
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.analysis.floor import Sight
    from perfwalk.composites.demo import Night
    from perfwalk.report.last_night import LastNight
    from perfwalk.report.times import SiteTimes
    from perfwalk.services.inspect import SeriesStatus
    from perfwalk.store.records import SeriesRow


def _init_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true", help="overwrite an existing file")


def cmd_init(args: argparse.Namespace) -> int:
    from perfwalk.config.example import example_config
    from perfwalk.errors import UsageError

    path: Path = args.config
    if path.exists() and not args.force:
        raise UsageError(f"{path} exists already", hint="pass --force to overwrite it")
    path.write_text(example_config(path.resolve().parent), encoding="utf-8")
    print(f"wrote {path}; try `perfwalk run` next")
    return exits.OK


def _run_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--from",
        dest="from_",
        metavar="WHEN",
        help="first checkout: a date (YYYY-MM-DD[THH:MM]) or a commit-ish",
    )
    p.add_argument(
        "--to",
        metavar="WHEN",
        help="last checkout (default [run] to: HEAD, the tip of [project] branch)",
    )
    p.add_argument("--step", help="Nsec|min|hour|day|week|month|year, commit or commit/N")
    p.add_argument("-n", "--repetitions", type=options.REPETITIONS, help="repetitions per checkout")
    p.add_argument("--between", help="keep | rebuild | a shell command run between repetitions")
    p.add_argument("--name", help="a name for the series")
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue the newest unfinished walk made with this configuration",
    )
    p.add_argument(
        "--walk",
        metavar="NAME",
        help="continue the named walk ([[walk]] name = NAME) with what landed since its last "
        "checkout (its from, to and step come from the configuration)",
    )
    p.add_argument(
        "--variants",
        metavar="NAME,…",
        type=options.names_list,
        default=(),
        help="measure every checkout also as each of these [[variant]]s (patches, build, "
        "runtime modifiers), their repetitions interleaved with the plain checkout's in a "
        "seeded shuffled order; each variant is a series of its own",
    )
    p.add_argument(
        "--extend",
        metavar="SERIES",
        type=options.SERIES_ID,
        help="measure more at the checkouts series SERIES has, as its walk measured them "
        "(its order; rounds with a new seed), numbered after the stored repetitions: with "
        "-n N every checkout (and its variants') up to N repetitions, with --variants those "
        "variants (-n each, else as many as the series has) beside as many new repetitions "
        "of the plain checkout; nothing stored is measured again; --extend SERIES again (or "
        "--resume) continues one interrupted",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="list the checkouts the walk would take (commit, date, subject, commits since "
        "the previous, quirks crossed) and how many builds and repetitions it would run; "
        "nothing is built or stored",
    )
    add_adaptive_args(p)
    options.add_tests_option(p, "walk")


def cmd_run(args: argparse.Namespace) -> int:
    from perfwalk.cli.change_lines import print_confirmed
    from perfwalk.cli.progress import ProgressBar, failed_builds_line
    from perfwalk.config.test_selection import load_selected
    from perfwalk.model import Status
    from perfwalk.orchestrate.walk.plan import RunOptions
    from perfwalk.services.run import plan_series, run_series

    config = load_selected(args.config, args.tests, same_hash=True)  # a walk of the file
    asked = RunOptions(
        from_=args.from_,
        to=args.to,
        step=args.step,
        repetitions=args.repetitions,
        between=args.between,
        resume=args.resume,
        name=args.name,
        walk=args.walk,
        variants=args.variants,
        extend=args.extend,
        budget=adaptive_budget(args),
    )
    if args.dry_run:
        from perfwalk.cli.dry_run import print_dry_run

        print_dry_run(plan_series(config, asked))
        return exits.OK
    bar = ProgressBar()
    try:
        result = run_series(config, asked, bar, say=print)
    finally:
        bar.close()
    named = result.named
    if named is not None and result.nothing_new and named.last is not None:
        last = named.last
        print(
            f"walk {named.name}: nothing new on {show_controls(named.branch)} since "
            f"{last.sha[:12]} ({last.date:%Y-%m-%d %H:%M}); series {result.series_id} "
            "is unchanged"
        )
        print_confirmed(result.confirmed)
        return exits.OK
    if named is not None and named.last is not None:
        print(
            f"walk {named.name}: series {result.series_id} continued with "
            f"{many(result.new_checkouts, 'new checkout')} × "
            f"{many(result.per_checkout(), 'repetition')}; "
            f"worst status {result.worst.name}"
        )
    elif result.extended is not None:
        print(
            f"series {result.series_id} extended at {many(result.checkouts, 'checkout')}: "
            f"{show_controls(result.extended.said())}; worst status {result.worst.name}"
        )
    else:
        verb = "resumed and finished" if result.resumed else "finished"
        walk = f"walk {named.name}: " if named is not None else ""
        print(
            f"{walk}series {result.series_id} {verb}: {many(result.checkouts, 'checkout')} × "
            f"{many(result.per_checkout(), 'repetition')}; worst status {result.worst.name}"
        )
    if result.parent is not None:
        print(f"a zoom into series {result.parent} (linked from its page)")
    from perfwalk.cli.change_lines import painted_found, walk_changes

    changes = walk_changes(config, result.series_id)
    for line in changes.lines:  # each change's verdict
        print(line)
    failed = failed_builds_line(bar.failed, result.series_id)
    if failed is not None:
        print(failed)
    print(f"see `perfwalk show {result.series_id}`")
    for line in [*changes.blind, *map(show_controls, result.parsers.lines(result.series_id))]:
        print(line)
    if result.loaded:
        print(
            f"warning: {result.loaded} of {result.watched} repetitions were measured on a "
            "loaded machine (load > cores, or other processes busy): see the marked "
            "repetitions on the checkout pages (`perfwalk report`) and docs/analysis.md; "
            "`[run] exclude_loaded = true` leaves them out"
        )
    steady = result.stability
    if steady.unstable or steady.outliers:
        more = (
            'more repetitions (`[run] repetitions = "auto"`)'
            if result.repetitions_max is None
            else "a higher `[run] repetitions_max`"
        )
        print(
            f"warning: {steady.unstable} of {steady.sets} repetition sets (checkout × metric) "
            f"were unstable and {steady.outliers} of {steady.values} values outliers: see the "
            f"unstable ones (marked !) in `perfwalk show {result.series_id}`, all of them on "
            f"the series page (`perfwalk report`); {more}, pinning (`cpus`) or a quieter "
            "machine steady them"
        )
    print_confirmed(result.confirmed)
    print(painted_found(changes.found))
    if result.worst is not Status.PASS:
        return exits.FOUND
    # a walk that judges its changes (confirm) exits as `perfwalk changes` of its series
    return changes.status if result.confirmed is not None else exits.OK


def _series_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "series", nargs="?", type=options.SERIES_ID, help="series id (default: the newest walk)"
    )


#: what `list` and `status` say of a store without a series
NO_SERIES = "no series yet; start one with `perfwalk run`"


def _print_night(night: LastNight, times: SiteTimes, colour: bool) -> None:
    """The last run in one paragraph after a blank line, wrapped to the terminal; red
    when the runs look stopped."""
    from datetime import UTC, datetime

    from perfwalk.cli.terminal import paint, width_of, wrapped

    now = datetime.now(UTC)
    stale = night.stale(now)
    print()
    for line in wrapped(show_controls(night.said(times, now)), width_of(sys.stdout)):
        print(paint(line, "red", colour and stale))


def _status_args(p: argparse.ArgumentParser) -> None:
    _series_arg(p)
    p.add_argument(
        "--follow",
        action="store_true",
        help="show what each host of the running walks (of the series only, when given) "
        "does now: the checkout, repetition and step, the command and its last output "
        "lines; again every --every seconds until Ctrl-C",
    )
    p.add_argument(
        "--every",
        type=options.INTERVAL,
        default=2.0,
        metavar="SECONDS",
        help="with --follow: seconds between two views (default 2)",
    )
    p.add_argument(
        "--count",
        type=options.COUNT,
        default=None,
        help="with --follow: stop after this many views (default: until Ctrl-C)",
    )


def cmd_status(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config
    from perfwalk.orchestrate.findings.changes import series_sights
    from perfwalk.services.inspect import opened, pick_series, series_status

    config = load_config(args.config)
    if args.follow:
        from perfwalk.cli.live_view import follow

        with opened(config, read_only=True) as store:
            series = () if args.series is None else (store.series(args.series).id,)
            follow(store, series, args.every, args.count)
        return exits.OK
    night = None
    with opened(config, read_only=True) as store:
        if args.series is None and not store.list_series():
            print(NO_SERIES)  # as `list` says it
            return exits.OK
        status = series_status(store, pick_series(store, args.series))
        sights = series_sights(store, config, status.series)
        if args.series is None:  # what the index's strip says, last
            from perfwalk.services.publish import night_of

            night = night_of(store, config)
    from perfwalk.cli.terminal import paint, wants_colour, width_of, wrapped

    s = status.series
    colour = wants_colour(sys.stdout)
    state = _state_line(status)
    lines = [f"series {s.id} {s.name!r}: {state}"]
    if s.kind == "variant":
        lines.append(
            f"  variant {show_controls(s.variant_name)} of walk series {s.parent_id}, measured"
            f" beside it at the same checkouts (`perfwalk status {s.parent_id}`)"
        )
    lines.append(
        f"  from {s.from_spec or 'the first commit'} to {s.to_spec} by {s.step}, "
        f"{many(s.repetitions, 'repetition')}, between {s.between}, on {s.host}"
    )
    lines.append(
        f"  started {s.started_at:%Y-%m-%d %H:%M:%S}"
        + (f", finished {s.finished_at:%Y-%m-%d %H:%M:%S}" if s.finished_at else "")
    )
    lines += _extended(s)
    planned = "" if status.planned is None else f" of {status.planned} planned"
    lines.append(
        f"  checkouts {status.checkouts}{planned} (built {status.built}, "
        f"build failed {status.build_failed})"
    )
    lines.append(f"  repetitions {_repetitions(status)}")
    if status.eta is not None and status.pace is not None:
        from perfwalk.cli.terminal import duration

        build = "" if status.build_pace is None else f", {duration(status.build_pace)} a build"
        lines.append(
            f"  ETA {duration(status.eta)} at the measured times "
            f"({duration(status.pace)} a repetition{build})"
        )
    width = width_of(sys.stdout)
    said = [part for line in lines for part in wrapped(line, width)]
    ends = [n for n, line in enumerate(said) if line.endswith(state)]
    if colour and state in STATE_COLOURS and ends:  # the first line ends with its state
        at = ends[0]
        said[at] = said[at][: len(said[at]) - len(state)] + paint(state, STATE_COLOURS[state])
    for line in said:
        print(line)
    for test, worst in sorted(status.worst.items()):
        word = paint(worst.name, None if worst.name == "PASS" else "red", colour)
        for part in wrapped(f"  test {show_controls(test)}: worst {worst.name}", width):
            print(part.replace(worst.name, word) if part.endswith(worst.name) else part)
    for line in _sight_lines(sights):
        print(line)
    if night is not None:
        from perfwalk.report.times import SiteTimes

        _print_night(night, SiteTimes(config.report.time_zone), colour)
    return exits.OK


def _extended(s: SeriesRow) -> list[str]:
    """Each extension of a series (`run --extend`): when, what it measured."""
    return [f"  extended {e.started_at:%Y-%m-%d %H:%M:%S}: {e.said()}" for e in s.extensions]


#: the colours of a series' state in `perfwalk status`
STATE_COLOURS = {"interrupted": "yellow", "failed": "red", "finished": "green"}


def _sight_lines(sights: Sequence[Sight]) -> list[str]:
    """Per metric what the walk could see ("  bench.time: could see changes of ≥ 6.0 %
    here"), or why it cannot judge it (undecided, or judged only with the repetitions
    it was told to leave out); wrapped to the terminal's width, as the tables are."""
    import textwrap

    from perfwalk.cli.terminal import width_of

    width = width_of(sys.stdout)
    lines = [f"  {show_controls(s.metric)}: {show_controls(s.said)}" for s in sights]
    if width is None:
        return lines
    return [
        wrapped
        for line in lines
        for wrapped in textwrap.wrap(line, width, subsequent_indent="    ")
    ]


def _state_line(status: SeriesStatus) -> str:
    """The state, with who walks the series when it runs (or ran and is gone)."""
    walker = status.walker
    if status.walker_gone and walker is not None:
        again = {
            "walk": "; `perfwalk run --resume` continues it",
            "variant": f"; `perfwalk run --resume` continues its walk, series "
            f"{status.series.parent_id}, with it",
        }.get(status.series.kind, "")
        if status.silent_since is not None:
            return (
                f"interrupted: its walk ({walker.describe()}) stopped: no heartbeat on its "
                f"hosts' leases since {status.silent_since:%Y-%m-%d %H:%M:%S} UTC{again}"
            )
        return f"interrupted: its walk ({walker.describe()}) is gone{again}"
    if status.state != "running" or walker is None:
        return status.state
    if walker.liveness() == "elsewhere":
        return f"running on {walker.machine} (pid {walker.pid}), as far as the store knows"
    return f"running ({walker.describe()})"


def _repetitions(status: SeriesStatus) -> str:
    """``24 of 60``; ``57 of 60 (3 not run: build failed)``; ``60 of 60 (+2 re-measures
    of changes)``; ``24`` for a drill (it plans as it goes)."""
    done = status.repetitions_done
    if status.repetitions_total is None:
        planless = status.series.kind == "drill"
        return f"{done}" if planless else f"{done} (how many were planned was not recorded)"
    given_up = status.repetitions_given_up
    why = f" ({given_up} not run: build failed)" if given_up else ""
    again = status.repetitions_again
    if again:
        why += f" (+{again} re-measure{'' if again == 1 else 's'} of changes)"
    return f"{done} of {status.repetitions_total}{why}"


def cmd_list(args: argparse.Namespace) -> int:
    from perfwalk.cli.tables import print_table, series_rows
    from perfwalk.config.load import load_config
    from perfwalk.services.inspect import opened, series_states

    config = load_config(args.config)
    with opened(config, read_only=True) as store:
        every = store.list_series()
        rows = series_rows(every, series_states(store, every))
    if len(rows) > 1:
        print_table(rows, keep=3)
    else:
        print(NO_SERIES)
    return exits.OK


def _show_args(p: argparse.ArgumentParser) -> None:
    _series_arg(p)
    options.add_tests_option(p, "show", one=True)


def cmd_show(args: argparse.Namespace) -> int:
    from perfwalk.cli.change_texts import counters_text
    from perfwalk.cli.tables import SHOW_KEPT, print_table, show_rows, show_style
    from perfwalk.config.policy import metric_policy
    from perfwalk.config.test_selection import load_selected
    from perfwalk.model import Direction
    from perfwalk.orchestrate.findings.changes import seen_and_found
    from perfwalk.report.hangs import series_hangs
    from perfwalk.report.summaries import series_table
    from perfwalk.report.validity_warnings import of_table, series_validity
    from perfwalk.services.inspect import opened, pick_series

    config = load_selected(args.config, args.tests)
    with opened(config, read_only=True) as store:
        table = series_table(store, config, pick_series(store, args.series))
        sights, events = seen_and_found(store, config, table.series)
        hangs = series_hangs(store, table.series.id)
        validity = series_validity(store, config, table.series, of_table(table))
    policies = {
        f"{m.test}.{m.name}": metric_policy(
            config, m.test, m.name, m.unit, Direction(m.direction)
        ).summary
        for m in table.metrics
    }
    s, rows = table.series, show_rows(table, args.test, policies)
    from perfwalk.cli.terminal import width_of, wrapped

    title = f"series {s.id} {s.name!r} ({s.state}): {s.step}, {s.repetitions}/{s.between}"
    for line in (title, *_extended(s)):
        for part in wrapped(line, width_of(sys.stdout)):
            print(part)
    sys.stdout.flush()
    print_table(rows, keep=SHOW_KEPT, style=show_style)
    for hung in hangs:  # hosts that hung and were power-cycled (docs/lab.md)
        for line in hung.lines():
            print(show_controls(line))
    shown = [x for x in sights if args.test in (None, x.test) and config.keeps(x.test)]
    for line in [*_sight_lines(shown), *map(show_controls, table.parsers.lines(s.id, args.test))]:
        print(line)
    for event in events:  # what moved with each change (docs/analysis.md)
        if event.counters and args.test in (None, *(m.test for m in event.metrics)):
            for part in wrapped(f"change {event.id}: {counters_text(event)}", width_of(sys.stdout)):
                print(part)
    from perfwalk.cli.log_commands import pruned_lines

    for line in pruned_lines([(c.idx, c.pruned) for c in table.checkouts if c.pruned]):
        print(line)
    validity = [w for w in validity if args.test in (None, w.test)]
    if validity:
        print("Is this benchmark measuring the right thing? (docs/analysis.md)")
    for line in (line for w in validity for line in w.lines()):
        print(show_controls(f"  {line}"))
    return exits.OK


def _export_args(p: argparse.ArgumentParser) -> None:
    from perfwalk.report.export import FORMATS

    p.add_argument("--format", choices=FORMATS, default="json", help="default: json")
    p.add_argument(
        "--series",
        type=options.SERIES_ID,
        action="append",
        metavar="ID",
        help="a series to export (repeatable; default: all)",
    )
    p.add_argument("-o", "--output", type=Path, metavar="FILE", help="default: standard output")


def cmd_export(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config
    from perfwalk.services.export import export
    from perfwalk.services.inspect import opened

    config = load_config(args.config)
    with opened(config, read_only=True) as store:
        text = export(store, args.series, args.format)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return exits.OK


def _demo_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--dir",
        type=Path,
        default=Path("demo"),
        help="where the sample project, store and site go (default: ./demo)",
    )


def cmd_demo(args: argparse.Namespace) -> int:
    from perfwalk.cli.progress import ProgressBar
    from perfwalk.composites.demo import run_demo

    bar = ProgressBar()
    try:
        result = run_demo(args.dir, bar, say=print)
    finally:
        bar.close()
    config = _shown(result.project.config)
    night = result.night
    if night is not None:
        _told_night(night, f"{_own_command()} triage", config)
    print(f"site: {result.site / 'index.html'}")
    print(f"known changes found: {result.found} of {result.known}")
    print(f"exact commits found by drilling: {result.exact} of {len(result.drills)}")
    print(f"changes found that are not known: {len(result.others)}")
    for other in result.others:
        print(f"  {other.detail}")
    print(f"every change, with its commits: {_own_command()} changes --all -c {config}")
    return exits.OK


def _told_night(night: Night, triage: str, config: str) -> None:
    """What the demo's night did: the messages its receiver got, and how to triage."""
    got = len(night.messages)
    print(f"the night's notifications: {got} message{'' if got == 1 else 's'} arrived")
    for body in night.messages:
        print(f"  {show_controls(str(body.get('title', '')))}")
        for line in str(body.get("message", "")).splitlines():
            print(f"    {show_controls(line)}")
    for change in {c.id: c for c in night.cycle.alarms}.values():
        print(
            f"once looked at: {triage} {change.id} -c {config} --state acknowledged "
            '--reason "…" (then `changes` passes)'
        )
    for change in {c.id: c for c in night.cycle.new if c.note}.values():
        print(
            f"the night's change {change.id} ({change.test}.{change.name} "
            f"{change.size_text()}) was neither drilled nor told: {change.cause or change.told()}"
        )
        if change.state == "suspect":
            print(
                "  the machine was busy while the night was measured; on a quiet machine "
                "the watch drills it and tells it"
            )


def _own_command() -> str:
    """How the user called perfwalk (``.venv/bin/perfwalk``), to repeat in a hint."""
    called = sys.argv[0]
    return _shown(Path(called)) if os.sep in called else "perfwalk"


def _shown(path: Path) -> str:
    """``path`` relative to the current folder when it lies inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


COMMANDS: dict[str, Command] = {
    "init": Command(
        "write a commented perfwalk.toml for the repository here", _init_args, cmd_init
    ),
    "run": Command(
        "walk a history: build and measure every checkout",
        _run_args,
        cmd_run,
        when_interrupted="`perfwalk run --resume` continues the walk",
    ),
    "status": Command(
        "where a walk stands; without a series, then also when the last walk or watch "
        "cycle ran and what it brought, in one paragraph; --follow: what each host of "
        "the running walks does now, with its last output lines, until Ctrl-C",
        _status_args,
        cmd_status,
    ),
    "list": Command("every series in the store, newest first", no_arguments, cmd_list),
    "show": Command("a series: per checkout, each value's summary", _show_args, cmd_show),
    "export": Command("export series as json, csv or gnuplot", _export_args, cmd_export),
    "demo": Command(
        "walk, measure, analyse and publish a sample project",
        _demo_args,
        cmd_demo,
        needs_config=False,
    ),
}
