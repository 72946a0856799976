"""What one drill narrows: its two ends, the test and value, where it was seen."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from perfwalk.store.regress import REGRESS_KIND


@dataclass(frozen=True)
class DrillTarget:
    """What one drill narrows: the two ends, the test and value, where it was seen.

    ``before`` is the last commit known at the old level, ``after`` the first known
    at the new one (full ids, on the walked first-parent line); ``change`` is how
    the change was seen, stored with the drill.
    """

    before: str
    after: str
    test: str
    name: str
    parent: int | None
    change: Mapping[str, Any]

    @property
    def metric(self) -> str:
        return f"{self.test}.{self.name}"

    @property
    def broke(self) -> str:
        """A break's kind (build, test: bisected on its status, noise-free); "" for a
        speed change."""
        return str(self.change.get("broke") or "")

    @property
    def regress(self) -> bool:
        """A break of a regress test: the suite's test run in a checkout of each commit."""
        return self.change.get("suite") == REGRESS_KIND
