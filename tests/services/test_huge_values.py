"""A real walk of values at the end of the float range: stored, summarised, reported,
detected and drilled like any others.

The bench prints ``VALUE 1.0012e308`` and the like: two of them already sum past the
float range, and a change from +1e308 to -1e308 is itself beyond it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.quantities import format_value
from tests.fixtures.synthetic_repo import CommitSpec, make_repo

HUGE_BENCH = r"""#!/bin/sh
# One value of this commit's level (in units of 1e306) with seeded noise (sd 0.5).
cd "$(dirname "$0")" || exit 1
awk -v base="$(cat value.txt)" -v at="$(cat commit.txt)" -v rep="${PERFWALK_REPETITION:-0}" '
BEGIN {
  srand(7 * 1000003 + at * 1009 + rep)
  u = rand(); if (u < 1e-12) u = 1e-12
  noise = 0.5 * sqrt(-2 * log(u)) * cos(6.283185307179586 * rand())
  printf "VALUE %.4fe306 ms huge\n", base + noise
  print "VALUE 1e308 ms flat"
}'
"""

CONFIG = """\
[project]
repo = "{repo}"

[build]
steps = []

[run]
step = "commit/2"
repetitions = 2

[[test]]
name = "far"
command = "sh bench.sh"
parser = "value"
timeout = 30
"""


def huge_history(path: Path, *, commits: int, step_at: int) -> list[str]:
    """+1e308 (100 × 1e306) up to ``step_at``, -1e308 from there on."""
    start = datetime(2025, 3, 1, tzinfo=UTC)
    spec = []
    for i in range(commits):
        files: dict[str, str | bytes | None] = {
            "value.txt": f"{-100 if i >= step_at else 100}\n",
            "commit.txt": f"{i}\n",
        }
        if i == 0:
            files["bench.sh"] = HUGE_BENCH
        message = "Turn it over" if i == step_at else f"Commit {i}"
        spec.append(CommitSpec(date=start + i * timedelta(hours=1), message=message, files=files))
    return make_repo(path, spec)


def test_a_walk_of_1e308_values_is_reported_detected_and_drilled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = huge_history(tmp_path / "repo", commits=24, step_at=13)
    config = tmp_path / "perfwalk.toml"
    config.write_text(CONFIG.format(repo=tmp_path / "repo"), encoding="utf-8")
    c = str(config)

    assert main(["run", "-c", c]) == 0
    out, err = capsys.readouterr()
    assert "series 1 finished: 13 checkouts × 2 repetitions" in out, err

    assert main(["show", "-c", c]) == 0
    shown = capsys.readouterr().out
    # the flat metric: two 1e308 ms summarised as 1e308 ms (1.00e+305 s)
    assert f"{format_value(1e308, 'ms')} ±0.0 % n=2" in shown

    assert main(["changes", "-c", c, "--format", "json"]) == 0  # an improvement: lower
    (change,) = json.loads(capsys.readouterr().out)["changes"]
    (metric,) = [m for m in change["metrics"] if m["name"] == "huge"]
    assert metric["before"] == pytest.approx(1e308, rel=0.01)
    assert metric["after"] == pytest.approx(-1e308, rel=0.01)
    assert metric["relative"] == pytest.approx(-2.0, rel=0.01)

    assert main(["drill", "-c", c, "--format", "json", "--value", "huge"]) == 0
    captured = capsys.readouterr()
    (drill,) = json.loads(captured.out)["drills"]
    assert (drill["verdict"], drill["commit"]) == ("culprit", ids[13]), captured.err
    assert drill["before"] == pytest.approx(1e308, rel=0.01)
    assert drill["after"] == pytest.approx(-1e308, rel=0.01)

    assert main(["report", "-c", c, "--out", str(tmp_path / "site")]) == 0
    capsys.readouterr()
    drill_pages = [p.read_text() for p in (tmp_path / "site").rglob("*.html")]
    assert any("beyond the float range" in page for page in drill_pages)  # the change: -2e308
    for data in (tmp_path / "site").rglob("*.json"):
        json.loads(data.read_text(), parse_constant=_no_constant)  # no Infinity, no NaN

    assert main(["run", "-c", c, "--resume"]) == 2  # nothing to resume: not a crash
    assert "nothing to resume" in capsys.readouterr().err


def _no_constant(name: str) -> None:
    raise AssertionError(f"{name} in a data file of the site")
