"""Sub-commands of the report area: publish the site, serve it while a run goes on."""

from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from perfwalk.cli import exits, options
from perfwalk.cli.spec import Command
from perfwalk.errors import PerfwalkError
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.report.site import PublishReport


def _out_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--out",
        type=Path,
        default=Path("site"),
        metavar="DIR",
        help="where the site goes (default: ./site)",
    )
    p.add_argument(
        "--full", action="store_true", help="rewrite every page, not only those that changed"
    )


def _say(report: PublishReport) -> str:
    kind = "full" if report.full else "incremental"
    return (
        f"{kind} publish: {report.written} files written, {report.checkouts} checkouts "
        f"rendered, {report.series} series, {report.seconds:.2f} s"
    )


def cmd_report(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config
    from perfwalk.services.publish import publish_site

    config = load_config(args.config)
    report = publish_site(config, args.out, full=args.full)
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

    def ready(url: str, report: PublishReport) -> None:
        print(_say(report))
        print(f"serving {args.out.resolve()} at {url} (Ctrl-C stops)", flush=True)

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
        args.out,
        port=args.port,
        interval=args.interval,
        allowed_hosts=args.allow_host,
        ready=ready,
        published=published,
        failed=failed,
    )
    return exits.OK


COMMANDS: dict[str, Command] = {
    "report": Command(
        "publish the static site (incrementally: only pages that changed)", _out_arg, cmd_report
    ),
    "serve": Command(
        "serve the site on 127.0.0.1 and rebuild the affected pages as results arrive",
        _serve_args,
        cmd_serve,
    ),
}
