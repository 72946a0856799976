"""The two ends of a drill's line: the levels before and after the change they give,
the repetitions they still need, or the drill stopped there (ends alike, a change
ruled out, a budget spent)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import median, stdev

from perfwalk.drill.actions import Action, Done, Levels, Verdict
from perfwalk.drill.measures import measure, short, spent
from perfwalk.drill.noise import without_spikes
from perfwalk.drill.shift import Shift, rank_shift
from perfwalk.drill.state import DrillState
from perfwalk.quantities import format_change


def levels_of_ends(state: DrillState) -> Levels | Action:
    """The two levels from the ends, or the repetitions the ends still need."""
    s = state.settings
    last = state.last
    for end in (0, last):
        have = len(state.values(end))
        if have < s.min_end_repetitions and end not in state.unbuildable:
            wanted = s.min_end_repetitions - have
            return measure(state, end, wanted, "the ends need values", 0) or stop_at_ends(
                state, Verdict.UNDECIDED, spent(state, end)
            )
    before, after = state.values(0), state.values(last)
    if len(before) < 2 or len(after) < 2:
        end = 0 if len(before) < 2 else last
        return stop_at_ends(
            state,
            Verdict.UNDECIDED,
            f"{short(state, end)} (an end) has {len(state.values(end))} values"
            " and does not build: rebuild it or choose other ends",
        )
    shift = rank_shift(before, after, confidence=0.95)
    growing = [
        end
        for end in (0, last)
        if end not in state.unbuildable and len(state.values(end)) < s.max_end_repetitions
    ]
    # the ends are looked at after every batch: each look but the last at a margin
    alpha = s.ends_alpha / s.ends_looks if growing else s.ends_alpha
    if shift.p_value <= alpha:  # told apart: bisect
        return _make_levels(before, after, shift)
    ruled_out = _ruled_out(state, before, after)
    if ruled_out is not None:
        return stop_at_ends(state, Verdict.NO_CHANGE, ruled_out, shift=shift)
    if growing:
        end = min(growing, key=lambda e: len(state.values(e)))
        wanted = min(3, s.max_end_repetitions - len(state.values(end)))
        why = f"the ends are not told apart yet (Mann–Whitney p = {shift.p_value:.2g})"
        return measure(state, end, wanted, why, 0) or stop_at_ends(
            state, Verdict.UNDECIDED, spent(state, end)
        )
    return stop_at_ends(
        state,
        Verdict.NO_CHANGE,
        f"the two ends do not differ convincingly ({len(before)} and {len(after)}"
        f" values, Mann–Whitney p = {shift.p_value:.2g} > {alpha:g})",
        shift=shift,
    )


def _ruled_out(state: DrillState, before: Sequence[float], after: Sequence[float]) -> str | None:
    """Why the ends rule out the change that was reported, or None: the shift between
    them, at ``rule_out_confidence``, stays below ``rule_out_share`` of it (a sequential
    stop: more values could only confirm that the two ends are alike)."""
    s, expected = state.settings, state.expected
    level = abs(median(before))
    if expected is None or not expected or not math.isfinite(expected) or not level:
        return None
    found = rank_shift(before, after, confidence=s.rule_out_confidence)
    low, high = found.low / level, found.high / level
    limit = s.rule_out_share * expected
    if (expected > 0 and high < limit) or (expected < 0 and low > limit):
        return (
            f"the two ends rule out the change reported ({format_change(expected)}): measured"
            f" again ({len(before)} and {len(after)} values) they differ by"
            f" {format_change(low)} … {format_change(high)} at {s.rule_out_confidence:.0%},"
            f" less than {s.rule_out_share:.0%} of it"
        )
    return None


def _make_levels(before: Sequence[float], after: Sequence[float], shift: Shift) -> Levels:
    pool = without_spikes(sorted([*before, *(v - shift.estimate for v in after)]))
    centre = median(pool)
    return Levels(before=centre, after=centre + shift.estimate, shift=shift, noise=stdev(pool))


def stop_at_ends(
    state: DrillState, verdict: Verdict, reason: str, *, shift: Shift | None = None
) -> Done:
    levels = None
    if shift is not None:
        levels = _make_levels(state.values(0), state.values(state.last), shift)
    return Done(
        verdict=verdict,
        lo=0,
        hi=state.last,
        reason=reason,
        levels=levels,
        placements=(),
        step=None,
        confidence=None,
        builds=state.builds_used,
        repetitions=state.repetitions_used,
    )
