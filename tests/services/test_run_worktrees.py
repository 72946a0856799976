"""A walk's worktrees are its own: two configs in one folder walk at the same time
without measuring each other's checkouts, and a worktree changed under a walk stops
it before anything is stored under the wrong commit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.errors import GitError
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory

#: Each commit's benchmark prints the commit's position on the line: a value stored
#: under another commit is seen at once.
POSITION = "sleep 0.02; echo VALUE $(cat commit.txt) n position"

CONFIG = """\
[project]
repo = "{repo}"

[store]
url = "sqlite:///{db}"

[build]
steps = ["sleep 0.05"]

[run]
step = "commit"
repetitions = 2

[[test]]
name = "where"
command = "{command}"
parser = "value"
"""


def _write(folder: Path, name: str, repo: Path, command: str = POSITION) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(CONFIG.format(repo=repo, db=f"{name}.db", command=command), encoding="utf-8")
    return path


def _misplaced(db: Path, known: KnownHistory) -> tuple[int, int]:
    """(values stored under the wrong commit, values stored) of series 1."""
    with Store.open(f"sqlite:///{db}") as store:
        values = store.values(1)
    wrong = sum(1 for v in values if v.value != known.index(v.sha))
    return wrong, len(values)


@pytest.mark.slow
def test_two_configs_in_one_folder_walk_at_once_each_in_its_own_worktrees(
    tmp_path: Path, known_values_repo_copy: KnownHistory
) -> None:
    known = known_values_repo_copy
    folder = tmp_path / "lab"
    folder.mkdir()
    configs = [_write(folder, name, known.path) for name in ("first", "second")]
    walks = [
        subprocess.Popen(
            [sys.executable, "-m", "perfwalk", "run", "-c", str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for path in configs
    ]
    errors = [walk.communicate(timeout=280)[1].decode(errors="replace") for walk in walks]
    figures = {name: _misplaced(folder / f"{name}.db", known) for name in ("first", "second")}
    print(f"(values under a wrong commit, values stored) per config: {figures}")
    every = 2 * len(known.first_parent)
    assert figures == {"first": (0, every), "second": (0, every)}
    assert [walk.returncode for walk in walks] == [0, 0], errors
    assert not any((folder / ".perfwalk" / "worktrees").iterdir())  # both removed theirs


@pytest.mark.parametrize(
    ("meddle", "says"),
    [
        ("git checkout -q --detach HEAD~1", "is at commit {other}, not at {commit}"),
        ('mv "$PWD" "$PWD.away"', "the worktree {worktree} for commit {commit} is gone"),
    ],
    ids=["checked-out", "moved"],
)
def test_a_worktree_changed_under_the_walk_stops_it_before_a_wrong_value_is_stored(
    tmp_path: Path, known_values_repo_copy: KnownHistory, meddle: str, says: str
) -> None:
    known = known_values_repo_copy
    # after repetition 0 of checkout 1, something else moves the worktree
    command = (
        f"{POSITION}; if [ $PERFWALK_CHECKOUT = 1 ] && [ $PERFWALK_REPETITION = 0 ];"
        f" then {meddle}; fi"
    )
    config = load_config(_write(tmp_path, "walk", known.path, command.replace('"', '\\"')))
    with pytest.raises(GitError) as raised:
        run_series(config, RunOptions(from_="2024-01-02", to="2024-01-03"))
    with Store.open(config.store.url) as store:
        (series,) = store.list_series()
        checkouts = store.checkouts(series.id)
        values = store.values(series.id)
        assert series.state == "interrupted"
    commit = checkouts[1].sha
    worktree = next(config.store.worktrees.glob("series-1-*")) / "build"
    other = known.first_parent[known.index(commit) - 1]
    expected = says.format(commit=commit[:12], other=other[:12], worktree=worktree)
    assert expected in str(raised.value)
    assert "nothing was stored for this repetition" in str(raised.value)
    assert [(v.sha, v.value) for v in values] == [
        (checkouts[0].sha, known.index(checkouts[0].sha)),
        (checkouts[0].sha, known.index(checkouts[0].sha)),
        (commit, known.index(commit)),
    ]
