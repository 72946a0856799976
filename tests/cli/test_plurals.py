"""Counts in terminal output agree with their number: "1 build", never "1 builds"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from perfwalk.quantities import many
from tests.fixtures.noisy_repo import CONFIG, noisy_history
from tests.fixtures.terminal import terminal_env


def test_many_says_one_in_the_singular() -> None:
    assert many(1, "build") == "1 build"
    assert [many(n, "build") for n in (0, 2)] == ["0 builds", "2 builds"]
    assert many("2 to 8", "repetition") == "2 to 8 repetitions"
    assert many(1, "series") == "1 series"


def test_a_walk_of_one_checkout_says_it_in_the_singular(tmp_path: Path) -> None:
    ids = noisy_history(tmp_path / "repo", commits=3, step_at=2, size=0, salt=1)
    (tmp_path / "perfwalk.toml").write_text(CONFIG.format(repo=tmp_path / "repo"))
    one = ["--from", ids[1], "--to", ids[1], "-n", "1"]

    def perfwalk(*argv: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "perfwalk", *argv],
            cwd=tmp_path,
            env=terminal_env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        print(done.stdout)
        return done.stdout

    planned = perfwalk("run", "--dry-run", *one)
    assert ": 1 checkout from " in planned
    assert ", 1 repetition each," in planned
    assert "it would run 1 build and 1 repetition;" in planned
    walked = perfwalk("run", *one)
    assert "finished: 1 checkout × 1 repetition; worst status PASS" in walked
    assert ", 1 repetition, between keep" in perfwalk("status")
