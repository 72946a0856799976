"""What docs/watch.md gives to run the daily loop: a crontab line and systemd units
that systemd itself accepts."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "examples" / "systemd"


@pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here"
)
def test_the_systemd_service_and_timer_verify(tmp_path: Path) -> None:
    # the paths a user sets, pointed at what exists here: systemd checks the program
    perfwalk = Path(sys.executable).parent / "perfwalk"
    assert perfwalk.exists()
    for unit in ("perfwalk-watch.service", "perfwalk-watch.timer"):
        text = (UNITS / unit).read_text(encoding="utf-8")
        text = text.replace("/srv/perfwalk/.venv/bin/perfwalk", str(perfwalk))
        text = text.replace("/srv/perfwalk", str(tmp_path))
        (tmp_path / unit).write_text(text, encoding="utf-8")
    done = subprocess.run(
        [
            "systemd-analyze",
            "verify",
            str(tmp_path / "perfwalk-watch.service"),
            str(tmp_path / "perfwalk-watch.timer"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    service = (UNITS / "perfwalk-watch.service").read_text(encoding="utf-8")
    assert "ExecStart=/srv/perfwalk/.venv/bin/perfwalk watch --once -c " in service


def test_the_docs_give_a_crontab_line_that_runs_one_cycle() -> None:
    docs = (ROOT / "docs" / "watch.md").read_text(encoding="utf-8")
    lines = [line for line in docs.splitlines() if re.match(r"^[0-9*,/-]+( [0-9*,/-]+){4} ", line)]
    assert lines, "no crontab line in docs/watch.md"
    (line,) = lines
    assert "perfwalk watch --once -c " in line
    for unit in ("perfwalk-watch.service", "perfwalk-watch.timer"):
        assert f"examples/systemd/{unit}" in docs


@pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here"
)
def test_the_systemd_worker_unit_verifies(tmp_path: Path) -> None:
    perfwalk = Path(sys.executable).parent / "perfwalk"
    text = (UNITS / "perfwalk-worker@.service").read_text(encoding="utf-8")
    text = text.replace("/srv/perfwalk/.venv/bin/perfwalk", str(perfwalk))
    text = text.replace("/srv/perfwalk", str(tmp_path))
    (tmp_path / "perfwalk-worker@.service").write_text(text, encoding="utf-8")
    (tmp_path / "perfwalk-worker@rack-a.service").symlink_to(tmp_path / "perfwalk-worker@.service")
    done = subprocess.run(
        ["systemd-analyze", "verify", str(tmp_path / "perfwalk-worker@rack-a.service")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    docs = (ROOT / "docs" / "team.md").read_text(encoding="utf-8")
    assert "examples/systemd/perfwalk-worker@.service" in docs
