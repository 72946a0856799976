"""bench/adaptive.py runs end to end on a small history (--quick) and prints its
table, its medians, the ratio and its two goals (its figures are only checked for
their shape: the exit status follows the goals)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "adaptive.py"


@pytest.mark.slow
def test_adaptive_bench_prints_both_methods_the_ratio_and_the_goals() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    out = done.stdout
    for method in ("fixed + drill", "adaptive"):
        assert re.search(
            rf"^\s+0\s+2\s+\S+%\s+{re.escape(method)}\s+\d+\s+\d+\s+\d\s+\d+$", out, re.M
        ), out
        assert re.search(rf"^{re.escape(method)}\s+[\d.]+\s+[\d.]+\s+\d of 2$", out, re.M), out
    assert re.search(r"^adaptive / fixed\s+\d+\.\d\d\s+\d+\.\d\d$", out, re.M), out
    goals = re.findall(r"^goal: .* -> (PASS|FAIL)$", out, re.M)
    assert len(goals) == 2, out
    assert done.returncode == (1 if "FAIL" in goals else 0)
