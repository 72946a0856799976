"""[project] branch: the walked line, whatever the clone has checked out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.errors import ConfigError, UsageError
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import CommitSpec, git, make_repo

START = datetime(2024, 3, 1, tzinfo=UTC)
BENCH = '#!/bin/sh\necho "VALUE $(cat value.txt) ms latency"\n'


@pytest.fixture
def two_branches(tmp_path: Path) -> tuple[Path, list[str]]:
    """main: 4 commits of value 100; topic: forks after main's second, 3 commits of 200.

    The clone has topic checked out (HEAD is topic's tip)."""
    spec = [
        CommitSpec(
            date=START,
            message="main 0",
            files={"bench.sh": BENCH, "value.txt": "100\n"},
            executable=("bench.sh",),
        ),
        CommitSpec(date=START + timedelta(hours=1), message="main 1", files={"m": "1\n"}),
        *(
            CommitSpec(
                date=START + timedelta(hours=2 + n),
                message=f"topic {n}",
                files={"value.txt": "200\n", "t": f"{n}\n"},
                branch="topic",
            )
            for n in range(3)
        ),
        *(
            CommitSpec(
                date=START + timedelta(hours=5 + n), message=f"main {n}", files={"m": f"{n}"}
            )
            for n in (2, 3)
        ),
    ]
    repo = tmp_path / "project"
    ids = make_repo(repo, spec)
    git(repo, "checkout", "-q", "topic")
    return repo, ids


def _config(tmp_path: Path, repo: Path, run: str = "") -> Config:
    path = tmp_path / "perfwalk.toml"
    path.write_text(
        f"""\
[project]
repo = "{repo}"
branch = "main"

[build]
steps = []

[run]
step = "commit"
repetitions = 1
{run}

[[test]]
name = "latency"
command = "sh bench.sh"
parser = "value"
""",
        encoding="utf-8",
    )
    return load_config(path)


def test_the_default_to_walks_the_configured_branch_not_the_checked_out_one(
    tmp_path: Path, two_branches: tuple[Path, list[str]]
) -> None:
    repo, ids = two_branches
    main = [ids[0], ids[1], ids[5], ids[6]]
    config = _config(tmp_path, repo)
    result = run_series(config, RunOptions())
    store = Store.open(config.store.url)
    try:
        walked = [row.sha for row in store.checkouts(result.series_id)]
        values = {value.sha: value.value for value in store.values(result.series_id)}
        assert store.series(result.series_id).to_spec == ids[6]
    finally:
        store.close()
    assert walked == main
    assert values == dict.fromkeys(main, 100.0)


def test_a_to_that_is_not_on_the_configured_branch_is_an_error(
    tmp_path: Path, two_branches: tuple[Path, list[str]]
) -> None:
    repo, ids = two_branches
    config = _config(tmp_path, repo, run=f'to = "{ids[3]}"')
    with pytest.raises(ConfigError, match=r"run\.to: .*not on the first-parent line of main"):
        run_series(config, RunOptions())
    with pytest.raises(UsageError, match=r"--to: .*'topic'.*not on the first-parent line of main"):
        run_series(config, RunOptions(to="topic"))
    assert _series(config) == []  # refused before anything was stored


def test_a_to_on_the_configured_branch_ends_the_walk_there(
    tmp_path: Path, two_branches: tuple[Path, list[str]]
) -> None:
    repo, ids = two_branches
    config = _config(tmp_path, repo, run=f'to = "{ids[5]}"')
    result = run_series(config, RunOptions())
    store = Store.open(config.store.url)
    try:
        walked = [row.sha for row in store.checkouts(result.series_id)]
    finally:
        store.close()
    assert walked == [ids[0], ids[1], ids[5]]


def _series(config: Config) -> list[object]:
    store = Store.open(config.store.url)
    try:
        return list(store.list_series())
    finally:
        store.close()
