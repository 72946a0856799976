"""The lab of the lab tests, and perfwalk.toml files that use it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.lab import LabPlan
from tests.fixtures.synthetic_repo import CommitSpec, make_repo
from tests.lab.fixtures import running_lab


@pytest.fixture(scope="session")
def lab() -> Iterator[LabPlan]:
    yield from running_lab("pwtlab")


@pytest.fixture(scope="session")
def lab_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project of two commits (what is measured does not depend on it)."""
    path = tmp_path_factory.mktemp("labrepo") / "repo"
    make_repo(
        path,
        [
            CommitSpec(datetime(2024, 1, 1, tzinfo=UTC), "first", {"a.txt": "1\n"}),
            CommitSpec(datetime(2024, 1, 2, tzinfo=UTC), "second", {"a.txt": "2\n"}),
        ],
    )
    return path


LabConfig = Callable[[str], Config]


@pytest.fixture
def lab_config(lab: LabPlan, lab_repo: Path, tmp_path: Path) -> LabConfig:
    """Write a perfwalk.toml with the lab's [hosts], the project, and ``body``."""

    def make(body: str, name: str = "perfwalk.toml") -> Config:
        path = tmp_path / name
        path.write_text(
            lab.hosts_toml()
            + f'\n[project]\nrepo = "{lab_repo}"\n\n[store]\nurl = "sqlite:///{tmp_path}/perfwalk.db"\n'
            + "\n[build]\nsteps = []\n"
            + body,
            encoding="utf-8",
        )
        return load_config(path)

    return make
