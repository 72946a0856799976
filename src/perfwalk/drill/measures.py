"""The measures the drill's scheduler asks for, within its budget and a cap per
commit, and how its reasons name them: the commit that best halves a range, a
commit's short id, the budget that is spent."""

from __future__ import annotations

from collections.abc import Sequence

from perfwalk.drill.actions import Measure
from perfwalk.drill.state import DrillState
from perfwalk.quantities import many


def measure(
    state: DrillState, position: int, wanted: int, reason: str, cap: int, *, ends: bool = True
) -> Measure | None:
    """A request within the budget and ``cap`` values at a commit (the ends have theirs,
    ``max_end_repetitions``, unless ``ends`` is false).

    None when the budget does not allow it.
    """
    budget, s = state.budget, state.settings
    if not state.measured.get(position) and state.builds_used >= budget.max_builds:
        return None
    if ends and position in (0, state.last):
        cap = s.max_end_repetitions
    room = min(
        budget.max_repetitions - state.repetitions_used,
        cap - len(state.values(position)),
    )
    if room <= 0:
        return None
    return Measure(position, state.line[position], min(wanted, room), reason)


def spent(state: DrillState, position: int) -> str:
    """Why nothing more is measured at ``position``: which part of the budget is spent."""
    budget = state.budget
    if not state.measured.get(position) and state.builds_used >= budget.max_builds:
        return f"the budget of {many(budget.max_builds, 'build')} is spent"
    return f"the budget of {budget.max_repetitions} repetitions is spent"


def best_split(candidates: Sequence[int], lo: int, hi: int, state: DrillState) -> int:
    """The candidate leaving the smallest worst-case range; stored values break ties."""
    return min(
        candidates,
        key=lambda p: (max(p - lo, hi - p), not state.stored.get(p), p),
    )


def short(state: DrillState, position: int) -> str:
    """The commit at ``position`` as a reason names it: its id's first 12 digits."""
    return state.line[position][:12]
