"""Sub-commands of the report area: publish the site, serve it while a run goes on,
send the notifications of new changes."""

from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from perfwalk.cli import exits, options
from perfwalk.cli.spec import Command
from perfwalk.errors import PerfwalkError
from perfwalk.quantities import many
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.orchestrate.findings.notify import Attempt, NotifyReport
    from perfwalk.report.site import PublishReport


def _out_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="where the site goes (default: the configuration's [watch] site, which "
        "`perfwalk watch` publishes: site next to the file unless set)",
    )
    p.add_argument(
        "--full", action="store_true", help="rewrite every page, not only those that changed"
    )


def _report_args(p: argparse.ArgumentParser) -> None:
    _out_arg(p)
    options.add_tests_option(p, "publish")


def _say(report: PublishReport) -> str:
    kind = "full" if report.full else "incremental"
    return (
        f"{kind} publish: {many(report.written, 'file')} written, "
        f"{many(report.checkouts, 'checkout')} rendered, {report.series} series, "
        f"{report.seconds:.2f} s"
    )


def cmd_report(args: argparse.Namespace) -> int:
    from perfwalk.config.test_selection import load_selected
    from perfwalk.services.publish import publish_site

    config = load_selected(args.config, args.tests)
    report = publish_site(config, args.out or config.watch.site, full=args.full)
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(_say(report))
    print(f"site: {report.index.resolve()}")
    return exits.OK


def _serve_args(p: argparse.ArgumentParser) -> None:
    _out_arg(p)
    p.add_argument(
        "--port",
        type=options.PORT,
        default=8000,
        help="port on 127.0.0.1 (default 8000; 0: any free)",
    )
    p.add_argument(
        "--interval",
        type=options.INTERVAL,
        default=2.0,
        metavar="SECONDS",
        help="how often to look for new results (default 2)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name requests may give in their Host header besides localhost, 127.0.0.1 "
        "and [::1] (a reverse proxy's, an ssh tunnel's); repeatable. Others are refused "
        "(DNS rebinding)",
    )


def cmd_serve(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config
    from perfwalk.services.publish import serve_site

    config = load_config(args.config)
    out: Path = args.out or config.watch.site

    def ready(url: str, report: PublishReport) -> None:
        print(_say(report))
        print(f"serving {out.resolve()} at {url} (Ctrl-C stops)", flush=True)

    def published(report: PublishReport) -> None:
        print(_say(report), flush=True)

    def failed(error: Exception) -> None:
        if isinstance(error, PerfwalkError):
            told = show_controls(str(error))
            print(f"perfwalk: publish failed (still serving): {told}", file=sys.stderr)
            if error.hint:
                print(f"hint: {show_controls(error.hint)}", file=sys.stderr)
        else:
            traceback.print_exception(error)
            print("perfwalk: publish failed (still serving): internal error", file=sys.stderr)
        sys.stderr.flush()

    serve_site(
        config,
        out,
        port=args.port,
        interval=args.interval,
        allowed_hosts=args.allow_host,
        ready=ready,
        published=published,
        failed=failed,
    )
    return exits.OK


def _notify_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--test",
        action="store_true",
        help="send one test message to each receiver of [notify] urls and say which worked "
        "(exit 1 when one did not)",
    )


def _told(attempt: Attempt) -> str:
    why = f": {show_controls(attempt.error)}" if attempt.error else ""
    return f"{show_controls(attempt.receiver)}: {show_controls(attempt.title)}{why}"


def notify_lines(report: NotifyReport) -> list[str]:
    """What a delivery did, a line per message sent, failed or given up, then counts."""
    lines = [f"sent      {_told(a)}" for a in report.sent]
    lines += [f"failed    {_told(a)} (tried again later)" for a in report.failed]
    lines += [f"given up  {_told(a)}" for a in report.given_up]
    counts = (
        f"{report.queued} queued, {len(report.sent)} sent, {len(report.failed)} failed, "
        f"{len(report.given_up)} given up, {report.pending} waiting"
    )
    if report.unknown:
        counts += f", {report.unknown} for receivers no longer in [notify] urls"
    return [*lines, counts]


def cmd_notify(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config
    from perfwalk.services.notify import notify_due, notify_test

    config = load_config(args.config)
    if args.test:
        attempts = notify_test(config)
        for attempt in attempts:
            mark = "FAILED" if attempt.error else "ok"
            why = f": {show_controls(attempt.error)}" if attempt.error else ""
            print(f"{mark:6} {show_controls(attempt.receiver)}{why}")
        return exits.FOUND if any(attempt.error for attempt in attempts) else exits.OK
    for line in notify_lines(notify_due(config)):
        print(line)
    return exits.OK


COMMANDS: dict[str, Command] = {
    "report": Command(
        "publish the static site (incrementally: only pages that changed)",
        _report_args,
        cmd_report,
    ),
    "serve": Command(
        "serve the site on 127.0.0.1 and rebuild the affected pages as results arrive",
        _serve_args,
        cmd_serve,
    ),
    "notify": Command(
        "send the notifications of new changes that are due (failed before: a receiver "
        "was down), or a test message to each receiver",
        _notify_args,
        cmd_notify,
    ),
}
