"""bench/try.py runs end to end and prints its table and goals (its figures come from
seeded simulations of a few tries here: only their shape is checked)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "try.py"


def test_try_bench_prints_every_cell_and_the_three_goals() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--tries", "5"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    out = done.stdout
    for method in ("try", "fixed ABAB", "back-to-back"):
        rows = re.findall(rf"^\s+(?:\S+ +\S+ +\S+ +\S+ +\S+ +)?{re.escape(method)}\s+\d", out, re.M)
        assert len(rows) == 24, (method, out)
    goals = re.findall(r"^goal: .* -> (PASS|FAIL)", out, re.MULTILINE)
    assert len(goals) == 3, out
    assert done.returncode == (1 if "FAIL" in goals else 0)
