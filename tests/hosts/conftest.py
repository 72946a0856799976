"""A real lab for the ssh host tests (root only; skipped with the reason elsewhere)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from perfwalk.lab import LabPlan
from tests.lab.fixtures import running_lab


@pytest.fixture(scope="session")
def host_lab() -> Iterator[LabPlan]:
    yield from running_lab("pwthost")
