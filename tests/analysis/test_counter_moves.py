"""The counters that moved with a change (perfwalk.analysis.counter_moves), pure: a
counter that doubles per unit of work at the step is listed first with its ratio; a
noisy one, a drifting one, one that steps elsewhere and, on histories shaped like real
ones (drift, autocorrelated noise, loaded stretches), counters that merely wander are
not listed: no explanation is invented."""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from perfwalk.analysis.counter_moves import CounterMove, CounterRates, moved_with
from perfwalk.analysis.ranks import hodges_lehmann

SOME = settings(derandomize=True, max_examples=30, deadline=None)
CHECKOUTS, REPS, STEP = 40, 3, 20  # the change: from position 19 to 20


def counter(name: str, level: list[float], rng: random.Random, rsd: float) -> CounterRates:
    rates = [[v * (1 + rsd * rng.gauss(0, 1)) for _ in range(REPS)] for v in level]
    return CounterRates("nstat", "dut", "bench", name, "bench.packets", rates)


def at_step(counters: list[CounterRates], **kw: object) -> tuple[CounterMove, ...]:
    sizes = {"checkouts_before": 10, "checkouts_after": 10, "changes": [(STEP - 1, STEP)]}
    sizes.update(kw)
    return moved_with(counters, before=STEP - 1, after=STEP, **sizes)  # type: ignore[arg-type]


def test_the_counter_that_doubles_at_the_step_is_first_and_noise_is_not_listed() -> None:
    rng = random.Random(7)
    flat = [1.0] * CHECKOUTS
    doubled = [1.0 if i < STEP else 2.0 for i in range(CHECKOUTS)]
    softirq = [5.0 if i < STEP else 6.5 for i in range(CHECKOUTS)]
    elsewhere = [1.0 if i < 8 else 3.0 for i in range(CHECKOUTS)]  # a step at 8, not here
    drifting = [10 * math.exp(0.02 * i) for i in range(CHECKOUTS)]
    counters = [
        counter("IpExtInOctets", flat, rng, 0.01),
        counter("softirq NET_RX", softirq, rng, 0.02),
        counter("interrupts", doubled, rng, 0.01),
        counter("random", flat, rng, 0.5),
        counter("elsewhere", elsewhere, rng, 0.01),
        counter("drifting", drifting, rng, 0.002),
    ]
    found = at_step(counters)
    print([(m.counter, m.effect, round(m.p, 6), m.delta) for m in found])
    assert [m.counter for m in found] == ["interrupts", "softirq NET_RX"]
    first, second = found
    assert first.ratio is not None
    assert first.low is not None
    assert first.high is not None
    assert first.low <= 2.0 <= first.high
    assert 1.9 < first.ratio < 2.1
    assert first.effect.startswith("×2.0")
    assert first.delta == 1.0
    assert first.per == "bench.packets"
    assert second.effect.startswith("+30")  # a ratio of 1.3 said as a percentage
    assert second.unit == "per bench.packets"


def test_a_counter_from_zero_and_a_falling_counter() -> None:
    rng = random.Random(3)
    new = [0.0 if i < STEP else 4.0 for i in range(CHECKOUTS)]
    found = at_step([CounterRates("v", "", "t", "retrans", "s", [[v] * REPS for v in new])])
    assert [m.effect for m in found] == ["0.0 → 4.0"]
    halved = [2.0 if i < STEP else 1.0 for i in range(CHECKOUTS)]
    found = at_step([counter("ctxt", halved, rng, 0.01)])
    assert found[0].effect.startswith("×0.5")
    assert found[0].delta == -1.0


def test_no_neighbours_without_a_change_rests_on_the_test_alone() -> None:
    rates = [[1.0, 1.01, 0.99, 1.02, 0.98], [2.0, 2.01, 1.99, 2.02, 1.98]]
    found = moved_with(
        [CounterRates("s", "", "t", "c", "s", rates)],
        before=0,
        after=1,
        checkouts_before=1,
        checkouts_after=1,
        changes=[(0, 1)],
    )
    assert len(found) == 1
    assert found[0].noise is None


def test_too_few_repetitions_list_nothing() -> None:
    rates = [[1.0], [1.0], [2.0], [2.0]]  # 2 against 2: no interval at 95 %
    found = moved_with(
        [CounterRates("s", "", "t", "c", "s", rates)],
        before=1,
        after=2,
        checkouts_before=2,
        checkouts_after=2,
        changes=[(1, 2)],
    )
    assert found == ()


def test_hodges_lehmann_interval_covers_the_shift() -> None:
    a = [10.0, 11.0, 12.0, 13.0, 14.0]
    b = [v + 5 for v in a]
    shift, low, high = hodges_lehmann(a, b)
    assert shift == 5
    assert low < 5 < high
    assert hodges_lehmann([1.0, 2.0], [3.0, 4.0])[1] == -math.inf


def ar1(rng: random.Random, points: int, phi: float, sd: float) -> list[float]:
    u, out = sd * rng.gauss(0, 1), []
    for _ in range(points):
        out.append(u)
        u = phi * u + math.sqrt(1 - phi * phi) * sd * rng.gauss(0, 1)
    return out


@SOME
@given(seed=st.integers(0, 2**32), at=st.integers(5, CHECKOUTS - 5))
def test_wandering_counters_explain_no_change(seed: int, at: int) -> None:
    """Sixty counters of histories shaped like real ones — drifts, autocorrelated noise,
    a loaded stretch that lifts the per-second counters for a few checkouts, random
    walks — and a change found in the metric at ``at`` that none of them took part in:
    none is listed."""
    rng = random.Random(seed)
    counters = []
    for number in range(60):
        shape = number % 4
        base = 10 ** rng.uniform(-2, 4)
        if shape == 0:  # a drift with correlated noise
            slope = rng.uniform(-0.03, 0.03)
            noise = ar1(rng, CHECKOUTS, 0.7, 0.03)
            level = [base * math.exp(slope * i + n) for i, n in enumerate(noise)]
        elif shape == 1:  # a random walk
            walk, x = [], 0.0
            for _ in range(CHECKOUTS):
                walk.append(base * math.exp(x))
                x += rng.gauss(0, 0.05)
            level = walk
        elif shape == 2:  # a loaded stretch of a few checkouts, anywhere
            start = rng.randrange(CHECKOUTS - 4)
            level = [base * (1.4 if start <= i < start + 3 else 1.0) for i in range(CHECKOUTS)]
        else:  # plain noise
            level = [base] * CHECKOUTS
        counters.append(counter(f"c{number}", level, rng, 0.05))
    found = moved_with(
        counters,
        before=at - 1,
        after=at,
        checkouts_before=10,
        checkouts_after=10,
        changes=[(at - 1, at)],
    )
    assert found == (), [(m.counter, m.effect, m.move, m.noise) for m in found]
