"""One demo project for the whole folder, and builds of its commits."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from perfwalk.demo import DemoProject, create_project

#: build(commit, patched) -> (the make run, the folder it ran in)
Build = Callable[[str, bool], tuple[subprocess.CompletedProcess[str], Path]]


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoProject:
    return create_project(tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="session")
def build(demo: DemoProject, tmp_path_factory: pytest.TempPathFactory) -> Build:
    """Build a commit of the demo in a folder of its own (once per commit and patch)."""
    done: dict[tuple[str, bool], tuple[subprocess.CompletedProcess[str], Path]] = {}
    base = tmp_path_factory.mktemp("builds")

    def run(commit: str, patched: bool) -> tuple[subprocess.CompletedProcess[str], Path]:
        if (commit, patched) not in done:
            folder = base / f"{commit[:12]}{'-patched' if patched else ''}"
            export(demo, commit, folder)
            if patched:
                subprocess.run(["git", "apply", str(demo.quirk.patch)], cwd=folder, check=True)
            made = subprocess.run(
                ["make", "-s"], cwd=folder, capture_output=True, text=True, check=False
            )
            done[commit, patched] = (made, folder)
        return done[commit, patched]

    return run


def export(demo: DemoProject, commit: str, folder: Path) -> None:
    """The files of ``commit`` in ``folder`` (no .git: a plain source tree)."""
    folder.mkdir(parents=True)
    archive = folder.with_suffix(".tar")
    git(demo, "archive", "-o", str(archive), commit)
    subprocess.run(["tar", "-xf", str(archive), "-C", str(folder)], check=True)
    archive.unlink()


def git(demo: DemoProject, *args: str) -> str:
    result = subprocess.run(
        ["git", "-C", str(demo.repo), *args], capture_output=True, text=True, check=True
    )
    return result.stdout
