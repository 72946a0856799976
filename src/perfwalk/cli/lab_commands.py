"""Sub-commands of the lab area: the lab on one machine, hosts and leases, Conductor runs."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfwalk.cli import exits, options
from perfwalk.cli.spec import Command
from perfwalk.cli.tables import format_table
from perfwalk.quantities import format_value
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.config.conduct import MasterConfig
    from perfwalk.lab import LabStatus
    from perfwalk.orchestrate.phases.trial import TrialOutcome
    from perfwalk.services.conduct import Parsed
    from perfwalk.store import NewStep
    from perfwalk.store.conduct import ConductSummary


def _lab_args(p: argparse.ArgumentParser) -> None:
    from perfwalk.lab.plan import DEFAULT_NAME, DEFAULT_REBOOT_DELAY

    p.add_argument("action", choices=("up", "down", "status"), help="make, remove or show the lab")
    p.add_argument(
        "--name",
        default=DEFAULT_NAME,
        help=f"the lab's name, prefix of its namespaces (default {DEFAULT_NAME}); "
        "labs of other names can run beside it",
    )
    p.add_argument(
        "--prefix",
        metavar="NET",
        help="the lab's private IPv4 network, at least a /22 (default: a 10.x.0.0/16 "
        "chosen by the name)",
    )
    p.add_argument(
        "--dir",
        type=Path,
        metavar="DIR",
        help="where the lab's files go (default /run/perfwalk/lab-NAME)",
    )
    p.add_argument(
        "--reboot-delay",
        type=options.WAIT,
        default=DEFAULT_REBOOT_DELAY,
        metavar="SECONDS",
        help=f"how long a namespace stays down when it reboots (default {DEFAULT_REBOOT_DELAY:g})",
    )


def cmd_lab(args: argparse.Namespace) -> int:
    from perfwalk.services import lab as lab_service

    if args.action == "up":
        status = lab_service.up(
            args.name, prefix=args.prefix, directory=args.dir, reboot_delay=args.reboot_delay
        )
    elif args.action == "down":
        status = lab_service.down(args.name, directory=args.dir)
    else:
        status = lab_service.status(args.name, directory=args.dir)
    _print_lab(status)
    if args.action == "up":
        print(f"hosts for perfwalk.toml: {status.plan.hosts_file}")
        print(f"ssh to a host: ssh -F {status.plan.ssh_config} {status.plan.namespace('dut')}")
    if args.action == "down":
        print("removed" if not status.anything else "something is left: see above")
        return exits.OK if not status.anything else exits.FOUND
    return exits.OK if status.up else exits.FOUND


def _print_lab(status: LabStatus) -> None:
    plan = status.plan
    print(f"lab {plan.name}: prefix {plan.prefix}, files {plan.directory}")
    rows = [["namespace", "exists", "sshd", "ssh"]]
    for ns in status.namespaces:
        answers = "-" if ns.answers is None else ("answers" if ns.answers else "NO ANSWER")
        sshd = f"pid {ns.sshd_pid}" if ns.sshd_pid else "-"
        rows.append([ns.namespace, "yes" if ns.exists else "no", sshd, answers])
    print(format_table(rows))
    print(f"route unreachable {plan.prefix}: {'yes' if status.route else 'no'}")


def _hosts_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--break",
        dest="break_",
        metavar="HOST",
        help="remove the lease on HOST (a host of the config, or a lease name) whoever "
        "holds it: for a lease left by a run that is gone",
    )
    p.add_argument(
        "--forget-modifier",
        type=options.RECORD_ID,
        metavar="RECORD",
        help="remove the record RECORD of a variant's runtime modifier left in place "
        "(`perfwalk hosts` lists them), once undone by hand: a walk on its host runs the "
        "undo of every record there first, and does not start when one fails",
    )


def cmd_hosts(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config
    from perfwalk.services.hosts import break_lease, forget_modifier, hosts_report
    from perfwalk.store import Store

    config = load_config(args.config)
    with Store.open(config.store.url) as store:
        if args.break_:
            removed = break_lease(config, store, args.break_)
            print(f"broke the lease on {removed.host}: {removed.describe(datetime.now(UTC))}")
            return exits.OK
        if args.forget_modifier is not None:
            forgotten = forget_modifier(store, args.forget_modifier)
            print(show_controls(f"forgot the record {forgotten.id}: {forgotten.describe()}"))
            return exits.OK
        report = hosts_report(config, store)
    rows = [["host", "target", "roles", "vars", "lease"]]
    for line in report.hosts:
        variables = " ".join(f"{k}={v}" for k, v in line.vars.items()) or "-"
        rows.append([line.name, line.target, ",".join(line.roles) or "-", variables, line.lease])
    print(format_table(rows))
    print()
    if not report.leases:
        print("no leases: no run holds a host")
    else:
        rows = [["lease", "state", "holder"]]
        for lease in report.leases:
            state = "STALE" if lease.stale(report.now) else "held"
            rows.append([lease.host, state, lease.describe(report.now)])
        print(format_table(rows))
    if report.modifiers:
        print()
        print("modifiers left in place: the next walk on their host undoes them first")
        rows = [["record", "host", "variant", "applied", "by", "undo"]]
        for modifier in report.modifiers:
            rows.append(
                [
                    str(modifier.id),
                    f"{modifier.host} ({modifier.member})",
                    f"{modifier.variant} [{modifier.modifier}]",
                    f"{modifier.applied_at:%Y-%m-%d %H:%M:%S}",
                    f"{modifier.owner} pid {modifier.pid}",
                    "; ".join(modifier.undo),
                ]
            )
        print(format_table(rows))
    return exits.OK


def _conduct_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "master",
        type=Path,
        nargs="?",
        help="the Conductor master file ([Test], [Clients]); with --parse or --list, only "
        "where the store is (perfwalk.db next to it)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="only read the master file and its player files and say what they hold "
        "(nothing is connected or run); unknown [Test] keys are warnings",
    )
    p.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="ADDRESS=TARGET",
        help="reach the player of ADDRESS (or of that name) through the ssh destination "
        "TARGET, or local (repeatable; default: the address itself; loopback = local)",
    )
    p.add_argument("--ssh-config", type=Path, metavar="FILE", help="an ssh_config for the players")
    p.add_argument(
        "--known-hosts", type=Path, metavar="FILE", help="a known_hosts file checked strictly"
    )
    p.add_argument(
        "-t", "--trials", type=options.COUNT, help="number of trials (default: [Test] trials)"
    )
    p.add_argument(
        "--store",
        metavar="URL",
        help="the result store (default: perfwalk.db next to the master file)",
    )
    p.add_argument(
        "--wait",
        type=options.WAIT,
        default=0.0,
        metavar="SECONDS",
        help="wait this long for players another run holds (default: stop at once)",
    )
    p.add_argument(
        "--parser",
        metavar="NAME",
        help="parse every trial's run-phase outputs with this parser (iperf3, value, "
        "regex, ...) and store the values per trial, for `compare conduct:ID`",
    )
    p.add_argument(
        "--parser-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of the parser, e.g. pattern=... for regex (repeatable)",
    )
    p.add_argument(
        "--parse",
        type=options.COUNT,
        metavar="ID",
        help="parse the stored conductor run ID with --parser (in --store, or "
        "perfwalk.db next to MASTER) instead of playing",
    )
    p.add_argument(
        "--list",
        action="store_true",
        help="list the conductor runs stored in --store (or perfwalk.db next to MASTER), "
        "newest first: trials, players, worst status, values and their parser",
    )
    p.add_argument(
        "--format",
        choices=("text", "json"),
        help="of --list: text (default) or json",
    )


def cmd_conduct(args: argparse.Namespace) -> int:
    from perfwalk.errors import UsageError
    from perfwalk.model import Status
    from perfwalk.services import conduct as conduct_service

    if args.format is not None and not args.list:
        raise UsageError("--format is for --list", hint="add --list, or leave --format out")
    if args.list:
        for given, option in ((args.check, "--check"), (args.parse is not None, "--parse")):
            if given:
                raise UsageError(f"--list and {option} do not go together", hint="give one")
        url = _store_url(args, "--list")
        return _print_runs(*conduct_service.stored_runs(url), json=args.format == "json")
    parser = None
    if args.parser is not None:
        parser = conduct_service.make_parser(args.parser, args.parser_option)
    elif args.parser_option:
        raise UsageError("--parser-option without --parser", hint="add --parser NAME")
    if args.parse is not None:
        if parser is None:
            raise UsageError("--parse ID needs --parser NAME", hint="e.g. --parser iperf3")
        url = _store_url(args, "--parse ID")
        return _print_parsed(conduct_service.parse_stored(url, args.parse, parser))
    if args.master is None:
        raise UsageError(
            "conduct: no master file", hint="give the Conductor master file: conduct MASTER.cfg"
        )
    if args.check:
        return _check(conduct_service.check(args.master))
    options = conduct_service.ConductOptions(
        mapping=conduct_service.parse_mapping(args.map),
        ssh_config=args.ssh_config,
        known_hosts=args.known_hosts,
        trials=args.trials,
        store_url=args.store,
        lease_wait=args.wait,
        parser=parser,
    )
    result = conduct_service.conduct(
        args.master,
        options,
        on_trial=_print_trial,
        on_warning=lambda warning: print(f"perfwalk: warning: {warning}", file=sys.stderr),
    )
    players = ", ".join(f"{p.name}={p.target}" for p in result.players)
    print(
        f"conductor run {result.conduct_id}: {len(result.trials)} trials on {players}; "
        f"worst status {result.worst.name}; stored in {result.store}"
    )
    worst = result.worst
    if result.parsed is not None:
        _print_parsed(result.parsed)
        if result.parsed.missing:
            worst = Status.worst([worst, Status.FAIL])
    return exits.OK if worst is Status.PASS else exits.FOUND


def _store_url(args: argparse.Namespace, option: str) -> str:
    """The store of ``--store``, else the perfwalk.db next to the master file (where
    `conduct MASTER` stores its runs)."""
    from perfwalk.errors import UsageError

    if args.store is not None:
        return str(args.store)
    if args.master is None:
        raise UsageError(
            f"{option}: which store?",
            hint="give --store URL, or the master file (its perfwalk.db)",
        )
    return f"sqlite:///{args.master.resolve().parent / 'perfwalk.db'}"


def _print_runs(store: str, runs: list[ConductSummary], *, json: bool) -> int:
    """``conduct --list``: one row per run, newest first (or a JSON document)."""
    from perfwalk.report.pages.conduct import values_text

    if json:
        from perfwalk.numbers import json_text

        print(json_text({"store": store, "runs": [_run_json(r) for r in runs]}, indent=2))
        return exits.OK
    if not runs:
        print(f"no conductor runs in {store} yet; play one with `perfwalk conduct MASTER.cfg`")
        return exits.OK
    rows = [
        [
            "id",
            "name",
            "master",
            "started",
            "finished",
            "state",
            "trials",
            "players",
            "worst",
            "values",
        ]
    ]
    for summary in runs:
        run = summary.run
        rows.append(
            [
                str(run.id),
                run.name,
                run.master,
                f"{run.started_at:%Y-%m-%d %H:%M}",
                f"{run.finished_at:%Y-%m-%d %H:%M}" if run.finished_at else "-",
                run.state,
                f"{summary.trials_done}/{run.trials}",
                ",".join(f"{name}={_target(p)}" for name, p in run.players.items()),
                summary.worst.name if summary.worst is not None else "-",
                values_text(summary),
            ]
        )
    print(format_table(rows))
    return exits.OK


def _target(player: object) -> str:
    """Where a stored player ran (its ssh target, or local)."""
    return str(player.get("target", "?")) if isinstance(player, dict) else "?"


def _run_json(summary: ConductSummary) -> dict[str, Any]:
    run = summary.run
    return {
        "id": run.id,
        "name": run.name,
        "master": run.master,
        "state": run.state,
        "started_at": run.started_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "trials": run.trials,
        "trials_done": summary.trials_done,
        "players": run.players,
        "steps": summary.steps,
        "worst": summary.worst.name if summary.worst is not None else None,
        "values": summary.values,
        "parser": run.parser,
    }


def _print_parsed(parsed: Parsed) -> int:
    rows = [["trial", "name", "value"]]
    for trial, values in parsed.values.items():
        rows += [[str(trial), v.name, format_value(v.value, v.unit)] for v in values]
    if len(rows) > 1:
        print(format_table(rows))
    for trial, why in parsed.missing.items():
        print(f"trial {trial}: no value: {why}")
    print(
        f"conductor run {parsed.conduct_id}: {parsed.count} values from "
        f"{len(parsed.values)} trials stored; compare them with "
        f"`perfwalk compare conduct:{parsed.conduct_id} conduct:OTHER`"
    )
    return exits.FOUND if parsed.missing else exits.OK


def _check(master: MasterConfig) -> int:
    for warning in master.warnings:
        print(f"perfwalk: warning: {warning}", file=sys.stderr)
    print(f"{master.path}: {master.trials} trials, {len(master.players)} players")
    rows = [["player", "address", "file", "startup", "run", "collect", "reset"]]
    for player in master.players:
        counts = [str(len(player.steps(phase))) for phase in ("Startup", "Run", "Collect", "Reset")]
        rows.append([player.name, player.address, str(player.file), *counts])
    print(format_table(rows, whole={2}))  # the players' files, as the master names them
    return exits.OK


def _print_trial(outcome: TrialOutcome) -> None:
    from perfwalk.model import Status

    rows = [["phase", "player", "steps", "worst", "seconds", "failed"]]
    groups: dict[tuple[str, str], list[NewStep]] = {}
    for step in outcome.steps:
        groups.setdefault((step.phase, step.role), []).append(step)
    order = ["startup", "run", "collect", "reset"]
    for (phase, player), steps in sorted(
        groups.items(), key=lambda g: (order.index(g[0][0]), g[0][1])
    ):
        statuses = [s.status for s in steps]
        seconds = sum((s.finished_at - s.started_at).total_seconds() for s in steps)
        failed = [s.name for s in steps if s.status is not Status.PASS]
        rows.append(
            [
                phase,
                player,
                str(len(steps)),
                Status.worst(statuses).name,
                f"{seconds:.2f}",
                ", ".join(failed) or "-",
            ]
        )
    print(f"trial {outcome.trial}:")
    print(format_table(rows))


COMMANDS: dict[str, Command] = {
    "lab": Command(
        "a lab on this machine: src, dut, sink in network namespaces, reached by ssh (root)",
        _lab_args,
        cmd_lab,
        needs_config=False,
    ),
    "hosts": Command(
        "the hosts of the configuration, the leases on them and the variants' runtime "
        "modifiers left in place",
        _hosts_args,
        cmd_hosts,
    ),
    "conduct": Command(
        "play a Conductor configuration (master and player files) over ssh",
        _conduct_args,
        cmd_conduct,
        needs_config=False,
    ),
}
