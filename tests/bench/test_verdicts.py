"""bench/verdicts.py runs end to end and prints its tables and goals (its figures come
from a few seeded walks here: only their shape is checked)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "verdicts.py"


def test_verdicts_bench_prints_every_scenario_and_its_goals(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--no-peers", "--series", "3", "--corpus", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    out = done.stdout
    assert f"no corpus of real walks in {tmp_path}" in out
    rows = re.findall(r"^(steps, quiet|load[^\n]*?|all loaded, busy again) +3 +360 ", out, re.M)
    assert len(rows) == 8, out
    assert re.search(r"^all +24 +2880 ", out, re.M), out
    goals = re.findall(r"^goals: .* -> (PASS|FAIL)", out, re.MULTILINE)
    assert len(goals) == 1, out
    assert done.returncode == (0 if goals == ["PASS"] else 1)
