"""The drill of noise-free values (a break's: 1.0 where a build or a test fails, 0.0
where it passes): one value places a commit, a plain bisection."""

from __future__ import annotations

from perfwalk.drill.actions import Action, Done, Placement, Side, Verdict
from perfwalk.drill.ends import stop_at_ends
from perfwalk.drill.measures import best_split, measure, short, spent
from perfwalk.drill.state import DrillState

#: the sides a noise-free value confirms
_PLACED = frozenset({Side.BEFORE, Side.AFTER})


def exact_action(state: DrillState) -> Action:
    """The bisection of noise-free values: each end measured once (ends alike:
    ``NO_CHANGE``), then the commit that best halves the range between the last placed
    at the before level and the first placed at the after level, one value each, until
    they are neighbours (``CULPRIT``) or only skipped commits lie between (``RANGE``)."""
    last = state.last
    for end in (0, last):
        if not state.values(end):
            if end in state.unbuildable:
                return stop_at_ends(
                    state,
                    Verdict.UNDECIDED,
                    f"{short(state, end)} (an end) gave no status: choose other ends",
                )
            return measure(state, end, 1, "the ends need a status", 1) or stop_at_ends(
                state, Verdict.UNDECIDED, spent(state, end)
            )
    ends = set(state.values(0)), set(state.values(last))
    told = f"{short(state, 0)} gave {state.values(0)}, {short(state, last)} {state.values(last)}"
    if len(ends[0]) > 1 or len(ends[1]) > 1:
        return stop_at_ends(state, Verdict.UNDECIDED, f"an end is not one level: {told}")
    if ends[0] == ends[1]:
        return stop_at_ends(state, Verdict.NO_CHANGE, f"the two ends do not differ: {told}")
    (before,), (after,) = ends
    placements = []
    for position in range(last + 1):
        values = state.values(position)
        if not values and position not in state.unbuildable:
            continue
        side = Side.UNBUILDABLE if not values else Side.BETWEEN
        if values and set(values) == {before}:
            side = Side.BEFORE
        elif values and set(values) == {after}:
            side = Side.AFTER
        evidence = {Side.BEFORE: -1.0, Side.AFTER: 1.0}.get(side, 0.0)
        placements.append(
            Placement(position, state.line[position], values, side, evidence, side in _PLACED)
        )
    lo = max(p.position for p in placements if p.side is Side.BEFORE)
    hi = min(p.position for p in placements if p.side is Side.AFTER)

    def done(verdict: Verdict, reason: str, first: int = lo, then: int = hi) -> Done:
        sure = verdict in (Verdict.CULPRIT, Verdict.RANGE)
        return Done(
            verdict=verdict,
            lo=first,
            hi=then,
            reason=reason,
            levels=None,
            placements=tuple(placements),
            step=None,
            confidence=1.0 if sure else None,
            builds=state.builds_used,
            repetitions=state.repetitions_used,
        )

    if lo > hi:
        return done(
            Verdict.UNDECIDED,
            f"not a single step: {short(state, hi)} is at the after level but the later"
            f" {short(state, lo)} is at the before level",
            hi,
            lo,
        )
    placed = {p.position for p in placements}
    fresh = [p for p in range(lo + 1, hi) if p not in placed]
    if fresh:
        position = best_split(fresh, lo, hi, state)
        why = f"bisect {short(state, lo)}..{short(state, hi)}"
        return measure(state, position, 1, why, 1, ends=False) or done(
            Verdict.UNDECIDED, spent(state, position)
        )
    if hi - lo == 1:
        return done(
            Verdict.CULPRIT,
            f"{short(state, hi)} is the first commit at the after level and"
            f" {short(state, lo)}, its parent, is at the before level",
        )
    at = {p.position: p for p in placements}
    skipped = ", ".join(f"{short(state, p)} ({at[p].side.value})" for p in range(lo + 1, hi))
    return done(
        Verdict.RANGE,
        f"the change is in the {hi - lo} commits after {short(state, lo)} up to"
        f" {short(state, hi)}; could not be placed: {skipped}",
    )
