"""The host fingerprint of a walk runs the configured tools only, never a test's program."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.services.conftest import MakeConfig


def test_the_walk_never_runs_a_test_program_with_version(
    make_config: MakeConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls.log"
    recorder = bin_dir / "recorder"
    recorder.write_text(f'#!/bin/sh\necho "$*" >> {calls}\n')
    recorder.chmod(0o755)
    versioned = bin_dir / "versioned"
    versioned.write_text("#!/bin/sh\necho versioned 4.2\n")
    versioned.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    config = make_config(
        command="recorder run; sh bench.sh", run='tools = ["versioned", "no-such-tool"]'
    )
    result = run_series(config, RunOptions(from_="2024-01-10", repetitions=2))
    assert result.worst is Status.PASS
    assert calls.read_text().splitlines() == ["run"] * 2 * result.checkouts
    store = Store.open(config.store.url)
    try:
        found = store.series(result.series_id).fingerprint
    finally:
        store.close()
    tools = {key: value for key, value in found.items() if key.startswith("tool.")}
    assert tools == {"tool.versioned": "versioned 4.2", "tool.no-such-tool": "not found"}


def test_by_default_compilers_and_interpreters_are_fingerprinted(
    make_config: MakeConfig,
) -> None:
    config = make_config()
    assert "python3" in config.run.tools
    assert "cc" in config.run.tools
    result = run_series(config, RunOptions(from_="2024-01-10", repetitions=1))
    store = Store.open(config.store.url)
    try:
        found = store.series(result.series_id).fingerprint
    finally:
        store.close()
    assert {key for key in found if key.startswith("tool.")} == {
        f"tool.{tool}" for tool in config.run.tools
    }
    assert "tool.sh" not in found  # the first word of the build and test commands
