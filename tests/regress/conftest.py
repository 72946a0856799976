"""Fixtures of the regress tests: the store URLs of tests/store (SQLite, PostgreSQL),
the chromium of tests/browser, and the sample suites under tests/golden/regress."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.store.conftest import pg_admin, store_url

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "regress"
SOURCES = GOLDEN / "sources"

__all__ = ["GOLDEN", "SOURCES", "pg_admin", "shell_suite", "store_url"]


@pytest.fixture
def shell_suite(tmp_path: Path) -> Path:
    """A copy of the shell suite (one test directory per status) in a fresh directory."""
    target = tmp_path / "suite"
    shutil.copytree(SOURCES / "suite", target)
    return target
