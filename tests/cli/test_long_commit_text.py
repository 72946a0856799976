"""A commit whose subject and author are 100 000 characters each, found by a real walk
and drill: every line of `watch`, `drill`, `changes` and `run --dry-run` that shows them
is cut with an ellipsis to the terminal's width (COLUMNS), or to TEXT_MOST characters
in a pipe; `--format json` keeps them whole."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from perfwalk.cli.terminal import TEXT_MOST
from tests.fixtures.commands import perfwalk
from tests.fixtures.noisy_repo import CONFIG, noisy_history

SUBJECT = "Make it slower " + "s" * 100_000
AUTHOR = "A" * 100_000 + " <long@example.org>"

WALK = """
[[walk]]
name = "nightly"
from = "{first}"
step = "commit/4"

[watch]
drill_builds = 12
drill_repetitions = 300
"""


def _perfwalk(config: Path, *argv: str, columns: int | None = None) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    done = perfwalk("-c", str(config), *argv, env=env, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    return done.returncode, done.stdout


def _longest(out: str) -> int:
    return max(len(line) for line in out.splitlines())


@pytest.mark.slow
def test_a_long_subject_and_author_are_cut_to_the_line(tmp_path: Path) -> None:
    ids = noisy_history(
        tmp_path / "repo",
        commits=24,
        step_at=13,
        size=6,
        salt=5,
        slower=SUBJECT,
        slower_author=AUTHOR,
    )
    config = tmp_path / "perfwalk.toml"
    text = CONFIG.format(repo=tmp_path / "repo") + WALK.format(first=ids[0])
    config.write_text(text, encoding="utf-8")

    # watch, in a pipe: walks, finds the change, drills it to the long commit
    code, out = _perfwalk(config, "watch", "--once")
    assert code == 1, out[-2000:]
    (culprit,) = [line for line in out.splitlines() if "culprit found by drill" in line]
    assert culprit.startswith("  culprit found by drill ")
    assert f"{ids[13][:10]} Make it slower sss" in culprit
    assert (len(culprit), culprit[-1]) == (2 + TEXT_MOST, "…")
    assert _longest(out) < 1000, "a line shows the subject or the author whole"

    # drill: the CULPRIT line, on a terminal of 100 columns and in a pipe
    code, out = _perfwalk(config, "drill", columns=100)
    assert code == 0, out
    (head,) = [line for line in out.splitlines() if "CULPRIT" in line]
    assert head.startswith(f"  CULPRIT {ids[13][:12]} 'Make it slower sss")
    assert (len(head), head[-1]) == (100, "…")
    code, out = _perfwalk(config, "drill")
    (head,) = [line for line in out.splitlines() if "CULPRIT" in line]
    assert (len(head), head[-1]) == (len(f"  CULPRIT {ids[13][:12]} ") + TEXT_MOST, "…")
    code, out = _perfwalk(config, "drill", "--format", "json")
    (drill,) = json.loads(out)["drills"]
    assert drill["subject"] == SUBJECT  # whole

    # changes: its drill's culprit and the commits of the change
    code, out = _perfwalk(config, "changes", columns=80)
    assert code == 1, out  # a regression nobody triaged
    lines = out.splitlines()
    told = [line for line in lines if line.startswith(("  drill ", f"  {ids[13][:10]} "))]
    assert len(told) == 2, told  # the drill's culprit, the commit in the change
    assert all(len(line) == 80 and line.endswith("…") for line in told), told
    assert f"culprit {ids[13][:10]} 'Make it slower sss" in told[0]
    code, out = _perfwalk(config, "changes")
    assert _longest(out) < 1000
    (long,) = [line for line in out.splitlines() if line.startswith(f"  {ids[13][:10]} ")]
    assert long.endswith(" " + "A" * (TEXT_MOST - 1) + "…")
    code, out = _perfwalk(config, "changes", "--format", "json")
    (change,) = json.loads(out)["changes"]
    (commit,) = [c for c in change["commits"] if c["commit"] == ids[13]]
    assert (commit["author"], commit["subject"]) == (AUTHOR, SUBJECT)  # whole

    # the plan of a walk by commit: its subject column
    code, out = _perfwalk(config, "run", "--dry-run", "--step", "commit", "--to", ids[14])
    assert code == 0, out
    (row,) = [line for line in out.splitlines() if "Make it slower" in line]
    assert row.endswith("s" * (TEXT_MOST - len("Make it slower ") - 1) + "…")
