"""Where to measure next while drilling a change down to one commit.

Pure: numbers in, one decision out; no I/O, no clock, no randomness. The executor
builds a :class:`DrillState`, calls :func:`next_action`, runs what it asks for (or
records that the commit does not build), and calls again until it gets a
:class:`Done`.

The search, in the order it happens:

1. **The ends.** The last checkout before the change (position 0) and the first
   after it (the last position) define the two levels and the noise, so each
   needs ``min_end_repetitions`` values first. They must differ
   convincingly (two-sided Mann–Whitney); the ends are looked at after every batch,
   so each look but the last (at ``max_end_repetitions`` values each) is held to
   ``ends_alpha / ends_looks`` and the last to ``ends_alpha``: ends alike are taken
   for different at most about ``ends_alpha`` of the time. As soon as they differ
   the bisection starts — further repetitions go to the commits between, not to
   the ends (the change is known only roughly in heavy noise: that is carried on as
   wider kernels, and the ends get more values only when the commits around the
   answer have more, step 5). Until they differ, more repetitions are asked for at
   the ends, up to ``max_end_repetitions`` each; ends that never differ give
   ``NO_CHANGE``.
2. **The noise.** The values at both ends (those after the change moved back by it)
   are one pool of draws from the before level; its kernel density estimate is the
   noise shape (:mod:`perfwalk.drill.noise`): spikes and bimodal noise are
   learned, not assumed away, and the kernels are widened by the uncertainty of
   the change.
3. **Placing a commit.** Every repetition at a commit adds its log-likelihood ratio
   "after level" over "before level", clipped at ``max_sample_evidence`` so that
   no single value decides. A commit is placed when the sum reaches
   ``log(search_odds)`` either way: repetitions are added only while it is not
   placed yet (a sequential probability ratio test), a few at a time.
4. **Bisection.** The change lies between the last commit placed before it and the
   first placed after it; the next commit tried is the one that best halves that
   range (a commit that does not build is skipped and a neighbour tried instead).
   Values already stored count like new ones: a commit that has enough is never
   measured again.
5. **Verification.** Only the two commits around the answer decide whether it is
   right: a wrong placement anywhere else leaves a wrong commit on that boundary.
   So these two are confirmed at ``verify_odds``, on at least
   ``min_verify_repetitions`` values each (a run of values from one mode of a
   bimodal metric must not decide), and must also be
   ``rival_odds`` times likelier at their own level than at a rival level
   ``rival_share`` of the way to the other one (the ends get more values too, up
   to as many as the commit around the answer with the most, so that the levels
   they are held to are known as well as they are).
   A commit likelier at both rivals by ``between_odds`` sits between the levels
   — the metric is not a clean step there — and, like a commit that cannot be
   placed within its share of repetitions, it is skipped like an unbuildable one.
   Then the step between the two commits must carry ``boundary_share`` of the
   change (else more values there, then ``UNDECIDED``: a staircase). Last, the two
   are measured in turns, one repetition at a time (``DrillState.order`` tells
   which values ran so), until those values differ the way of the change at
   ``turn_alpha`` (Mann–Whitney) with ``turn_repetitions`` each at least:
   neighbouring runs are alike on a loaded machine, so a commit measured in one
   loaded stretch, or values stored from one, can look moved at any odds; in turns a
   load falls on both alike. Two that do not differ within ``max_turn_repetitions``
   turns each give ``UNDECIDED``.
6. **The answer.** ``CULPRIT`` when the two confirmed commits are neighbours;
   ``RANGE`` when only skipped commits lie between them (the smallest range the
   skips allow, each skip said why); ``UNDECIDED`` when the budget runs out first
   or the evidence is not a single step; never a guess.
"""

from __future__ import annotations

import enum
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from statistics import median, stdev

from perfwalk.analysis.scaled import exponent, scale, scaled
from perfwalk.drill.noise import NoiseModel, without_spikes
from perfwalk.drill.shift import Shift, rank_shift
from perfwalk.errors import UsageError
from perfwalk.quantities import format_change, many

_Z95 = 1.959964


class Verdict(enum.Enum):
    """What a drill concluded."""

    CULPRIT = "culprit"  # one commit: the first at the after level
    RANGE = "range"  # the change is in (lo, hi]; the commits between could not be placed
    UNDECIDED = "undecided"  # the budget ran out, or the evidence is not a single step
    NO_CHANGE = "no-change"  # the two ends do not differ convincingly


class Side(enum.Enum):
    """Where a commit of the line stands."""

    BEFORE = "before"  # at the level before the change
    AFTER = "after"  # at the level after the change
    OPEN = "open"  # measured, not placed yet
    BETWEEN = "between"  # clearly between the two levels: not a clean step here
    UNPLACED = "unplaced"  # not placed within the repetitions allowed at one commit
    UNBUILDABLE = "unbuildable"  # does not build


@dataclass(frozen=True)
class Budget:
    """The most a drill may spend; it answers ``UNDECIDED`` rather than exceed it."""

    max_builds: int = 20  # commits built by the drill (a failed build counts)
    max_repetitions: int = 500  # repetitions run by the drill, at all commits together

    def __post_init__(self) -> None:
        if self.max_builds < 1:
            raise UsageError(
                f"the drill budget allows {self.max_builds} builds: at least 1 is needed",
                hint="raise the maximum number of builds (--max-builds)",
            )
        if self.max_repetitions < 2:
            raise UsageError(
                f"the drill budget allows {self.max_repetitions} repetitions:"
                " at least 2 are needed",
                hint="raise the maximum number of repetitions (--max-repetitions)",
            )


@dataclass(frozen=True)
class Settings:
    """The statistical thresholds of a drill; the defaults are what the benchmark measures."""

    search_odds: float = 100.0  # a commit is placed, for the search, at this likelihood ratio
    verify_odds: float = 10_000.0  # the two commits around the answer must reach this …
    min_verify_repetitions: int = 8  # … with at least this many values each
    rival_odds: float = 20.0  # a confirmed commit is this much likelier at its level than …
    rival_share: float = 0.75  # … at a rival level this share of the way to the other level
    between_odds: float = 100_000.0  # a commit this much likelier at both rivals: in between
    boundary_share: float = 0.7  # the step at the answer must carry this share of the change
    boundary_confidence: float = 0.9  # the step's interval, reported with the answer
    ends_alpha: float = 1e-3  # ends alike are taken for different at most this often …
    ends_looks: float = 10.0  # … each look at them but the last held to ends_alpha / this
    min_end_repetitions: int = 10
    max_end_repetitions: int = 60
    rule_out_confidence: float = 0.99  # ends whose shift, at this confidence, …
    rule_out_share: float = 0.5  # … stays below this share of the change reported: NO_CHANGE
    max_commit_repetitions: int = 100  # at one commit, stored values included; fewer …
    commit_repetitions_factor: float = 4.0  # … when this many times the expected need is less
    turn_repetitions: int = 6  # the two commits around the answer, measured in turns, …
    turn_alpha: float = 0.01  # … must differ the change's way at this significance …
    max_turn_repetitions: int = 30  # … within this many turns each (else UNDECIDED)
    max_batch: int = 8  # repetitions asked for at once
    spike_fraction: float = 0.03  # share of the noise density given to wild values
    max_sample_evidence: float = 3.0  # the most one repetition counts (log-likelihood ratio)

    def __post_init__(self) -> None:
        odds = (self.search_odds, self.verify_odds, self.between_odds)
        if min(odds) <= 1 or self.verify_odds < self.search_odds or self.rival_odds < 1:
            raise ValueError(f"drill odds must exceed 1, verify ≥ search: {odds}")
        shares = (
            self.ends_alpha,
            self.spike_fraction,
            self.boundary_share,
            self.rival_share,
            self.rule_out_confidence,
            self.rule_out_share,
            self.turn_alpha,
        )
        if not all(0 < share < 1 for share in (*shares, self.boundary_confidence)):
            raise ValueError("shares, significance and confidence must lie between 0 and 1")
        if not 2 <= self.min_end_repetitions <= self.max_end_repetitions:
            raise ValueError("need 2 ≤ min_end_repetitions ≤ max_end_repetitions")
        if not 1 <= self.min_verify_repetitions <= self.max_commit_repetitions:
            raise ValueError("need 1 ≤ min_verify_repetitions ≤ max_commit_repetitions")
        if self.max_batch < 1:
            raise ValueError("need max_batch ≥ 1")
        if not 2 <= self.turn_repetitions <= self.max_turn_repetitions:
            raise ValueError("need 2 ≤ turn_repetitions ≤ max_turn_repetitions")


@dataclass(frozen=True)
class DrillState:
    """Everything known about one drill: the line of commits and the values on it.

    ``line`` holds the commit ids of the first-parent line from the last checkout
    before the change (position 0) to the first checkout after it (the last
    position), both included; positions index it. ``stored`` holds the values
    present before the drill started (reused, at no cost), ``measured`` those the
    drill asked for, ``unbuildable`` the positions whose build failed during the
    drill; ``order`` the position of every repetition the drill ran, in the order
    they ran (``measured`` holds each position's values in that order); ``expected``
    the relative change that was reported between the two ends
    (``(after - before) / |before|``, None when unknown): ends that rule out even
    ``rule_out_share`` of it stop the drill at once with ``NO_CHANGE``.

    ``exact``: the values are noise-free (a break's drill: 1.0 where a build or a test
    fails, 0.0 where it passes): one value places a commit, at the level of the end it
    equals; a commit whose values differ (a flaky test) or match neither end is
    skipped like one that does not build (:func:`_exact_action`).
    """

    line: tuple[str, ...]
    stored: Mapping[int, tuple[float, ...]] = field(default_factory=dict)
    measured: Mapping[int, tuple[float, ...]] = field(default_factory=dict)
    unbuildable: frozenset[int] = frozenset()
    order: tuple[int, ...] = ()
    expected: float | None = None
    budget: Budget = field(default_factory=Budget)
    settings: Settings = field(default_factory=Settings)
    exact: bool = False

    def __post_init__(self) -> None:
        if len(self.line) < 2:
            raise ValueError("a drill needs a line of at least two commits")
        last = len(self.line) - 1
        for name, positions in (
            ("stored", self.stored.keys()),
            ("measured", self.measured.keys()),
            ("unbuildable", self.unbuildable),
        ):
            for position in positions:
                if not 0 <= position <= last:
                    raise ValueError(f"{name} position {position} is off the line 0..{last}")
        for values in (*self.stored.values(), *self.measured.values()):
            if not all(math.isfinite(v) for v in values):
                raise ValueError("drill values must be finite numbers")
        ran = {p: n for p, v in self.measured.items() if (n := len(v))}
        if Counter(self.order) != ran:
            raise ValueError(f"the order of the repetitions {ran} does not match measured")

    @property
    def last(self) -> int:
        """The position of the first checkout after the change."""
        return len(self.line) - 1

    def values(self, position: int) -> tuple[float, ...]:
        """Every value at ``position``, stored first."""
        return (*self.stored.get(position, ()), *self.measured.get(position, ()))

    @property
    def builds_used(self) -> int:
        """Commits the drill built (failed builds included)."""
        return len({p for p, v in self.measured.items() if v} | self.unbuildable)

    @property
    def repetitions_used(self) -> int:
        """Repetitions the drill ran."""
        return sum(len(v) for v in self.measured.values())


@dataclass(frozen=True)
class Levels:
    """The two levels, from the values at the two ends."""

    before: float  # median of the before-level pool
    after: float  # before + the change
    shift: Shift  # after - before, with its 95 % interval and the ends' p-value
    noise: float  # standard deviation of one repetition, spikes left out

    @property
    def relative(self) -> float:
        """The change relative to the before level (0 when that level is 0)."""
        if not self.before:
            return 0.0
        if math.isinf(self.shift.estimate):  # a change beyond the float range: 1e308 → -1e308
            return (self.after / 2 - self.before / 2) / abs(self.before) * 2
        return self.shift.estimate / abs(self.before)


@dataclass(frozen=True)
class Placement:
    """One commit of the line that has values or failed to build."""

    position: int
    commit: str
    values: tuple[float, ...]
    side: Side
    evidence: float  # log-likelihood ratio after over before (positive: after)
    confirmed: bool  # placed at the verification odds, clear of the rival level


@dataclass(frozen=True)
class Measure:
    """Build ``commit`` (position ``position``) if needed and run ``repetitions`` more."""

    position: int
    commit: str
    repetitions: int
    reason: str


@dataclass(frozen=True)
class Done:
    """The drill's answer, with its evidence."""

    verdict: Verdict
    lo: int  # last position known at the before level
    hi: int  # first position known at the after level (the culprit for CULPRIT)
    reason: str
    levels: Levels | None
    placements: tuple[Placement, ...]  # in line order
    step: Shift | None  # the step from lo to hi (CULPRIT, RANGE), 90 % interval
    confidence: float | None  # that the answer is right (CULPRIT, RANGE)
    builds: int
    repetitions: int

    @property
    def culprit(self) -> int | None:
        """The position of the culprit commit, for ``CULPRIT``."""
        return self.hi if self.verdict is Verdict.CULPRIT else None


Action = Measure | Done


def next_action(state: DrillState) -> Action:
    """What to do next: measure somewhere, or stop with an answer.

    Values far from 1 (``1e308``, ``1e-300``) are drilled divided by a power of two:
    exact, and no decision depends on the scale, but no sum or difference overflows.
    The answer is in the units of the values.
    """
    k = exponent(v for values in (*state.stored.values(), *state.measured.values()) for v in values)
    if not k:
        return _next_action(state)
    action = _next_action(
        replace(
            state,
            stored={p: tuple(scaled(v, k)) for p, v in state.stored.items()},
            measured={p: tuple(scaled(v, k)) for p, v in state.measured.items()},
        )
    )
    return _unscaled(action, k) if isinstance(action, Done) else action


def _unscaled(done: Done, k: int) -> Done:
    """``done`` of values divided by ``2**k``, in the units of the values."""

    def shift(found: Shift) -> Shift:
        return replace(
            found,
            estimate=scale(found.estimate, k),
            low=scale(found.low, k),
            high=scale(found.high, k),
        )

    levels = done.levels
    if levels is not None:
        levels = Levels(
            before=scale(levels.before, k),
            after=scale(levels.after, k),
            shift=shift(levels.shift),
            noise=scale(levels.noise, k),
        )
    return replace(
        done,
        levels=levels,
        placements=tuple(
            replace(p, values=tuple(scale(v, k) for v in p.values)) for p in done.placements
        ),
        step=None if done.step is None else shift(done.step),
    )


def _next_action(state: DrillState) -> Action:
    if state.exact:
        return _exact_action(state)
    ends = _levels(state)
    if isinstance(ends, Levels):
        return _Drill(state, ends).next()
    return ends


class _Drill:
    """One call of :func:`next_action` once the two levels are known."""

    def __init__(self, state: DrillState, levels: Levels) -> None:
        self.state = state
        self.levels = levels
        self.weigh = _Weigher(state, levels)
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
            position = _best_split(drilled, lo, hi, state)
            return self._measure(position, self.weigh.to_place(self.at[position]), "place it")
        fresh = [p for p in interior if p not in self.at]
        if open_ or fresh:
            position = _best_split([*open_, *fresh], lo, hi, state)
            return self._measure(
                position,
                self.weigh.to_place(self.at.get(position)),
                f"bisect {_short(state, lo)}..{_short(state, hi)}",
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
                end, 3, f"pin the level {_short(state, placement.position)} must match"
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
            f"not a single step: {_short(state, hi)} is at the after level"
            f" but the later {_short(state, lo)} is at the before level",
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
                f"not a single step: the step from {_short(state, lo)} to"
                f" {_short(state, hi)} carries only {share} of the change",
                step=step,
            )
        turns = self._in_turns()
        if turns is not None:
            return turns
        if hi - lo == 1:
            return self._done(
                Verdict.CULPRIT,
                f"{_short(state, hi)} is the first commit at the after level and"
                f" {_short(state, lo)}, its parent, is at the before level",
                step=step,
            )
        skipped = ", ".join(
            f"{_short(state, p)} ({self.at[p].side.value})" for p in range(lo + 1, hi)
        )
        return self._done(
            Verdict.RANGE,
            f"the change is in the {hi - lo} commits after {_short(state, lo)} up to"
            f" {_short(state, hi)}; could not be placed: {skipped}",
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
                    f" {_short(state, lo)} and {_short(state, hi)} do not differ the way of"
                    f" the change (step"
                    f" {format_change(found.estimate / abs(self.levels.before or 1))},"
                    f" Mann–Whitney p = {found.p_value:.2g}, needed ≤ {s.turn_alpha:g}): what"
                    " set them apart was likely the machine's load, not a commit",
                )
        position = hi if ran and ran[-1] == lo else lo
        cap = len(state.values(position)) + 1
        return _measure(
            state, position, 1, "measure the commits around the answer in turns", cap, ends=False
        ) or self._done(Verdict.UNDECIDED, _spent(state, position))

    def _measure(
        self, position: int, repetitions: int, reason: str, *, cap: int | None = None
    ) -> Action:
        cap = self.weigh.cap if cap is None else cap
        return _measure(self.state, position, repetitions, reason, cap) or self._done(
            Verdict.UNDECIDED, _spent(self.state, position)
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


class _Weigher:
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


def _levels(state: DrillState) -> Levels | Action:
    """The two levels from the ends, or the repetitions the ends still need."""
    s = state.settings
    last = state.last
    for end in (0, last):
        have = len(state.values(end))
        if have < s.min_end_repetitions and end not in state.unbuildable:
            wanted = s.min_end_repetitions - have
            return _measure(state, end, wanted, "the ends need values", 0) or _stop_at_ends(
                state, Verdict.UNDECIDED, _spent(state, end)
            )
    before, after = state.values(0), state.values(last)
    if len(before) < 2 or len(after) < 2:
        end = 0 if len(before) < 2 else last
        return _stop_at_ends(
            state,
            Verdict.UNDECIDED,
            f"{_short(state, end)} (an end) has {len(state.values(end))} values"
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
        return _stop_at_ends(state, Verdict.NO_CHANGE, ruled_out, shift=shift)
    if growing:
        end = min(growing, key=lambda e: len(state.values(e)))
        wanted = min(3, s.max_end_repetitions - len(state.values(end)))
        why = f"the ends are not told apart yet (Mann–Whitney p = {shift.p_value:.2g})"
        return _measure(state, end, wanted, why, 0) or _stop_at_ends(
            state, Verdict.UNDECIDED, _spent(state, end)
        )
    return _stop_at_ends(
        state,
        Verdict.NO_CHANGE,
        f"the two ends do not differ convincingly ({len(before)} and {len(after)}"
        f" values, Mann–Whitney p = {shift.p_value:.2g} > {alpha:g})",
        shift=shift,
    )


def _exact_action(state: DrillState) -> Action:
    """The bisection of noise-free values: each end measured once (ends alike:
    ``NO_CHANGE``), then the commit that best halves the range between the last placed
    at the before level and the first placed at the after level, one value each, until
    they are neighbours (``CULPRIT``) or only skipped commits lie between (``RANGE``)."""
    last = state.last
    for end in (0, last):
        if not state.values(end):
            if end in state.unbuildable:
                return _stop_at_ends(
                    state,
                    Verdict.UNDECIDED,
                    f"{_short(state, end)} (an end) gave no status: choose other ends",
                )
            return _measure(state, end, 1, "the ends need a status", 1) or _stop_at_ends(
                state, Verdict.UNDECIDED, _spent(state, end)
            )
    ends = set(state.values(0)), set(state.values(last))
    told = f"{_short(state, 0)} gave {state.values(0)}, {_short(state, last)} {state.values(last)}"
    if len(ends[0]) > 1 or len(ends[1]) > 1:
        return _stop_at_ends(state, Verdict.UNDECIDED, f"an end is not one level: {told}")
    if ends[0] == ends[1]:
        return _stop_at_ends(state, Verdict.NO_CHANGE, f"the two ends do not differ: {told}")
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
            f"not a single step: {_short(state, hi)} is at the after level but the later"
            f" {_short(state, lo)} is at the before level",
            hi,
            lo,
        )
    placed = {p.position for p in placements}
    fresh = [p for p in range(lo + 1, hi) if p not in placed]
    if fresh:
        position = _best_split(fresh, lo, hi, state)
        why = f"bisect {_short(state, lo)}..{_short(state, hi)}"
        return _measure(state, position, 1, why, 1, ends=False) or done(
            Verdict.UNDECIDED, _spent(state, position)
        )
    if hi - lo == 1:
        return done(
            Verdict.CULPRIT,
            f"{_short(state, hi)} is the first commit at the after level and"
            f" {_short(state, lo)}, its parent, is at the before level",
        )
    at = {p.position: p for p in placements}
    skipped = ", ".join(f"{_short(state, p)} ({at[p].side.value})" for p in range(lo + 1, hi))
    return done(
        Verdict.RANGE,
        f"the change is in the {hi - lo} commits after {_short(state, lo)} up to"
        f" {_short(state, hi)}; could not be placed: {skipped}",
    )


#: the sides a noise-free value confirms
_PLACED = frozenset({Side.BEFORE, Side.AFTER})


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


def _stop_at_ends(
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


def _measure(
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


def _spent(state: DrillState, position: int) -> str:
    budget = state.budget
    if not state.measured.get(position) and state.builds_used >= budget.max_builds:
        return f"the budget of {many(budget.max_builds, 'build')} is spent"
    return f"the budget of {budget.max_repetitions} repetitions is spent"


def _best_split(candidates: Sequence[int], lo: int, hi: int, state: DrillState) -> int:
    """The candidate leaving the smallest worst-case range; stored values break ties."""
    return min(
        candidates,
        key=lambda p: (max(p - lo, hi - p), not state.stored.get(p), p),
    )


def _short(state: DrillState, position: int) -> str:
    return state.line[position][:12]
