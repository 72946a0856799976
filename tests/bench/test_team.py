"""bench/team.py runs end to end: the API started over a fresh store, pushes from
client processes in both runs, `perfwalk changes` over them, and its verdict (only
its shape is checked: the figures are this machine's)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "team.py"


def test_team_bench_pushes_in_both_runs_and_gives_its_verdict() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            *("--results", "2880", "--clients", "3"),
            *("--commits", "8", "--paced-seconds", "1"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    out = done.stdout
    assert "48 pushes of 60 values" in out, out
    assert re.search(r"^at saturation .*: 2880 values in .* failures: 0 ", out, re.M), out
    assert re.search(r"^at the goal's rate .*: 1980 values in .*; failures: 0$", out, re.M), out
    latency = r"latency of a push at .*: p50 [\d.]+ ms, p99 [\d.]+ ms \((PASS|FAIL)"
    assert len(re.findall(latency, out)) == 2, out
    # the 20 % step of the pushed values is found
    changes = r"^perfwalk changes over them: [\d.]+ s, [1-9]\d* changes \(exit 1\)$"
    assert re.search(changes, out, re.M), out
    verdict = re.search(r"^(PASS|FAIL): goals", out, re.M)
    assert verdict is not None, out
    assert done.returncode == (0 if verdict.group(1) == "PASS" else 1)
