"""Sub-commands of the regress area: run the functional suite, import results made
elsewhere, publish the matrix, list the runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from perfwalk.cli import exits
from perfwalk.cli.spec import Command
from perfwalk.cli.tables import format_table
from perfwalk.errors import UsageError
from perfwalk.quantities import format_share, many
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.config.model import Config
    from perfwalk.regress.outcome import TestOutcome
    from perfwalk.services.regress import RegressSummary


ACTIONS = ("import", "publish", "runs")


def _regress_args(p: argparse.ArgumentParser) -> None:
    from perfwalk.regress.formats import FORMAT_NAMES

    p.add_argument(
        "action",
        nargs="?",
        choices=ACTIONS,
        help="nothing: run the suite of [regress] on a host; import FILE: store results "
        "made elsewhere; publish: write the matrix pages; runs: list the stored runs",
    )
    p.add_argument("file", nargs="?", type=Path, help="import: the JUnit XML, TAP or marker log")
    p.add_argument(
        "--host",
        metavar="H",
        help="run: where the suite runs (default [regress] host); import: the machine "
        "the results come from (required); runs: only this host's",
    )
    p.add_argument(
        "--commit",
        metavar="C",
        help="the source commit tested (default for a run: HEAD of regress.dir, if a git "
        "work tree)",
    )
    p.add_argument(
        "--date",
        metavar="D",
        help="import: when the results were made, YYYY-MM-DD[THH:MM] (default: the "
        "file's own timestamp, else its modification time)",
    )
    p.add_argument(
        "--format", choices=FORMAT_NAMES, help="import: the file's format (default: detected)"
    )
    p.add_argument("--arch", default="", help="import: the machine's architecture")
    p.add_argument("--os", default="", help="import: the machine's operating system")
    p.add_argument("--kernel", default="", help="import: the machine's kernel version")
    p.add_argument(
        "--build",
        choices=("stock", "custom", "unknown"),
        default="unknown",
        help="import: a stock or a custom build of the system under test",
    )
    p.add_argument(
        "--site",
        type=Path,
        metavar="DIR",
        help="publish: the site whose regress/ the matrix is written to (default: the "
        "configuration's [watch] site, which `perfwalk watch` and `perfwalk report` "
        "publish: site next to the file unless set); run and import: publish the matrix "
        "there afterwards",
    )
    p.add_argument(
        "--full", action="store_true", help="publish: rewrite every file, not only new runs'"
    )


def _report(summary: RegressSummary) -> int:
    from perfwalk.model import Status

    total = sum(summary.counts.values())
    rate = summary.pass_rate
    counts = ", ".join(f"{s.name} {summary.counts[s]}" for s in Status if s in summary.counts)
    print(
        f"regress run {summary.run_id} on {show_controls(summary.host)}: "
        f"{many(total, 'test')}, pass rate "
        f"{'-' if rate is None else f'{rate:.1%}'} ({counts or 'no results'})"
    )
    for name, status, message in summary.failing[:20]:
        tail = f": {show_controls(message)}" if message else ""
        print(f"  {status.name:7} {show_controls(name)}{tail}")
    if len(summary.failing) > 20:
        print(f"  … and {len(summary.failing) - 20} more")
    for change in summary.breaks:  # a change of its own: listed, grouped, drilled
        print(
            f"{change.word.upper()} {change.id}: {show_controls(change.metric)} "
            f"{change.levels_text()} since the run before "
            f"({many(change.commits, 'commit')}): `perfwalk drill {change.id}` names its commit"
        )
    return exits.FOUND if summary.failing else exits.OK


def _publish(config: Config, site: Path, *, full: bool) -> int:
    from perfwalk.services.publish import publish_regress

    report = publish_regress(config, site, full=full)
    kind = "full" if full else "incremental"
    print(
        f"{kind} matrix publish: {many(report.hosts, 'host')}, {many(report.runs, 'run')} "
        f"({report.runs_written} new), {many(report.tests, 'test')}, "
        f"{many(report.files_written, 'file')} written, "
        f"largest {report.largest[1] / 1024:.0f} KiB, {report.seconds:.2f} s"
    )
    print(f"matrix: {report.index.resolve()}")
    return exits.OK


def _runs(config: Config, host: str | None) -> int:
    from perfwalk.model import Status
    from perfwalk.regress.history import pass_rate
    from perfwalk.services.regress import list_runs

    runs = list_runs(config, host)
    if not runs:
        print("no regress runs yet; run the suite with `perfwalk regress`")
        return exits.OK
    rows = [["id", "host", "date", "arch", "build", "commit", "tests", "pass rate", "worst"]]
    for run in runs:
        rate = pass_rate(run.counts)
        rows.append(
            [
                str(run.id),
                show_controls(run.host),
                f"{run.started_at:%Y-%m-%d %H:%M}",
                show_controls(run.arch or "?"),
                run.build,
                (run.commit or "-")[:12],
                str(sum(run.counts.values())),
                "-" if rate is None else format_share(rate),
                Status.worst(list(run.counts)).name if run.counts else "-",
            ]
        )
    print(format_table(rows))
    return exits.OK


def cmd_regress(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config

    if args.action != "import" and args.file is not None:
        raise UsageError(
            f"unexpected argument {str(args.file)!r}",
            hint="only `perfwalk regress import FILE` takes a file",
        )
    config = load_config(args.config)
    if args.action == "publish":
        return _publish(config, args.site or config.watch.site, full=args.full)
    if args.action == "runs":
        return _runs(config, args.host)
    code = _import(config, args) if args.action == "import" else _run(config, args)
    if args.site is not None:
        _publish(config, args.site, full=args.full)
    return code


def _run(config: Config, args: argparse.Namespace) -> int:
    from perfwalk.model import Status
    from perfwalk.services.regress import run_suite

    def progress(done: int, total: int, outcome: TestOutcome) -> None:
        if outcome.status is not Status.PASS:
            message = f": {show_controls(outcome.message)}" if outcome.message else ""
            print(
                f"[{done}/{total}] {outcome.status.name:7} {show_controls(outcome.name)}{message}"
            )
            sys.stdout.flush()

    summary = run_suite(config, host_name=args.host, commit=args.commit, progress=progress)
    return _report(summary)


def _import(config: Config, args: argparse.Namespace) -> int:
    from perfwalk.services.regress import ImportOptions, import_results

    if args.file is None:
        raise UsageError("import needs a FILE", hint="perfwalk regress import FILE --host H")
    if not args.host:
        raise UsageError(
            "import needs --host", hint="name the machine the results come from: --host H"
        )
    options = ImportOptions(
        host=args.host,
        format=args.format,
        date=args.date,
        commit=args.commit,
        arch=args.arch,
        os=args.os,
        kernel=args.kernel,
        build=args.build,
    )
    return _report(import_results(config, args.file, options))


COMMANDS: dict[str, Command] = {
    "regress": Command(
        "functional regression suite: run it on a host, import results, publish the matrix",
        _regress_args,
        cmd_regress,
    ),
}
