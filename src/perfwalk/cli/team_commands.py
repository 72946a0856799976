"""Team mode's commands (docs/team.md): ``perfwalk submit`` queues a use case as a
job, ``perfwalk jobs`` lists and cancels jobs, ``perfwalk worker`` runs them."""

from __future__ import annotations

import argparse
from typing import Any

from perfwalk.cli import exits, options
from perfwalk.cli.spec import Command
from perfwalk.errors import UsageError
from perfwalk.untrusted import show_controls

#: The kinds of job and, per kind, the direct command's argument → the job's option.
_OPTIONS: dict[str, dict[str, str]] = {
    "run": {
        "from_": "from_",
        "to": "to",
        "step": "step",
        "repetitions": "repetitions",
        "between": "between",
        "name": "name",
        "resume": "resume",
        "walk": "walk",
        "variants": "variants",
        "tests": "tests",
        "extend": "extend",
    },
    "try": {
        "base": "base",
        "head": "head",
        "variant": "variant",
        "max_repetitions": "max_repetitions",
        "confidence": "confidence",
        "patch": "patches",
        "profile": "profile",
    },
    "drill": {
        "change": "change",
        "between": "between",
        "test": "test",
        "value": "value",
        "max_builds": "max_builds",
        "max_repetitions": "max_repetitions",
    },
    "watch": {},
}


def _submit_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "kind",
        choices=sorted(_OPTIONS),
        help="the use case to queue, followed by the options of its direct command "
        "(perfwalk run|drill|try --help): perfwalk submit run --from 2024-01-01 -n 5",
    )


def _direct_parser(kind: str) -> argparse.ArgumentParser:
    """The arguments of the direct command ``kind``."""
    from perfwalk.cli import commands, drill_commands, try_commands, watch_commands

    direct = {
        **commands.COMMANDS,
        **drill_commands.COMMANDS,
        **try_commands.COMMANDS,
        **watch_commands.COMMANDS,
    }
    parser = argparse.ArgumentParser(prog=f"perfwalk submit {kind}")
    direct[kind].add_arguments(parser)
    if kind == "drill":  # the change also by the name of its parameter (docs/team.md)
        parser.add_argument("--change", dest="change_option", metavar="ID", help="= ID")
    return parser


def job_options(kind: str, argv: list[str]) -> dict[str, Any]:
    """The options of a job ``kind`` from the direct command's arguments ``argv`` (a
    drill's change also as ``--change ID``); an option a job cannot carry is a
    UsageError. Their values are checked by the service that queues the job."""
    parser = _direct_parser(kind)
    try:
        given = parser.parse_args(argv)
    except SystemExit:
        raise UsageError(
            f"bad options for a {kind} job: {' '.join(argv)}",
            hint=f"perfwalk {kind} --help lists them",
        ) from None
    named = vars(given).pop("change_option", None)
    if named is not None:
        if given.change is not None:
            raise UsageError(
                f"two changes to drill: {given.change} and --change {named}",
                hint="give one: perfwalk submit drill --change ID",
            )
        given.change = named
    defaults = parser.parse_args([] if kind != "try" else [given.base])
    vars(defaults).pop("change_option", None)
    mapping = _OPTIONS[kind]
    values: dict[str, Any] = {}
    for key, value in vars(given).items():
        if key in mapping:
            if value is not None and value is not False and value not in ((), []):
                values[mapping[key]] = list(value) if isinstance(value, tuple) else value
        elif value != getattr(defaults, key, None):
            raise UsageError(
                f"a submitted {kind} job cannot take --{key.replace('_', '-')}",
                hint=f"run it directly: perfwalk {kind} …",
            )
    return values


def cmd_submit(args: argparse.Namespace) -> int:
    from perfwalk.composites.jobs import submit
    from perfwalk.config.load import load_config

    config = load_config(args.config)
    job = submit(config, args.kind, job_options(args.kind, list(args.rest)))
    print(job)
    return exits.OK


def _jobs_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "action", nargs="?", choices=["list", "cancel"], default="list", help="(default list)"
    )
    p.add_argument("job", nargs="?", type=options.INDEX, metavar="ID", help="to cancel")
    p.add_argument("--limit", type=options.COUNT, default=50, help="the newest N jobs (50)")


def cmd_jobs(args: argparse.Namespace) -> int:
    from perfwalk.cli.tables import format_table
    from perfwalk.composites.jobs import cancel_job, jobs
    from perfwalk.config.load import load_config

    config = load_config(args.config)
    if args.action == "cancel":
        if args.job is None:
            raise UsageError(
                "which job?", hint="perfwalk jobs cancel ID (perfwalk jobs lists them)"
            )
        row = cancel_job(config, args.job)
        then = (
            "it stops at its next repetition; `perfwalk run --resume` continues its series"
            if row.state == "cancelling"
            else "it will not run"
        )
        print(f"job {row.id}: {row.state}; {then}")
        return exits.OK
    if args.job is not None:
        raise UsageError("a job id only goes with cancel", hint="perfwalk jobs cancel ID")
    rows = jobs(config, limit=args.limit)
    if not rows:
        print("no jobs")
        return exits.OK
    table = [
        ["id", "kind", "state", "pool", "hosts", "owner", "tries", "queued", "started", "ended"]
    ]
    for row in rows:
        table.append(
            [
                str(row.id),
                row.kind,
                row.state,
                row.queue,
                ",".join(row.hosts) or "-",
                row.owner,
                str(row.tries),
                *(
                    f"{when:%Y-%m-%d %H:%M:%S}" if when is not None else "-"
                    for when in (row.queued_at, row.started_at, row.ended_at)
                ),
            ]
        )
    print(format_table(table))
    return exits.OK


def _worker_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--hosts",
        metavar="POOL,…",
        type=options.names_list,
        default=(),
        help="take only the jobs of these host pools ([hosts.NAME] pool; `watch` for the "
        "watch cycles); default: every pool",
    )
    p.add_argument(
        "--stall",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="a worker silent this long is lost: its job is queued again (60)",
    )
    p.add_argument(
        "--heartbeat",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how often this worker tells the queue it lives (10)",
    )
    p.add_argument(
        "--poll",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="how often it looks for jobs besides the queue's notifications (5)",
    )


def cmd_worker(args: argparse.Namespace) -> int:
    from perfwalk.composites.jobs import WorkerTiming, run_worker
    from perfwalk.config.load import load_config

    config = load_config(args.config)
    if not args.heartbeat < args.stall:
        raise UsageError(
            f"--heartbeat {args.heartbeat:g} must be shorter than --stall {args.stall:g}",
            hint="a worker would be taken for lost between two beats",
        )

    def say(line: str) -> None:
        print(show_controls(line), flush=True)

    run_worker(
        config,
        tuple(args.hosts),
        say=say,
        timing=WorkerTiming(poll=args.poll, heartbeat=args.heartbeat, stall=args.stall),
    )
    return exits.OK


COMMANDS: dict[str, Command] = {
    "submit": Command(
        "team mode: queue a run, drill, try or watch as a job (same options as the direct "
        "command) and print its id; a worker runs it",
        _submit_args,
        cmd_submit,
        takes_rest=True,
    ),
    "jobs": Command(
        "team mode: list the jobs (queued, running, done, failed) with their hosts, owner "
        "and times; `jobs cancel ID` cancels one",
        _jobs_args,
        cmd_jobs,
    ),
    "worker": Command(
        "team mode: run the queued jobs of some host pools, one at a time, and the "
        "[watch] schedule, until stopped",
        _worker_args,
        cmd_worker,
        when_interrupted="its running job is queued again; a worker continues it",
    ),
}
