"""What a drill knows: its line of commits, the values on it, its budget and its
statistical settings (every threshold of the search in :mod:`perfwalk.drill.schedule`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from perfwalk.errors import UsageError


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
    skipped like one that does not build (:func:`perfwalk.drill.exact.exact_action`).
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
