"""Fixtures of the parser tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def short_folder() -> Iterator[Path]:
    """A new folder with a short path: fs_mark refuses a -d of 40 bytes or more."""
    folder = Path(tempfile.mkdtemp(prefix="pwfs", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder)
