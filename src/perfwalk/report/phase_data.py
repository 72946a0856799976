"""What the checkout page shows of the phases of each repetition: every step they ran
(startup, run commands, snapshots, collect, fetched files, services, reset) and the
difference of each ``[[snapshot]]``'s counters, as the ``ph`` member of a checkout's
entry in its block's data file (``checkouts-<block>.js``).

- ``s``: the steps, each ``[id, repetition, test, phase, role, host, kind, name,
  command, status, message, exit code, seconds, stdout log id, stderr log id]``
  (their outputs are in the block's logs file, as the results' are);
- ``n``: the snapshots, each ``[repetition, test, name, role, host, status, message,
  changed, new, gone, same]``: ``changed`` ``[[counter, before, after, Δ]…]`` the
  largest change first, ``new`` ``[[counter, after]…]``, ``gone`` ``[[counter,
  before]…]``, ``same`` ``[[counter, value]…]``; numbers as decimal text, exact
  however large.

Publishing reads both from the store by block (two queries), never from the logs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from perfwalk.analysis.counters import Change, Number, difference
from perfwalk.model import Status
from perfwalk.store.site_reads import SnapshotSite, StepSite

_NAMES = {int(status): status.name for status in Status}


def phases_json(steps: Sequence[StepSite], snapshots: Sequence[SnapshotSite]) -> str:
    """The ``ph`` member of one checkout's entry ("" when it has neither)."""
    if not steps and not snapshots:
        return ""
    document = {
        "s": [_step(step) for step in steps],
        "n": [_snapshot(snapshot) for snapshot in snapshots],
    }
    return json.dumps(document, separators=(",", ":"), allow_nan=False)


def step_logs(steps: Sequence[StepSite]) -> list[int]:
    """The log ids of ``steps``' outputs."""
    return [log for step in steps for log in (step.stdout_log_id, step.stderr_log_id)]


def _step(step: StepSite) -> list[Any]:
    return [
        step.id,
        step.repetition_idx,
        step.test,
        step.phase,
        step.role,
        step.host,
        step.kind,
        step.name,
        step.command,
        _NAMES.get(step.status, str(step.status)),
        step.message,
        step.exit_code,
        round(step.seconds, 3),
        step.stdout_log_id,
        step.stderr_log_id,
    ]


def _snapshot(snapshot: SnapshotSite) -> list[Any]:
    changes = difference(_counters(snapshot.before), _counters(snapshot.after))
    by_kind: dict[Change, list[list[str]]] = {kind: [] for kind in Change}
    for c in changes:
        if c.change is Change.CHANGED:
            row = [c.name, _text(c.before), _text(c.after), _signed(c.delta)]
        elif c.change is Change.NEW:
            row = [c.name, _text(c.after)]
        else:
            row = [c.name, _text(c.before)]
        by_kind[c.change].append(row)
    return [
        snapshot.repetition_idx,
        snapshot.test,
        snapshot.name,
        snapshot.role,
        snapshot.host,
        _NAMES.get(snapshot.status, str(snapshot.status)),
        snapshot.message,
        by_kind[Change.CHANGED],
        by_kind[Change.NEW],
        by_kind[Change.GONE],
        by_kind[Change.SAME],
    ]


def _counters(stored: Mapping[str, Any] | None) -> dict[str, Number]:
    """The stored counters (numbers only: a store edited by hand cannot break a page)."""
    if not stored:
        return {}
    return {str(name): value for name, value in stored.items() if _is_number(value)}


def _is_number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def _text(value: Number | None) -> str:
    if value is None:
        return ""
    return str(value) if isinstance(value, int) else repr(value)


def _signed(value: Number | None) -> str:
    text = _text(value)
    return text if text.startswith("-") else "+" + text
