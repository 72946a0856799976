"""docs/cli.md is generated from the argument parser and covers every command."""

from __future__ import annotations

import signal
from pathlib import Path

from perfwalk.cli import exits
from perfwalk.cli.reference import reference
from perfwalk.cli.registry import all_commands
from perfwalk.cli.signals import exit_status

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_the_committed_reference_is_the_generated_one(regen_golden: bool) -> None:
    if regen_golden:
        DOC.write_text(reference(), encoding="utf-8")
    assert DOC.read_text(encoding="utf-8") == reference(), (
        "docs/cli.md is stale: run pytest tests/cli --regen-golden"
    )


def test_every_command_and_exit_code_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in all_commands():
        assert f"## `perfwalk {name}`" in text
    for code in ("0", "1", "2", "3", "129", "130", "143"):
        assert f"| {code} |" in text


def test_the_signal_statuses_are_128_plus_the_signal() -> None:
    assert exit_status(signal.SIGHUP) == exits.HANGUP
    assert exit_status(signal.SIGINT) == exits.INTERRUPTED
    assert exit_status(signal.SIGTERM) == exits.TERMINATED


def test_every_exit_status_is_documented_once() -> None:
    rows = [line for line in DOC.read_text(encoding="utf-8").splitlines() if line[:2] == "| "]
    for code, meaning in exits.MEANINGS.items():
        assert rows.count(f"| {code} | {meaning} |") == 1
