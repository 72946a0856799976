"""What moved with a change: the snapshot counters (``[[snapshot]]``: nstat, netstat -s,
vmstat, /proc/interrupts around each test) whose change per unit of work coincides
with a metric's step — "interrupts per packet ×2.0 [1.9, 2.1]" — the explanation on a
device under test where a profiler would disturb the result.

Each counter comes as its **rate** in every repetition: its difference around the test
(after − before) divided by the test's work in that repetition (a metric of the test:
packets, bytes, operations) or by the seconds between the two snapshots. At a change
(the last checkout of the old level and the first of the new one) a counter is listed
only when all of these hold:

- its rates on the two sides differ by Mann–Whitney U (:mod:`.ranks`), the p-values
  of all the counters tried at the change held to a false discovery rate of 5 %
  (Benjamini–Hochberg): hundreds of counters are tried, some would differ by chance;
- it moved consistently: Cliff's delta of the two sides is at least
  :data:`CONSISTENT` either way (most repetitions after lie beyond most before);
- the interval of its move (Hodges–Lehmann's estimate of the shift, with the
  distribution-free interval of the same test, on the logarithms of the rates when
  they are all positive: a ratio) excludes no move;
- between the two checkouts of the change its median rate moved more than
  :data:`MARGIN` times as far as it ever did between two neighbouring measured
  checkouts of the series where no change was found (its own noise from checkout to
  checkout): a counter that moves as much where nothing changed explains nothing, and
  a counter that drifts moves about as far between any two neighbours.

The listed counters are ranked by how consistently they moved (Cliff's delta: 1 when
every repetition after lies beyond every repetition before), then by how far beyond
their own noise. Pure: numbers in, frozen results out.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from perfwalk.analysis.ranks import hodges_lehmann, mann_whitney

#: the false discovery rate of the counters listed at one change
DISCOVERY_RATE = 0.05
#: the confidence of a move's interval
CONFIDENCE = 0.95
#: at most this many measured checkouts on each side of a change are compared
SIDE_CHECKOUTS = 5
#: how many times its largest move between neighbours without a change a counter
#: moves across the change to be listed
MARGIN = 2.0
#: the smallest |Cliff's delta| of a counter listed
CONSISTENT = 0.8
#: a ratio shown as ×r (else as a percentage) beyond this factor either way
RATIO_SHOWN = 1.5
#: the unit of work of a counter divided by the seconds between its two snapshots
PER_SECOND = "s"


@dataclass(frozen=True)
class CounterRates:
    """One counter of one ``[[snapshot]]`` around one test on one role: its rate
    (difference per unit of ``per``: a metric ``TEST.NAME``, or ``s``) in each
    repetition, by checkout position in the series (an empty list: none there)."""

    snapshot: str
    role: str
    test: str
    counter: str
    per: str
    rates: Sequence[Sequence[float]]


@dataclass(frozen=True)
class CounterMove:
    """A counter that moved with a change: its median rate on each side; ``ratio``
    (after / before, with its interval ``low`` … ``high``) when its rates were all
    positive, else ``change`` (the shift over the rate before, a share, with its
    interval) — None when the rate before was 0; the rank test's ``p`` and Cliff's
    ``delta``; ``noise``: its largest move between neighbouring checkouts without a
    change, on the scale of ``move`` (the move of its median rate between the two
    checkouts of the change: the absolute logarithm of their ratio); None: no such
    neighbours."""

    snapshot: str
    role: str
    test: str
    counter: str
    per: str
    before: float
    after: float
    ratio: float | None
    change: float | None
    low: float | None
    high: float | None
    p: float
    delta: float
    move: float
    noise: float | None
    n_before: int
    n_after: int

    @property
    def effect(self) -> str:
        """Its move as a person reads it: ``×2.0 [1.9, 2.1]``, ``+30 % [25 %, 35 %]``,
        or ``0 → 1.5`` from a rate of 0."""
        if self.ratio is not None and self.low is not None and self.high is not None:
            if self.ratio >= RATIO_SHOWN or self.ratio <= 1 / RATIO_SHOWN:
                return f"×{_g(self.ratio)} [{_g(self.low)}, {_g(self.high)}]"
            return _percent(self.ratio - 1, self.low - 1, self.high - 1)
        if self.change is not None and self.low is not None and self.high is not None:
            return _percent(self.change, self.low, self.high)
        return f"{_g(self.before)} → {_g(self.after)}"

    @property
    def unit(self) -> str:
        """``per s`` or ``per bench.packets``."""
        return f"per {self.per}"

    @property
    def said(self) -> str:
        """``interrupts per bench.packets ×2.0 [1.9, 2.1]``."""
        return f"{self.counter} {self.unit} {self.effect}"


def _g(value: float) -> str:
    """Three digits, and a decimal below 100: ``2.0``, ``2.01``, ``0.5``, ``130``."""
    said = f"{value:.3g}" if abs(value) < 1000 else f"{value:.4g}"
    if abs(value) < 100 and not any(c in said for c in ".einf"):
        said += ".0"
    return said


def _percent(change: float, low: float, high: float) -> str:
    def pct(v: float) -> str:
        return f"{v * 100:+.1f} %" if abs(v) < 10 else f"{v * 100:+.0f} %"

    return f"{pct(change)} [{pct(low)}, {pct(high)}]"


def moved_with(
    counters: Sequence[CounterRates],
    *,
    before: int,
    after: int,
    checkouts_before: int,
    checkouts_after: int,
    changes: Sequence[tuple[int, int]],
) -> tuple[CounterMove, ...]:
    """The counters that moved with the change from checkout position ``before`` (the
    last of the old level) to ``after`` (the first of the new one), ranked: the rates
    of up to ``checkouts_before`` (``checkouts_after``) measured checkouts on each side,
    at most :data:`SIDE_CHECKOUTS`; ``changes``: (before, after) positions of every
    change of the series, whose neighbours are not the counters' noise."""
    tried: list[tuple[CounterMove, float, CounterRates]] = []
    for counter in counters:
        found = _compare(
            counter,
            _side(counter.rates, before, -1, min(checkouts_before, SIDE_CHECKOUTS)),
            _side(counter.rates, after, 1, min(checkouts_after, SIDE_CHECKOUTS)),
        )
        if found is not None:
            tried.append((*found, counter))
    kept = _discoveries([move.p for move, _, _ in tried])
    listed = [
        replace(move, noise=_noise(counter.rates, changes))  # the dearest, last
        for (move, bound, counter), keep in zip(tried, kept, strict=True)
        if keep and bound > 0 and abs(move.delta) >= CONSISTENT
    ]
    listed = [m for m in listed if m.noise is None or m.move > MARGIN * m.noise]
    listed.sort(key=lambda m: (-abs(m.delta), -_beyond(m), -m.move, m.counter))
    return tuple(listed)


def _beyond(move: CounterMove) -> float:
    """How many times its own noise it moved (infinite beyond a noise of 0)."""
    if move.noise is None or move.noise == 0:
        return math.inf
    return move.move / move.noise


def _side(
    rates: Sequence[Sequence[float]], start: int, step: int, points: int
) -> list[list[float]]:
    """The rates of ``points`` measured checkouts from ``start`` on, going ``step``
    (the nearest first)."""
    found: list[list[float]] = []
    at = start
    while points > 0 and 0 <= at < len(rates):
        finite = [r for r in rates[at] if math.isfinite(r)]
        if finite:
            found.append(finite)
            points -= 1
        at += step
    return found


def _compare(
    counter: CounterRates,
    left: list[list[float]],
    right: list[list[float]],
) -> tuple[CounterMove, float] | None:
    """The counter's move between the rates of the checkouts ``left`` and ``right``
    (the nearest to the change first), and how far its interval lies from no move
    (> 0: it excludes no move); None when it cannot be tried."""
    a = [v for values in left for v in values]
    b = [v for values in right for v in values]
    if len(a) < 2 or len(b) < 2 or len(set(a) | set(b)) < 2:
        return None
    test = mann_whitney(a, b)
    on_logs = all(v > 0 for v in a) and all(v > 0 for v in b)
    shift, low, high = hodges_lehmann(
        [math.log(v) for v in a] if on_logs else a,
        [math.log(v) for v in b] if on_logs else b,
        confidence=CONFIDENCE,
    )
    first, second = statistics.median(a), statistics.median(b)
    ratio = change = lo = hi = None
    if on_logs:
        ratio, lo, hi = math.exp(shift), math.exp(low), math.exp(high)
    elif first != 0:
        scale = abs(first)
        change, lo, hi = shift / scale, low / scale, high / scale
    move = _move(statistics.median(left[0]), statistics.median(right[0]))
    found = CounterMove(
        snapshot=counter.snapshot,
        role=counter.role,
        test=counter.test,
        counter=counter.counter,
        per=counter.per,
        before=first,
        after=second,
        ratio=ratio,
        change=change,
        low=lo,
        high=hi,
        p=test.p,
        delta=test.delta,
        move=move,
        noise=None,  # weighed for the counters that pass the rest
        n_before=len(a),
        n_after=len(b),
    )
    return found, max(low, -high)


def _move(x: float, y: float) -> float:
    """How far a rate moved from ``x`` to ``y``: the absolute logarithm of their ratio
    (same sign), 0 unchanged, infinite across 0."""
    if x == y:
        return 0.0
    if x * y > 0:
        return abs(math.log(y / x))
    return math.inf


def _noise(rates: Sequence[Sequence[float]], changes: Sequence[tuple[int, int]]) -> float | None:
    """The largest move of the median rate between two neighbouring measured
    checkouts that no change of the series lies between (None: no such pair)."""
    medians = [
        (at, statistics.median(finite))
        for at, values in enumerate(rates)
        if (finite := [v for v in values if math.isfinite(v)])
    ]
    moves = [
        _move(x, y)
        for (i, x), (j, y) in itertools.pairwise(medians)
        if not any(i < after and before < j for before, after in changes)
    ]
    return max(moves, default=None)


def _discoveries(p_values: Sequence[float]) -> list[bool]:
    """Which p-values are discoveries at :data:`DISCOVERY_RATE` (Benjamini–Hochberg)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    tried = len(p_values)
    last = -1
    for rank, at in enumerate(order, start=1):
        if p_values[at] <= rank / tried * DISCOVERY_RATE:
            last = rank
    kept = set(order[:last]) if last > 0 else set()
    return [i in kept for i in range(tried)]
