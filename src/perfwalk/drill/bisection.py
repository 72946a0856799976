"""The noise-aware bisection of a drill once the two levels are known: place commits,
confirm the two around the answer, check the step between them and measure them in
turns, then answer (steps 3 to 6 of :mod:`perfwalk.drill.schedule`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from perfwalk.drill.actions import Action, Done, Levels, Placement, Side, Verdict
from perfwalk.drill.evidence import Weigher
from perfwalk.drill.measures import best_split, measure, short, spent
from perfwalk.drill.shift import Shift, rank_shift
from perfwalk.drill.state import DrillState
from perfwalk.quantities import format_change


class Bisection:
    """One call of :func:`next_action` once the two levels are known."""

    def __init__(self, state: DrillState, levels: Levels) -> None:
        self.state = state
        self.levels = levels
        self.weigh = Weigher(state, levels)
        self.placements = self.weigh.placements()
        self.at = {p.position: p for p in self.placements}
        placed = self.placements
        self.lo = max((p.position for p in placed if p.side is Side.BEFORE), default=0)
        self.hi = min((p.position for p in placed if p.side is Side.AFTER), default=state.last)

    def next(self) -> Action:
        state, lo, hi = self.state, self.lo, self.hi
        if lo > hi:
            return self._contradiction()
        interior = range(lo + 1, hi)
        open_ = [p for p in interior if p in self.at and self.at[p].side is Side.OPEN]
        drilled = [p for p in open_ if state.measured.get(p)]
        if drilled:  # finish placing the commit in progress before building another
            position = best_split(drilled, lo, hi, state)
            return self._measure(position, self.weigh.to_place(self.at[position]), "place it")
        fresh = [p for p in interior if p not in self.at]
        if open_ or fresh:
            position = best_split([*open_, *fresh], lo, hi, state)
            return self._measure(
                position,
                self.weigh.to_place(self.at.get(position)),
                f"bisect {short(state, lo)}..{short(state, hi)}",
            )
        for position in (lo, hi):
            if not self.at[position].confirmed:
                return self._confirm(self.at[position])
        return self._level_ends() or self._boundary()

    def _level_ends(self) -> Action | None:
        """More values at an end while it has fewer than a commit around the answer: the
        two levels those commits were held to must be known at least as well as they are."""
        state = self.state
        turns = _turns(state.order, self.lo, self.hi)  # those compare the two directly
        most = max(len(state.values(p)) - turns.count(p) for p in (self.lo, self.hi))
        short = [
            end
            for end in (0, state.last)
            if len(state.values(end)) < min(most, state.settings.max_end_repetitions)
            and end not in state.unbuildable
        ]
        if not short:
            return None
        end = min(short, key=lambda e: len(state.values(e)))
        return self._measure(end, 3, "the levels must be known as well as the answer's commits")

    def _confirm(self, placement: Placement) -> Action:
        """More values at a commit of the boundary, or at the end whose level it must match.

        Once the commit is placed at the verification odds, what is missing is that it
        is clearly at the level of its side rather than short of it; the level is only
        as good as the values at that end, so the end gets values too while it has
        fewer than the commit.
        """
        state, s = self.state, self.state.settings
        end = 0 if placement.side is Side.BEFORE else state.last
        have = len(state.values(end))
        if (
            abs(placement.evidence) >= self.weigh.verify
            and len(placement.values) >= s.min_verify_repetitions
            and have <= len(placement.values)
            and have < s.max_end_repetitions
            and end not in state.unbuildable
        ):
            return self._measure(
                end, 3, f"pin the level {short(state, placement.position)} must match"
            )
        return self._measure(
            placement.position, self.weigh.to_confirm(placement), "confirm the boundary"
        )

    def _contradiction(self) -> Action:
        """A commit placed after the change precedes one placed before it."""
        state, lo, hi = self.state, self.lo, self.hi
        doubtful = [
            p
            for p in self.placements
            if hi <= p.position <= lo and p.side in (Side.BEFORE, Side.AFTER) and not p.confirmed
        ]
        if doubtful:
            return self._confirm(min(doubtful, key=lambda p: abs(p.evidence)))
        return self._done(
            Verdict.UNDECIDED,
            f"not a single step: {short(state, hi)} is at the after level"
            f" but the later {short(state, lo)} is at the before level",
            lo=hi,
            hi=lo,
        )

    def _boundary(self) -> Action:
        """Both ends of the answer are confirmed: does the step between them carry the change?"""
        state, lo, hi, s = self.state, self.lo, self.hi, self.state.settings
        step = rank_shift(state.values(lo), state.values(hi), confidence=s.boundary_confidence)
        # a staircase: the step between the two commits carries only part of the change
        change = self.levels.shift.estimate
        share_low, share_high = sorted((step.low / change, step.high / change))
        if step.estimate / change < s.boundary_share:
            limit = dict.fromkeys((lo, hi), s.max_commit_repetitions)
            limit.update({0: s.max_end_repetitions, state.last: s.max_end_repetitions})
            growing = [
                p
                for p, most in limit.items()
                if p not in state.unbuildable and len(state.values(p)) < most
            ]
            share = f"{step.estimate / change:.0%} [{share_low:.0%}, {share_high:.0%}]"
            if growing:
                position = min(growing, key=lambda p: len(state.values(p)))
                return self._measure(
                    position,
                    3,
                    f"the step at the boundary carries {share} of the change",
                    cap=limit[position],
                )
            return self._done(
                Verdict.UNDECIDED,
                f"not a single step: the step from {short(state, lo)} to"
                f" {short(state, hi)} carries only {share} of the change",
                step=step,
            )
        turns = self._in_turns()
        if turns is not None:
            return turns
        if hi - lo == 1:
            return self._done(
                Verdict.CULPRIT,
                f"{short(state, hi)} is the first commit at the after level and"
                f" {short(state, lo)}, its parent, is at the before level",
                step=step,
            )
        skipped = ", ".join(
            f"{short(state, p)} ({self.at[p].side.value})" for p in range(lo + 1, hi)
        )
        return self._done(
            Verdict.RANGE,
            f"the change is in the {hi - lo} commits after {short(state, lo)} up to"
            f" {short(state, hi)}; could not be placed: {skipped}",
            step=step,
        )

    def _in_turns(self) -> Action | None:
        """The two commits around the answer measured in turns, one repetition at a time,
        until the values taken so differ the change's way; None once they do.

        Runs next to each other are alike on a loaded machine (a load that comes and
        goes, a slow drift): a commit measured in one stretch can look moved only
        because the stretch was loaded, and its evidence, taken value by value, then
        counts one load many times. In turns, a load falls on both commits alike.
        """
        state, s, lo, hi = self.state, self.state.settings, self.lo, self.hi
        ran = _turns(state.order, lo, hi)
        counts = {p: ran.count(p) for p in (lo, hi)}
        if min(counts.values()) >= s.turn_repetitions:
            first, then = (
                state.measured[p][len(state.measured[p]) - counts[p] :] for p in (lo, hi)
            )
            found = rank_shift(first, then)
            if found.p_value <= s.turn_alpha and found.estimate * self.levels.shift.estimate > 0:
                return None
            if min(counts.values()) >= s.max_turn_repetitions:
                return self._done(
                    Verdict.UNDECIDED,
                    f"measured in turns ({counts[lo]} and {counts[hi]} values),"
                    f" {short(state, lo)} and {short(state, hi)} do not differ the way of"
                    f" the change (step"
                    f" {format_change(found.estimate / abs(self.levels.before or 1))},"
                    f" Mann–Whitney p = {found.p_value:.2g}, needed ≤ {s.turn_alpha:g}): what"
                    " set them apart was likely the machine's load, not a commit",
                )
        position = hi if ran and ran[-1] == lo else lo
        cap = len(state.values(position)) + 1
        return measure(
            state, position, 1, "measure the commits around the answer in turns", cap, ends=False
        ) or self._done(Verdict.UNDECIDED, spent(state, position))

    def _measure(
        self, position: int, repetitions: int, reason: str, *, cap: int | None = None
    ) -> Action:
        cap = self.weigh.cap if cap is None else cap
        return measure(self.state, position, repetitions, reason, cap) or self._done(
            Verdict.UNDECIDED, spent(self.state, position)
        )

    def _done(
        self,
        verdict: Verdict,
        reason: str,
        *,
        lo: int | None = None,
        hi: int | None = None,
        step: Shift | None = None,
    ) -> Done:
        lo = self.lo if lo is None else lo
        hi = self.hi if hi is None else hi
        confidence = None
        if verdict in (Verdict.CULPRIT, Verdict.RANGE):
            confidence = (1 - self.levels.shift.p_value) * math.prod(
                1 / (1 + math.exp(-abs(self.at[p].evidence)))
                for p in (lo, hi)
                if p not in (0, self.state.last)
            )
        return Done(
            verdict=verdict,
            lo=lo,
            hi=hi,
            reason=reason,
            levels=self.levels,
            placements=self.placements,
            step=step,
            confidence=confidence,
            builds=self.state.builds_used,
            repetitions=self.state.repetitions_used,
        )


def _turns(order: Sequence[int], lo: int, hi: int) -> list[int]:
    """The last repetitions of ``order`` that ran at ``lo`` and ``hi`` in turns: the
    longest tail of those at the two positions (others may run between them) that
    never has one twice in a row."""
    tail: list[int] = []
    for position in reversed(order):
        if position not in (lo, hi):
            continue
        if tail and tail[-1] == position:
            break
        tail.append(position)
    return tail[::-1]
