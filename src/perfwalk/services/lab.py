"""The lab use cases: ``perfwalk lab up|down|status`` (see :mod:`perfwalk.lab`)."""

from __future__ import annotations

import json
from pathlib import Path

from perfwalk.lab import LabStatus, lab_down, lab_plan, lab_status, lab_up
from perfwalk.lab.build import check_can_build, other_labs
from perfwalk.lab.plan import DEFAULT_NAME, DEFAULT_REBOOT_DELAY


def up(
    name: str = DEFAULT_NAME,
    *,
    prefix: str | None = None,
    directory: Path | None = None,
    reboot_delay: float = DEFAULT_REBOOT_DELAY,
) -> LabStatus:
    """Make lab ``name`` (idempotent) and return what exists afterwards.

    Without a prefix, the one it was made with (its state file), else a free one.
    """
    first = lab_plan(name, prefix, directory, reboot_delay)
    if prefix is None:
        prefix = _prefix_of(name, directory)
    taken = tuple(other_labs(first).values())
    return lab_up(lab_plan(name, prefix, directory, reboot_delay, taken=taken))


def down(name: str = DEFAULT_NAME, *, directory: Path | None = None) -> LabStatus:
    """Remove lab ``name``; the prefix does not matter for removal but the route's."""
    plan = lab_plan(name, _prefix_of(name, directory), directory)
    return lab_down(plan)


def status(name: str = DEFAULT_NAME, *, directory: Path | None = None) -> LabStatus:
    """What exists of lab ``name``, with an ``ssh true`` to each namespace."""
    check_can_build()
    return lab_status(lab_plan(name, _prefix_of(name, directory), directory), probe=True)


def _prefix_of(name: str, directory: Path | None) -> str | None:
    """The prefix the lab was made with (its state file says), else the default."""
    plan = lab_plan(name, None, directory)
    try:
        state = json.loads(plan.state_file.read_text())
    except (OSError, ValueError):
        return None
    prefix = state.get("prefix") if isinstance(state, dict) else None
    return prefix if isinstance(prefix, str) else None
