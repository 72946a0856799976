"""``perfwalk changes`` opens on what needs a person: the untriaged regressions, newest
first, and a line counting what it left out (improvements, triaged changes); ``--all``
lists every change; the exit status weighs them all either way.

The store is made by a real walk of a real repository whose benchmark prints seeded
values (tests/fixtures/noisy_repo.py, sd 1 ms): 100 ms, 125 ms from commit 6 (a
regression), 110 ms from commit 12 (an improvement), 140 ms from commit 18 (a
regression)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perfwalk.cli import exits
from tests.fixtures.noisy_repo import CONFIG, add_noisy_commits, noisy_history
from tests.fixtures.terminal import terminal_env


def _level(i: int) -> float:
    return 110 if i < 18 else 140


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("view")
    noisy_history(path / "repo", commits=12, step_at=6, size=25, salt=7)
    add_noisy_commits(path / "repo", 12, _level, count=12, slower_at=18)
    (path / "perfwalk.toml").write_text(CONFIG.format(repo=path / "repo"), encoding="utf-8")
    done = _perfwalk(path, "run")
    assert done.returncode in (exits.OK, exits.FOUND), done.stdout + done.stderr
    return path


def _perfwalk(path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "perfwalk", *argv],
        cwd=path,
        env=terminal_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _heads(text: str) -> list[str]:
    """The first words of each change's head line: "REGRESSION 1:18"."""
    words = ("REGRESSION ", "IMPROVEMENT ", "MIXED ")
    return [" ".join(line.split()[:2]) for line in text.splitlines() if line.startswith(words)]


def test_changes_opens_on_the_untriaged_regressions_newest_first(walked: Path) -> None:
    every = _perfwalk(walked, "changes", "--all")
    print(every.stdout)
    assert _heads(every.stdout) == ["REGRESSION 1:6", "IMPROVEMENT 1:12", "REGRESSION 1:18"]
    assert "not shown" not in every.stdout
    shown = _perfwalk(walked, "changes")
    print(shown.stdout)
    assert _heads(shown.stdout) == ["REGRESSION 1:18", "REGRESSION 1:6"]
    assert shown.stdout.rstrip().endswith(
        "not shown: 1 improvement (perfwalk changes --all lists them)"
    )
    assert shown.returncode == every.returncode == exits.FOUND


def test_a_triaged_regression_leaves_the_default_view_and_is_counted(walked: Path) -> None:
    for change in ("1:6", "1:18"):
        done = _perfwalk(
            walked, "triage", change, "--state", "expected", "--reason", "a known cost"
        )
        assert done.returncode == 0, done.stdout + done.stderr
    shown = _perfwalk(walked, "changes")
    print(shown.stdout)
    assert _heads(shown.stdout) == []
    assert shown.stdout.startswith("no untriaged regression found")  # never "no changes"
    assert "not shown: 1 improvement, 2 triaged (perfwalk changes --all lists them)" in (
        shown.stdout
    )
    assert shown.returncode == exits.OK  # the same with --all: triage explains them
    every = _perfwalk(walked, "changes", "--all")
    assert _heads(every.stdout) == ["REGRESSION 1:6", "IMPROVEMENT 1:12", "REGRESSION 1:18"]
    assert every.stdout.count("triage: expected by ") == 2
    assert every.returncode == exits.OK
