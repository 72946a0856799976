"""scripts/pg-server: usage errors and a stopped server (starting one is what the
PostgreSQL variants of every store test do)."""

from __future__ import annotations

import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "pg-server"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_usage() -> None:
    done = _run("launch")
    assert done.returncode == 2
    assert "usage:" in done.stderr
    assert _run("start").returncode == 2


def test_url_and_status_of_a_server_that_does_not_run(tmp_path: Path) -> None:
    done = _run("url", str(tmp_path))
    assert done.returncode == 1
    assert "no server runs" in done.stderr or "not found" in done.stderr
    status = _run("status", str(tmp_path))
    assert status.returncode in (1, 3)
    stop = _run("stop", str(tmp_path))
    assert stop.returncode in (0, 1)


def test_refuses_a_directory_too_long_for_a_socket(tmp_path: Path) -> None:
    done = _run("start", str(tmp_path / ("x" * 100)))
    assert done.returncode == 1
    assert "too long" in done.stderr
