"""The evidence at each commit of a drill's line: how much likelier its values are at
the level after the change than before it, and at a rival level than at their own."""

from __future__ import annotations

import math

from perfwalk.drill.actions import Levels, Placement, Side
from perfwalk.drill.noise import NoiseModel
from perfwalk.drill.state import DrillState

_Z95 = 1.959964


class Weigher:
    """The evidence at each commit, against the two levels learned from the ends."""

    def __init__(self, state: DrillState, levels: Levels) -> None:
        self.state = state
        s = state.settings
        self.search = math.log(s.search_odds)
        self.verify = math.log(s.verify_odds)
        self.between = math.log(s.between_odds)
        self.rival = math.log(s.rival_odds)
        self.limit = s.max_sample_evidence
        self.change = levels.shift.estimate
        self.model = NoiseModel.from_ends(
            state.values(0),
            state.values(state.last),
            self.change,
            shift_error=levels.shift.half_width / _Z95,
            spike_fraction=s.spike_fraction,
        )
        # evidence one repetition adds on average (pool values are draws at the before level)
        densities = [self._densities(y) for y in self.model.pool]
        self.per_value = max(
            math.fsum(self._clip(d[0] - d[1]) for d in densities) / len(densities), 0.05
        )
        expected = math.ceil(s.commit_repetitions_factor * self.verify / self.per_value)
        self.cap = min(max(expected, 10, s.min_verify_repetitions), s.max_commit_repetitions)

    def _clip(self, value: float) -> float:
        return min(max(value, -self.limit), self.limit)

    def _densities(self, x: float) -> tuple[float, float, float, float]:
        """Log densities of ``x`` at the before level, the after level, and at the two
        rival levels ``rival_share`` of the way from each level to the other."""
        density, change = self.model.log_density, self.change
        share = self.state.settings.rival_share
        return (
            density(x),
            density(x - change),
            density(x - share * change),
            density(x - (1 - share) * change),
        )

    def placements(self) -> tuple[Placement, ...]:
        state = self.state
        positions = sorted(
            {p for p in range(state.last + 1) if state.values(p)} | state.unbuildable
        )
        return tuple(self._place(p) for p in positions)

    def _place(self, position: int) -> Placement:
        state, s = self.state, self.state.settings
        values = state.values(position)
        commit = state.line[position]
        if position in (0, state.last):
            side = Side.BEFORE if position == 0 else Side.AFTER
            return Placement(position, commit, values, side, 0.0, confirmed=True)
        if not values:
            return Placement(position, commit, values, Side.UNBUILDABLE, 0.0, confirmed=False)
        evidence = at_before = at_after = 0.0
        for x in values:
            before, after, rival_of_before, rival_of_after = self._densities(x)
            evidence += self._clip(after - before)
            at_before += self._clip(before - rival_of_before)
            at_after += self._clip(after - rival_of_after)
        if at_before <= -self.between and at_after <= -self.between:
            side = Side.BETWEEN
        elif evidence >= self.search:
            side = Side.AFTER
        elif evidence <= -self.search:
            side = Side.BEFORE
        else:
            side = Side.OPEN
        confirmed = (abs(evidence) >= self.verify and len(values) >= s.min_verify_repetitions) and (
            (side is Side.BEFORE and at_before >= self.rival)
            or (side is Side.AFTER and at_after >= self.rival)
        )
        stuck = len(values) >= self.cap or position in state.unbuildable
        if stuck and side is not Side.BETWEEN and not confirmed:
            side = Side.UNPLACED
        return Placement(position, commit, values, side, evidence, confirmed)

    def to_place(self, placement: Placement | None) -> int:
        """Repetitions likely to place a commit for the search."""
        if placement is None:
            return max(2, self._batch(self.search / self.per_value))
        return self._batch((self.search - abs(placement.evidence)) / self.per_value)

    def to_confirm(self, placement: Placement) -> int:
        """Repetitions likely to confirm a placed commit."""
        missing = self.state.settings.min_verify_repetitions - len(placement.values)
        return self._batch(max((self.verify - abs(placement.evidence)) / self.per_value, missing))

    def _batch(self, estimate: float) -> int:
        return min(max(math.ceil(estimate), 1), self.state.settings.max_batch)
