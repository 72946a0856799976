"""Every sub-command, area by area, in the order `perfwalk --help` lists them."""

from __future__ import annotations

from perfwalk.cli import (
    analysis_commands,
    api_commands,
    change_commands,
    commands,
    drill_commands,
    env_drill_commands,
    lab_commands,
    log_commands,
    parse_commands,
    prove_commands,
    regress_commands,
    reparse_commands,
    report_commands,
    team_commands,
    triage_commands,
    try_commands,
    watch_commands,
)
from perfwalk.cli.spec import Command


def all_commands() -> dict[str, Command]:
    merged: dict[str, Command] = {}
    for area in (
        commands,
        log_commands,
        analysis_commands,
        change_commands,
        drill_commands,
        env_drill_commands,
        prove_commands,
        try_commands,
        triage_commands,
        report_commands,
        parse_commands,
        reparse_commands,
        lab_commands,
        regress_commands,
        watch_commands,
        team_commands,
        api_commands,
    ):
        for name, command in area.COMMANDS.items():
            if name in merged:
                raise RuntimeError(f"two areas define the command {name!r}")
            merged[name] = command
    return merged
