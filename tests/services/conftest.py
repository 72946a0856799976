"""A walkable project: the known-values repository and a config beside it; a real
CPU load."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.config.model import Config
from tests.fixtures.hogs import Hogs
from tests.fixtures.synthetic_repo import KnownHistory

BASE = """\
[project]
repo = "{repo}"

[build]
steps = ["sh build.sh"]
timeout = 30

[run]
step = "1day"
repetitions = {repetitions}
{run}
[analysis]
# the values are bench.sh's, known, not measured: the load of a machine shared with
# other tests must not make a change suspect (what load does: test_machine_load.py)
suspect_load = false

[[test]]
name = "latency"
command = "{command}"
parser = "value"
timeout = {timeout}
{extra}
"""

MakeConfig = Callable[..., Config]


@pytest.fixture
def make_config(tmp_path: Path, known_values_repo_copy: KnownHistory) -> MakeConfig:
    """Write perfwalk.toml for the known-values project and load it."""

    def make(
        *,
        command: str = "sh bench.sh",
        timeout: float = 30,
        run: str = "",
        extra: str = "",
        repetitions: str = "2",
    ) -> Config:
        path = tmp_path / "perfwalk.toml"
        path.write_text(
            BASE.format(
                repo=known_values_repo_copy.path,
                command=command,
                timeout=timeout,
                run=run,
                extra=extra,
                repetitions=repetitions,
            ),
            encoding="utf-8",
        )
        return load_config(path)

    return make


@pytest.fixture
def hogs() -> Iterator[Hogs]:
    """A real CPU load the test starts and stops (every process stopped at its end)."""
    found = Hogs()
    try:
        yield found
    finally:
        found.stop()
