"""Seeded simulated lines of commits for drill tests, and the loop an executor runs.

Seeds here start with ``test-drill``; the benchmark (bench/drill.py) uses its own.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from perfwalk.drill import Budget, Done, DrillState, Measure, Settings, next_action

LEVEL = 1000.0
SIGMA = 15.0

Noise = Callable[[float, random.Random], float]  # level, random stream -> one run


def gaussian(level: float, rng: random.Random) -> float:
    return level + SIGMA * rng.gauss(0, 1)


def bimodal(level: float, rng: random.Random) -> float:
    """30 % of the runs 2σ higher, 0.4σ within each mode: the overall sd is about σ."""
    high = 2.0 if rng.random() < 0.3 else 0.0
    return level + SIGMA * (rng.gauss(0, 0.38) + high - 0.6)


def spiky(level: float, rng: random.Random) -> float:
    value = gaussian(level, rng)
    return value * 1.3 if rng.random() < 0.02 else value


@dataclass
class Line:
    """A line of ``length`` + 1 commits; the metric falls by ``step`` σ at ``culprit``."""

    culprit: int
    step: float
    length: int = 40
    noise: Noise = gaussian
    unbuildable: frozenset[int] = frozenset()
    levels: Mapping[int, float] = field(default_factory=dict)  # overrides, in σ below LEVEL

    def level(self, position: int) -> float:
        if position in self.levels:
            return LEVEL - self.levels[position] * SIGMA
        return LEVEL - self.step * SIGMA if position >= self.culprit else LEVEL

    def commits(self) -> tuple[str, ...]:
        return tuple(f"{p:04d}" + "c" * 36 for p in range(self.length + 1))


@dataclass
class Run:
    """What a drill did: every request in order, and its answer."""

    done: Done
    requests: list[Measure]
    state: DrillState


def drill(
    line: Line,
    seed: str,
    *,
    stored: Mapping[int, tuple[float, ...]] | None = None,
    budget: Budget | None = None,
    settings: Settings | None = None,
    walk_repetitions: int = 5,
    expected: float | None = None,
) -> Run:
    """Run the drill on ``line`` as an executor would; the walk stored 5 values at each end."""
    rng = random.Random(seed)
    if stored is None:
        stored = {
            end: tuple(line.noise(line.level(end), rng) for _ in range(walk_repetitions))
            for end in (0, line.length)
        }
    measured: dict[int, tuple[float, ...]] = {}
    failed: set[int] = set()
    order: list[int] = []
    requests: list[Measure] = []
    while True:
        state = DrillState(
            line=line.commits(),
            stored=stored,
            measured=dict(measured),
            unbuildable=frozenset(failed),
            order=tuple(order),
            expected=expected,
            budget=budget or Budget(),
            settings=settings or Settings(),
        )
        action = next_action(state)
        if isinstance(action, Done):
            return Run(action, requests, state)
        requests.append(action)
        assert action.repetitions >= 1
        assert action.commit == state.line[action.position]
        if action.position in line.unbuildable:
            failed.add(action.position)
            continue
        new = tuple(line.noise(line.level(action.position), rng) for _ in range(action.repetitions))
        measured[action.position] = measured.get(action.position, ()) + new
        order += [action.position] * len(new)


class Loaded:
    """Noise of a loaded machine, one stream in the order the runs happen: each run is
    its level times a slow factor (log AR(1), φ 0.5) and, in loaded stretches (entered
    at 8 % of the runs, left at 30 %), a factor 1.4–1.9: a relative spread of about
    30 % whose neighbouring runs are alike (lag-1 autocorrelation about 0.55)."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.slow = 0.0
        self.loaded = False

    def __call__(self, level: float, _rng: random.Random) -> float:
        rng = self.rng
        self.slow = 0.5 * self.slow + rng.gauss(0, 0.12)
        self.loaded = rng.random() > 0.3 if self.loaded else rng.random() < 0.08
        load = 1 + rng.uniform(0.4, 0.9) if self.loaded else 1.0
        return level * math.exp(self.slow) * load
