"""The floor of a walk (:mod:`perfwalk.analysis.floor`): the smallest change its
detector would have found, from the noise, the repetitions and the checkouts.

Calibrated on seeded series shaped like real histories (independent noise, AR(1)
noise between checkouts, a slow random walk, a loaded stretch, short excursions,
all of them together), walks of 8 to 40 checkouts with 3 or 5 repetitions and
histories of 100 to 300 points with one: the floor is computed on the series as
measured, then a step of 1.5 times it, and one of half of it, is put at a position
that leaves a quarter of the walk (at most 20 points, at least 3) on each side, and
the detector is asked again. Pure computation on fixed seeds: nothing depends on
this machine's speed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest

from perfwalk.analysis.changepoints import Detection, find_change_points
from perfwalk.analysis.floor import Floor, detection_floor
from perfwalk.analysis.segments import DEFAULT_TUNING

Sets = list[list[float]]


# -- series shaped like real histories --------------------------------------------------


class Shape:
    """A history without a step: each checkout's level (a logarithm) and the spread of
    one repetition there."""

    def __init__(self, rng: random.Random, checkouts: int) -> None:
        self.rng = rng
        self.levels = [0.0] * checkouts
        self.spread = [rng.uniform(0.01, 0.04)] * checkouts

    def white(self) -> None:
        """Nothing but the repetitions' noise."""

    def everything(self) -> None:
        """All of the others together."""
        self.ar1()
        self.drift()
        self.loaded()
        self.dips()

    def ar1(self) -> None:
        """Neighbouring checkouts agree more than chance allows (the machine's state)."""
        rng, phi, sd = self.rng, self.rng.uniform(0.3, 0.7), self.rng.uniform(0.005, 0.02)
        u = sd * rng.gauss(0, 1)
        for t in range(len(self.levels)):
            self.levels[t] += u
            u = phi * u + math.sqrt(1 - phi * phi) * sd * rng.gauss(0, 1)

    def drift(self) -> None:
        """The level walks slowly."""
        step, w = self.rng.uniform(0.0005, 0.003), 0.0
        for t in range(len(self.levels)):
            self.levels[t] += w
            w += step * self.rng.gauss(0, 1)

    def loaded(self) -> None:
        """A stretch of an eighth to a third of the walk with 3 to 8 times the spread."""
        n, rng = len(self.levels), self.rng
        length = rng.randint(max(2, n // 8), max(3, n // 3))
        start, load = rng.randint(0, n - length), rng.uniform(3, 8)
        for t in range(start, start + length):
            self.spread[t] *= load

    def dips(self) -> None:
        """Excursions of one or two checkouts (three in a long history), 5 to 15 %, in a
        walk of 20 checkouts or more."""
        n, rng = len(self.levels), self.rng
        for _ in range(max(1, n // 60) if n >= 20 else 0):
            length = rng.randint(1, 3 if n >= 60 else 2)
            start = rng.randint(0, n - length)
            size = rng.choice((-1, 1)) * rng.uniform(0.05, 0.15)
            for t in range(start, start + length):
                self.levels[t] += size

    def sets(self, seed: float, repetitions: int, at: int = 0, step: float = 0.0) -> Sets:
        """The values measured (the same noise for every ``step``), the level ``step``
        (a logarithm) higher from checkout ``at`` on."""
        rng = random.Random(seed)
        return [
            [
                100 * math.exp(level + (step if t >= at else 0.0) + sd * rng.gauss(0, 1))
                for _ in range(repetitions)
            ]
            for t, (level, sd) in enumerate(zip(self.levels, self.spread, strict=True))
        ]


KINDS: dict[str, Callable[[Shape], None]] = {
    "white": Shape.white,
    "AR(1)": Shape.ar1,
    "drift": Shape.drift,
    "loaded": Shape.loaded,
    "dips": Shape.dips,
    "all": Shape.everything,
}
#: (kind, checkouts, repetitions) of each scenario
SCENARIOS = [
    *((kind, (10, 40), 3) for kind in KINDS),
    ("white", (8, 12), 3),
    ("loaded", (8, 12), 3),
    ("all", (8, 12), 5),
    *((kind, (100, 300), 1) for kind in KINDS),
]
SERIES = 40  # per scenario


def found_at(detection: Detection, at: int) -> bool:
    """A change (at the edge or not) within 3 checkouts of ``at``."""
    return any(abs(c.index - at) <= 3 for c in (*detection.changes, *detection.edges))


def calibrate(kind: str, checkouts: tuple[int, int], repetitions: int) -> tuple[int, int, int]:
    """(series with a finite floor, found at 1.5 × it, found at 0.5 × it)."""
    judged = large = small = 0
    for i in range(SERIES):
        rng = random.Random(f"test:floor:{kind}:{checkouts}:{repetitions}:{i}")
        n = rng.randint(*checkouts)
        shape = Shape(rng, n)
        KINDS[kind](shape)
        seed = rng.random()
        measured = shape.sets(seed, repetitions)
        floor = detection_floor(measured, find_change_points(measured))
        margin = max(3, min(20, n // 4))
        at, sign = rng.randint(margin, n - margin), rng.choice((-1, 1))
        if not math.isfinite(floor.relative):
            continue
        judged += 1
        for times in (1.5, 0.5):
            stepped = shape.sets(seed, repetitions, at, sign * math.log1p(times * floor.relative))
            found = found_at(find_change_points(stepped), at)
            large += found and times == 1.5
            small += found and times == 0.5
    return judged, large, small


def test_a_step_of_one_and_a_half_floors_is_found_most_of_the_time_half_a_floor_rarely(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = []
    totals = [0, 0, 0]
    for kind, checkouts, repetitions in SCENARIOS:
        judged, large, small = calibrate(kind, checkouts, repetitions)
        rows.append((kind, checkouts, repetitions, judged, large, small))
        totals = [t + x for t, x in zip(totals, (judged, large, small), strict=True)]
    with capsys.disabled():
        print()
        for kind, (lo, hi), reps, judged, large, small in rows:
            print(
                f"floor {kind:7} {lo:3}-{hi:<3} checkouts x {reps}: 1.5 x found {large}/{judged},"
                f" 0.5 x found {small}/{judged}"
            )
        judged, large, small = totals
        print(f"floor, every scenario: 1.5 x found {large}/{judged}, 0.5 x found {small}/{judged}")
    for kind, checkouts, reps, judged, large, small in rows:
        assert judged == SERIES, (kind, checkouts)
        assert large >= 0.65 * judged, (kind, checkouts, reps, large)
        assert small <= 0.2 * judged, (kind, checkouts, reps, small)
    judged, large, small = totals
    assert large >= 0.8 * judged
    assert small <= 0.08 * judged


# -- what raises it, what lowers it ------------------------------------------------------


def floor_of(sets: Sets) -> Floor:
    return detection_floor(sets, find_change_points(sets))


def noisy(seed: str, checkouts: int, repetitions: int, spread: float = 0.02) -> Sets:
    rng = random.Random(seed)
    return [
        [100 * math.exp(spread * rng.gauss(0, 1)) for _ in range(repetitions)]
        for _ in range(checkouts)
    ]


def test_the_loaded_walk_of_the_issue_could_not_see_its_doubling() -> None:
    """8 checkouts × 3 repetitions on a machine with a load of 10 on 2 cores, commit 4
    doubling the work: the medians 50.7, 51.6, 55.7, 32.9, 92.8, 85.7, 62.3, 102.8 ms."""
    medians = [50.7, 51.6, 55.7, 32.9, 92.8, 85.7, 62.3, 102.8]
    rng = random.Random("issue 28")
    sets = [[m * rng.uniform(0.8, 1.25), m, m * rng.uniform(0.8, 1.25)] for m in medians]
    detection = find_change_points(sets)
    assert detection.changes == ()
    floor = detection_floor(sets, detection)
    assert floor.relative > 1.0  # a doubling was below what it could see
    assert (floor.points, floor.values) == (8, 24)
    assert floor.candidate is not None  # the most likely step: the doubling
    assert (floor.candidate.previous, floor.candidate.index) == (3, 4)
    assert 0.5 < floor.candidate.relative < 1.5
    assert 0 < floor.candidate.share < 1


def test_a_quiet_walk_sees_a_change_of_a_percent() -> None:
    floor = floor_of(noisy("quiet", 20, 3, spread=0.002))
    assert floor.relative < 0.01
    assert floor.sees(0.01)
    assert floor.within == pytest.approx(0.002, rel=0.5)


def test_too_few_checkouts_see_nothing() -> None:
    short = floor_of(noisy("short", 2 * DEFAULT_TUNING.min_size - 1, 5))
    assert short.relative == math.inf
    assert short.candidate is None
    assert not short.sees(10.0)
    assert floor_of([]).relative == math.inf


def test_more_repetitions_and_more_checkouts_lower_it() -> None:
    floors = {
        (n, r): floor_of(noisy(f"more:{n}:{r}", n, r)).relative for n in (10, 40) for r in (1, 5)
    }
    assert floors[(10, 5)] < floors[(10, 1)]
    assert floors[(40, 5)] < floors[(40, 1)]
    assert floors[(40, 1)] < floors[(10, 1)]
    assert floors[(40, 5)] < floors[(10, 5)]


def test_correlated_noise_and_a_loaded_stretch_raise_it() -> None:
    """The same spread of a point, independent or AR(1) (φ = 0.7); the same walk with a
    stretch of a third of it at 6 times the noise."""
    rng = random.Random("correlated")
    phi, n = 0.7, 200
    u, ar = 0.0, []
    for _ in range(n):
        u = phi * u + math.sqrt(1 - phi * phi) * 0.02 * rng.gauss(0, 1)
        ar.append([100 * math.exp(u)])
    white = noisy("independent", n, 1)
    assert floor_of(ar).relative > 1.5 * floor_of(white).relative
    loaded = [
        [100 * math.exp(0.02 * (6 if 60 <= t < 130 else 1) * rng.gauss(0, 1))] for t in range(n)
    ]
    assert floor_of(loaded).relative > 1.3 * floor_of(white).relative


def test_spread_inside_checkouts_counts_when_their_neighbours_look_quiet() -> None:
    """Neighbouring checkouts that agree by chance (the points barely move) while each
    checkout's repetitions scatter by 5 %: the floor is the repetitions' (a mean of 3
    moves by 5 % / √3), not the quiet points'."""
    rng = random.Random("quiet points")
    sets = []
    for _ in range(10):
        spread = [rng.gauss(0, 1) for _ in range(3)]
        mean = sum(spread) / 3
        sets.append([100 * math.exp(0.05 * (e - mean)) for e in spread])  # mean of logs: 0
    floor = detection_floor(sets, find_change_points(sets), summary="mean")
    assert floor.within == pytest.approx(0.05, rel=0.6)
    assert floor.relative > 0.05


def test_scale_free_and_for_numbers_of_both_signs() -> None:
    sets = noisy("scale", 30, 3)
    times = floor_of(sets).relative
    assert floor_of([[1e6 * v for v in s] for s in sets]).relative == pytest.approx(times)
    # around -50 (a temperature, a difference): relative to the level's size
    shifted = [[v - 150 for v in s] for s in sets]
    floor = floor_of(shifted)
    assert math.isfinite(floor.relative)
    assert floor.relative == pytest.approx(2 * times, rel=0.3)  # the same noise on half the level
    # at the ends of the float range (their differences and squares would overflow)
    huge = [[v * 2.0**1016 for v in s] for s in shifted]  # about -50 × 7e305
    assert floor_of(huge).relative == pytest.approx(floor.relative)
    tiny = [[v * 2.0**-1000 for v in s] for s in sets]
    assert floor_of(tiny).relative == pytest.approx(times)


def test_a_step_at_the_edge_is_no_likely_step_inside_the_level_before_it() -> None:
    """A walk's last checkout doubled (a change at the edge): the most likely step below
    the bar is not the flat level before it lifted by that jump (it read +16 % at 5.3
    times what the walk could see, between checkouts 7 and 8)."""
    medians = [12.6, 12.5, 12.6, 12.6, 12.6, 12.7, 12.7, 12.5, 12.7, 12.6, 12.6, 13.0, 25.5]
    sets = [[v] for v in medians]
    detection = find_change_points(sets)
    assert [c.index for c in detection.edges] == [12]
    floor = detection_floor(sets, detection)
    assert floor.candidate is not None
    assert floor.candidate.share < 1
    assert abs(floor.candidate.relative) < 0.05
