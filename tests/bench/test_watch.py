"""bench/watch.py runs end to end on a small history (40 checkouts × 4 metrics, 4 new
commits: the shape is the bench's, not its size) and prints its table (its figures are
the machine's: only their shape is checked)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "watch.py"
SECONDS = r"\s+(\d+\.\d\d)\s+(\d+\.\d\d)$"  # the median and the one run


@pytest.mark.slow
def test_watch_quick_prints_the_cycle_and_the_verdict(tmp_path: Path) -> None:
    shape = ["--checkouts", "40", "--metrics", "4", "--new", "4"]
    argv = [sys.executable, str(SCRIPT), *shape, "--no-peers", "--runs", "1"]
    done = subprocess.run(
        [*argv, "--repetitions", "1", "--work", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    out = done.stdout
    assert done.returncode in (0, 1), done.stderr
    assert "history: 40 checkouts × 4 metrics stored (1 repetition each), 4 new commits" in out
    figures = {}
    for label in (
        "perfwalk cycle, whole",
        "builds + repetitions the store recorded",
        "perfwalk cycle, excluding builds and tests",
        "perfwalk watch --once",
        "its cycle, as it timed itself",
        "start-up and exit",
    ):
        found = re.search(rf"^\s*{re.escape(label)}{SECONDS}", out, re.MULTILINE)
        assert found is not None, (label, out)
        assert found[1] == found[2]  # one run: its median is itself
        figures[label] = float(found[1])
    whole = figures["perfwalk cycle, whole"]
    recorded = figures["builds + repetitions the store recorded"]
    assert 0 < recorded < whole
    excluded = figures["perfwalk cycle, excluding builds and tests"]
    assert excluded == pytest.approx(whole - recorded, abs=0.011)
    assert figures["perfwalk watch --once"] == whole  # the cycle is one command
    for phase in ("start-up: imports", "detection on every metric (find_all)", "publish"):
        assert re.search(rf"^\s+{re.escape(phase)}", out, re.MULTILINE), (phase, out)
    assert "(what the cycle found, last run: no new changes)" in out
    assert "asv" not in out  # --no-peers
    assert "warning" not in out  # each run measured the 4 new checkouts
    verdict = re.search(r"^goal: .* <= 3 s -> (PASS|FAIL) \((\d+\.\d\d) s\)$", out, re.MULTILINE)
    assert verdict is not None, out
    assert float(verdict[2]) == excluded
    assert done.returncode == (0 if verdict[1] == "PASS" else 1)
    # the set-up is kept: its walk and its first site, beside the repository
    (kept,) = tmp_path.iterdir()
    assert {p.name for p in (kept / "base").iterdir()} >= {"store.db", "site"}
