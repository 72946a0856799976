"""Fixtures of the configuration tests: a directory to write perfwalk.toml files in."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

#: The least a valid file holds: one test.
MINIMAL = """\
[[test]]
name = "latency"
command = "./bench"
parser = "value"
"""

WriteConfig = Callable[[str], Path]


@pytest.fixture
def write_config(tmp_path: Path) -> WriteConfig:
    """Write a (dedented) perfwalk.toml into a fresh directory ``demo``; return its path."""
    folder = tmp_path / "demo"
    folder.mkdir()

    def write(text: str) -> Path:
        path = folder / "perfwalk.toml"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write
