"""Where a series of numbers changes level: the search behind the change detector.

Numbers in, break points out; no I/O, no clock, no randomness. The steps, each
linear or nearly so in the length of the series (the passes over every point in
numpy, :mod:`perfwalk.analysis.float_arrays`; about 0.07 s of CPU for 100 000
points):

1. **Noise**: the series' scale ``s`` (the trimmed root mean square of neighbour
   differences) and the local noise of every block of 8 points
   (:func:`perfwalk.analysis.noise.local_variances`: medians of neighbour
   differences, a loaded stretch raises it from its first block on, a quiet one
   lowers it to half of ``s``² at most). A level's mean weighs each point by
   1 / its local variance, so that a noisy stretch counts little.
2. **Spikes**: the points between two jumps larger than 4 local noise units at
   most 4 points apart, and a first or last point beyond such a jump, are replaced
   by the median of their 13 neighbours when they lie more than 2.5 units from it.
   A step has one jump and keeps its points. A run of 3 or 4 replaced points is
   an excursion.
3. **Candidates**: moving sums of 5, 10, 20, … points on each side of every
   position (MOSUM); local peaks above 2.5 local standard errors (more for the
   smallest windows) are candidate breaks; one at the reach of the smallest
   window (5 points from an end) moves to its best place nearer that end.
4. **Backward elimination**: the weakest candidate is removed until each break
   left passes the test below against its two neighbouring levels; after each
   removal the neighbours move to their best place (least squares) near where
   they were. Then each level is searched for a break the candidates missed, and
   each break for two steps too close for the moving sums to tell apart (a
   staircase whose break landed between them).
5. **Test of a break** (:mod:`perfwalk.analysis.break_test`): the difference of
   the two levels' means over its standard error, against a bar that rises for
   short levels (but for a plain, sharp step), at least ``min_effect`` noise units
   and ``min_change`` of the level, both levels of ``min_size`` points, and between
   long levels a jump at the break, not a slow drift.

The first elimination takes the noise as independent. Then the noise's
correlation is fitted to the levels found (:mod:`perfwalk.analysis.noise`:
AR(1) from the variogram at lags 1 to 8, a random walk from the likelihood of the
local level model, a factor for non-Gaussian noise) and the elimination runs
again. Each break moves to its best place near where it is. Last:

* **Excursions**: a level of at most ``excursion`` points between two levels that
  do not differ is an excursion (points that went away and came back), not two
  changes; its points are replaced by the level around it. So is the run of at most
  ``excursion`` points furthest from the level around inside a level of up to twice
  that, when the rest of that level is within half the threshold of the level
  around (the noise made the points next to a short dip low too).
* **Edges**: a step that leaves fewer than ``min_size`` points at either end is
  tested like any other (the short-level bar: 21 noise units for one point, 11
  for two) and reported apart, to be confirmed by more points.
* **Drifts**: a level of at least 2 × ``jump_window`` points whose straight line
  moves by ``threshold`` standard errors and ``min_change`` is a drift.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from heapq import heapify, heappop, heappush
from itertools import pairwise

from perfwalk.analysis.break_test import BreakTest, Jump, Side
from perfwalk.analysis.candidates import candidates
from perfwalk.analysis.float_arrays import numbers
from perfwalk.analysis.noise import (
    fit_correlation,
    with_walk,
)
from perfwalk.analysis.scaled import exponent, scale, scaled
from perfwalk.analysis.segments import (
    DEFAULT_TUNING,
    Break,
    Drift,
    Excursion,
    Segmentation,
    Tuning,
)
from perfwalk.analysis.spikes import REFERENCE, median_in_place, noise_scale

#: The levels around an excursion are at least this many times as long as it.
_AROUND = 2
#: How many points the ends of an excursion may move.
_POINTS = 2
#: A level of at most this many times ``excursion`` points may hold an excursion.
_WIDER = 2
#: The fewest points of a run the spike filter replaced that is an excursion.
_RUN = 3
#: How far the last pass may move a break.
_POLISH = 8
#: Rounds of the search for breaks the candidates missed.
_ROUNDS = 3


def segment(
    points: Sequence[float], tuning: Tuning = DEFAULT_TUNING, *, logarithms: bool = False
) -> Segmentation:
    """The level changes of ``points`` (finite numbers, oldest first). ``logarithms``:
    the points are logarithms (a step of ``d`` is a relative change of ``exp(d) - 1``),
    which ``min_change`` needs to know."""
    x = list(points)
    if not all(map(math.isfinite, x)):
        raise ValueError("points must be finite numbers")
    return segment_finite(x, tuning, logarithms=logarithms)


def segment_finite(
    x: list[float], tuning: Tuning = DEFAULT_TUNING, *, logarithms: bool = False
) -> Segmentation:
    """:func:`segment` of points known to be finite (not checked again).

    Points far from 1 (``1e308``, ``1e-300``) are searched divided by a power of two
    (exact, and the search does not depend on the scale): its sums never overflow.
    """
    k = exponent(x)
    if not k:
        return segment_in_range(x, tuning, logarithms=logarithms)
    found = segment_in_range(scaled(x, k), tuning, logarithms=logarithms)

    def up(b: Break) -> Break:
        return replace(
            b, before=scale(b.before, k), after=scale(b.after, k), stderr=scale(b.stderr, k)
        )

    return replace(
        found,
        breaks=tuple(map(up, found.breaks)),
        noise=scale(found.noise, k),
        center=scale(found.center, k),
        edges=tuple(map(up, found.edges)),
        excursions=tuple(
            replace(
                e,
                level=scale(e.level, k),
                base=scale(e.base, k),
                stderr=scale(e.stderr, k),
            )
            for e in found.excursions
        ),
        drifts=tuple(
            replace(d, first=scale(d.first, k), last=scale(d.last, k), stderr=scale(d.stderr, k))
            for d in found.drifts
        ),
    )


def segment_in_range(
    x: Sequence[float], tuning: Tuning = DEFAULT_TUNING, *, logarithms: bool = False
) -> Segmentation:
    """:func:`segment` of finite points that need no scaling: the largest magnitude 0
    or between ``2**-SAFE`` and ``2**SAFE`` (:mod:`perfwalk.analysis.scaled`), as for
    the logarithms of positive numbers."""
    n = len(x)
    if n < 2 * tuning.min_size:
        return Segmentation((), noise_scale(x), 0.0, median_in_place(list(x)) if x else 0.0)
    search = _Search(x, tuning, logarithms)
    return search.run()


class _Search(BreakTest):
    """One run of the search; sums over the points minus their median."""

    def __init__(self, x: Sequence[float], tuning: Tuning, logarithms: bool) -> None:
        super().__init__(x, tuning, logarithms)
        self.radius: dict[int, int] = {}  # how far each candidate break may move
        self.searched: set[tuple[int, int]] = set()  # levels complete() found nothing in
        self.unsplit: set[tuple[int, int, int]] = set()  # breaks split() left as they are

    # -- the whole search -------------------------------------------------------------

    def run(self) -> Segmentation:
        found = self.complete(self.eliminate(candidates(self, self.radius)))
        # the noise's correlation, from the levels of this first pass: the most and the
        # shortest levels (a merge can leave a step in a level, which looks correlated)
        # (a step at an end, a level too short to search yet, is not noise either)
        levels = sorted({0, *found, *(b.index for b in self.edges(found)), self.n})
        fit = fit_correlation(self.y, self.var, levels)
        correlation = with_walk(fit.correlation, self.S, self.V, levels)
        if (correlation, fit.factor) != (self.correlation, self.factor):
            self.correlation, self.factor = correlation, fit.factor
            self.sides.clear()  # their point variances depend on both
            self.searched.clear()
            self.unsplit.clear()
            found = self.complete(self.eliminate(found))
        found = self.polish(found)
        edges = [0, *found, self.n]
        if found and min(b - a for a, b in pairwise(edges)) < self.tuning.min_size:
            found = self.eliminate(found)  # a break polished too near another one
        found, excursions = self.excursions(found)
        excursions = sorted([*excursions, *self.runs()], key=lambda e: e.start)
        return Segmentation(
            tuple(self.describe(found)),
            self.noise,
            self.correlation.autocorrelation,
            self.center,
            edges=tuple(self.edges(found)),
            excursions=tuple(excursions),
            drifts=tuple(self.drifts(found)),
            correlation=self.correlation,
            factor=self.factor,
        )

    # -- the test of one break -------------------------------------------------------

    def score(self, a: int, c: int, b: int) -> float:
        """How strongly a break at c stands against a..c-1 and c..b-1: keep it at ≥ threshold."""
        one, two = self.side(a, c), self.side(c, b)
        # the two points around it hold most of the step: a jump, not a slope cut in two
        sharp = abs(self.y[c] - self.y[c - 1]) >= 0.5 * abs(two.mean - one.mean)
        return self.judge(one, two, self.jump(a, c, c, b), sharp=sharp)

    # -- backward elimination ----------------------------------------------------------

    def eliminate(self, found: list[int]) -> list[int]:
        """Remove the weakest break until every one left passes; neighbours move to
        their best place after each removal."""
        if not found:
            return []
        n = self.n
        pos = [0, *found, n]  # sentinels at both ends
        last = len(pos) - 1
        prev = list(range(-1, last))
        nxt = list(range(1, last + 2))
        version = [0] * len(pos)
        heap = [(self.score(pos[j - 1], pos[j], pos[j + 1]), 0, j) for j in range(1, last)]
        heapify(heap)
        alive = [True] * len(pos)
        threshold = self.tuning.threshold

        while heap:
            value, ver, j = heappop(heap)
            if not alive[j] or ver != version[j]:
                continue
            if value >= threshold:
                break
            alive[j] = False
            p, q = prev[j], nxt[j]
            nxt[p], prev[q] = q, p
            touched: list[int] = []  # the breaks whose levels changed, in the order they did
            for k in (p, q):
                if 0 < k < last:
                    moved = self.relocate(pos[prev[k]], pos[k], pos[nxt[k]])
                    if moved != pos[k]:
                        self.radius[moved] = self.radius.get(pos[k], 2)
                        pos[k] = moved
                        touched += (prev[k], nxt[k])
                    touched.append(k)
            touched = [k for k in touched if 0 < k < last]
            for k in touched:  # each change of a break's levels is one version of its score
                version[k] += 1
            for k in dict.fromkeys(touched):  # scored once, where its neighbours ended
                heappush(heap, (self.score(pos[prev[k]], pos[k], pos[nxt[k]]), version[k], k))
        return [pos[j] for j in range(1, last) if alive[j]]

    def relocate(self, a: int, c: int, b: int) -> int:
        """The best break between a and b within the search radius of c (possibly too
        near a or b: the test then removes it rather than move it away from its place)."""
        r = self.radius.get(c, 2)
        lo, hi = max(a + 1, c - r), min(b - 1, c + r)
        if lo > hi:
            return c
        return self.best_split(a, b, lo, hi)

    def polish(self, found: list[int]) -> list[int]:
        """Each break at its best place between its final neighbours, near where it is."""
        out = list(found)
        for j, c in enumerate(out):
            a = out[j - 1] if j else 0
            b = out[j + 1] if j + 1 < len(out) else self.n
            self.radius[c] = max(_POLISH, self.radius.get(c, 2))
            out[j] = self.relocate(a, c, b)
        return out

    def complete(self, found: list[int]) -> list[int]:
        """Search each level for one break the candidates missed and each break for the
        two steps it stands between (:meth:`split`), and the levels that leaves again,
        a few rounds at most."""
        ml = self.tuning.min_size
        threshold = self.tuning.threshold
        for _ in range(_ROUNDS):
            edges = [0, *found, self.n]
            extra = []
            for a, b in pairwise(edges):
                if b - a >= 2 * ml and (a, b) not in self.searched:
                    k = self.best_split(a, b, a + 1, b - 1)  # too near an end: no level
                    if min(k - a, b - k) >= ml and self.score(a, k, b) >= threshold:
                        extra.append(k)
                        self.radius[k] = max(2, ml)
                    else:  # nothing there while the model holds
                        self.searched.add((a, b))
            split = self.split(found)
            if not extra and split == found:
                break
            found = self.eliminate(sorted({*split, *extra}))
        return found

    def split(self, found: list[int]) -> list[int]:
        """Each break that stands between two steps too close for the moving sums to
        tell apart (a staircase: its break lands between them, and the levels on
        either side each hold a step too near it to leave a level) replaced by those
        two, when both pass and, as one break more, save as much of the least squares
        as a short level's test asks of a level as long as the one between them."""
        ml = self.tuning.min_size
        threshold = self.tuning.threshold
        edges = [0, *found, self.n]
        out: list[int] = []
        for a, c, b in zip(edges, edges[1:], edges[2:], strict=False):
            if c - a > ml and b - c > ml and (a, c, b) not in self.unsplit:
                k1 = self.best_split(a, c, a + ml, c - 1)
                k2 = self.best_split(c, b, c + 1, b - ml)
                if (
                    k2 - k1 >= ml
                    and self.gain(a, (c,), (k1, k2), b) >= threshold * self.bar(k2 - k1)
                    and self.score(a, k1, k2) >= threshold
                    and self.score(k1, k2, b) >= threshold
                ):
                    out += (k1, k2)
                    self.radius[k1] = self.radius[k2] = max(2, ml)
                    continue
                self.unsplit.add((a, c, b))
            out.append(c)
        return out

    def gain(self, a: int, one: tuple[int, ...], two: tuple[int, ...], b: int) -> float:
        """How much better the breaks ``two`` fit the points a..b-1 than the breaks
        ``one``: the square root of the least squares they save, in units of the local
        noise (correlated noise has larger sums: its long-run variance). For one break
        more, as for one break in a level, it is that break's difference of means over
        its standard error."""
        S, Q = self.S, self.Q

        def squares(edges: tuple[int, ...]) -> float:
            return math.fsum(Q[e] - Q[d] - (S[e] - S[d]) ** 2 / (e - d) for d, e in pairwise(edges))

        saved = squares((a, *one, b)) - squares((a, *two, b))
        noise = self.factor * self.correlation.long_run() * (self.V[b] - self.V[a]) / (b - a)
        return math.sqrt(saved / noise) if saved > 0 else 0.0

    # -- what is not a step ------------------------------------------------------------

    def excursions(self, found: list[int]) -> tuple[list[int], list[Excursion]]:
        """Levels of at most ``excursion`` points between two levels that do not differ,
        each at least twice as long (a change that lasts a third of a short walk
        matters): excursions, not two changes. Their points are replaced by the level around them
        and the breaks left are tested again."""
        edges = [0, *found, self.n]
        spans: list[tuple[int, int, int, int]] = []
        dropped: set[int] = set()
        j = 1
        longest = self.tuning.excursion
        while j + 2 < len(edges):
            left, a, b, right = edges[j - 1 : j + 3]
            if b - a <= longest + 2 * _POINTS:  # its ends to the point first
                base = self.mean2(left, a, b, right)
                a, b = self.ends((left, a, b, right), self.mean(a, b), base)
            around = min(a - left, right - b) >= _AROUND * (b - a)
            if around and b - a <= _WIDER * longest and not self.differ(left, a, b, right):
                inner = (a, b) if b - a <= longest else self.inner_run((left, a, b, right))
                if inner is not None:
                    spans.append((left, *inner, right))
                    dropped.update(edges[j : j + 2])  # the breaks around it
                    j += 2
                    continue
            j += 1
        if not spans:
            return found, []
        y = numbers(self.y).copy()
        out = []
        for left, a, b, right in spans:
            base = self.mean2(left, a, b, right)
            level = self.mean(a, b)
            v = self.point_variance(a, b)
            v_base = (
                (a - left) * self.point_variance(left, a)
                + (right - b) * self.point_variance(b, right)
            ) / (a - left + right - b)
            se = math.sqrt(self.difference_variance(a - left + right - b, v_base, b - a, v))
            out.append(
                Excursion(a, b, self.center + level, self.center + base, se, (level - base) / se)
            )
            y[a:b] = base
            dropped.update(range(a - _POINTS, b + _POINTS + 1))
        self.set_points(y)
        return self.eliminate([c for c in found if c not in dropped]), out

    def inner_run(self, span: tuple[int, int, int, int]) -> tuple[int, int] | None:
        """The excursion inside level a..b-1 of ``span`` (left, a, b, right), a level
        longer than ``excursion`` points between two that do not differ: the run of at
        most ``excursion`` of its points furthest from the level around, when the rest
        of it does not differ from that level (the noise made the points next to a
        short dip low too, and the two breaks went around both); None otherwise."""
        left, a, b, right = span
        longest = self.tuning.excursion
        base = self.mean2(left, a, b, right)
        S = self.S
        best, run = -1.0, (a, b)
        for c in range(a, b):
            for d in range(c + 1, min(c + longest, b) + 1):
                excess = S[d] - S[c] - (d - c) * base
                if excess * excess / (d - c) > best:
                    best, run = excess * excess / (d - c), (c, d)
        c, d = run
        rest, outside = b - a - (d - c), a - left + right - b
        v = (
            (a - left) * self.point_variance(left, a) + (right - b) * self.point_variance(b, right)
        ) / outside
        moved = (S[b] - S[a] - (S[d] - S[c])) / rest - base
        away = (S[d] - S[c]) / (d - c) - base
        if moved * moved >= (self.tuning.threshold / 2) ** 2 * self.difference_variance(
            outside, v, rest, v
        ):
            return None  # the rest of the level differs too: a change that lasted
        if away * away < self.tuning.threshold**2 * self.difference_variance(outside, v, d - c, v):
            return None
        return c, d

    def mean2(self, left: int, a: int, b: int, right: int) -> float:
        """The level of points left..a-1 and b..right-1 together."""
        (w0, s0, _), (w1, s1, _) = self.running(left), self.running(a)
        (w2, s2, _), (w3, s3, _) = self.running(b), self.running(right)
        return (s1 - s0 + s3 - s2) / (w1 - w0 + w3 - w2)

    def ends(self, span: tuple[int, int, int, int], level: float, base: float) -> tuple[int, int]:
        """The excursion a..b-1 of ``span`` (left, a, b, right; mean ``level``, the level
        around it ``base``) with its ends moved, by a point or two, to the points nearer
        the one level than the other (a break is placed to a point or two only)."""
        left, a, b, right = span

        def inside(i: int) -> bool:
            return abs(self.y[i] - level) < abs(self.y[i] - base)

        for _ in range(_POINTS):
            if a - 1 > left and inside(a - 1):
                a -= 1
            elif b - a > 1 and not inside(a):
                a += 1
            if b < right - 1 and inside(b):
                b += 1
            elif b - a > 1 and not inside(b - 1):
                b -= 1
        return a, b

    def runs(self) -> list[Excursion]:
        """The runs of 3 or 4 points that the spike filter replaced: excursions too (a
        point or two is a spike)."""
        out = []
        start = 0
        replaced = self.replaced
        for j, i in enumerate(replaced):
            if j + 1 < len(replaced) and replaced[j + 1] == i + 1:
                continue
            first, end = replaced[start], i + 1
            start = j + 1
            if end - first < _RUN or not 0 < first < end < self.n:
                continue
            level = math.fsum(self.x[first:end]) / (end - first)
            base = self.center + math.fsum(self.y[first:end]) / (end - first)
            variance = (self.V[end] - self.V[first]) / (end - first)
            se = math.sqrt(variance * (1 / (end - first) + 1 / (2 * REFERENCE)))
            out.append(Excursion(first, end, level, base, se, (level - base) / se))
        return out

    def differ(self, left: int, a: int, b: int, right: int) -> bool:
        """Whether the levels left..a-1 and b..right-1 differ: they pass the test of a
        step, or half of it while at least ``min_change`` apart (not quite back where
        they were)."""
        one, two = self.side(left, a), self.side(b, right)
        score = self.judge(one, two, self.jump(left, a, b, right))
        if score >= self.tuning.threshold:
            return True
        change = self.tuning.min_change
        apart = abs(self.relative(one.mean, two.mean - one.mean)) >= change
        return bool(change) and apart and score >= self.tuning.threshold / 2

    def edges(self, found: list[int]) -> list[Break]:
        """A step that leaves fewer than ``min_size`` points at either end (the points
        as measured: the spike filter replaces a last point beyond a jump)."""
        n, ml = self.n, self.tuning.min_size
        first = found[0] if found else n
        last = found[-1] if found else 0
        out = []
        starts = [(k, self.edge(0, k, first, start=True)) for k in range(1, ml) if first - k >= ml]
        ends = [
            (k, self.edge(n - k, n, last, start=False)) for k in range(1, ml) if n - k - last >= ml
        ]
        for choices in (starts, ends):
            passing = [
                (score, brk) for _, (score, brk) in choices if score >= self.tuning.threshold
            ]
            if passing:  # where the step is: the largest difference for its noise
                out.append(max(passing, key=lambda sb: abs(sb[1].t))[1])
        return sorted(out, key=lambda brk: brk.index)

    def edge(self, e0: int, e1: int, limit: int, *, start: bool) -> tuple[float, Break]:
        """(score, break) of the edge level e0..e1-1 against the level up to ``limit``."""
        k = e1 - e0
        m_edge = math.fsum(self.x[e0:e1]) / k - self.center
        v_edge = self.factor * (self.V[e1] - self.V[e0]) / k
        a, b = (e1, limit) if start else (limit, e0)
        length = b - a
        other = self.side(a, b)
        m_other, v_other = other.mean, other.variance
        if start:
            value, points = self.near(a, b, end=False)
            jump = Jump(value - m_edge, float(k), points)
            score = self.judge(Side(k, m_edge, v_edge), other, jump, edge=True)
            se = math.sqrt(self.difference_variance(k, v_edge, length, v_other))
            brk = Break(
                e1,
                self.center + m_edge,
                self.center + m_other,
                se,
                (m_other - m_edge) / se,
                k,
                length,
            )
        else:
            value, points = self.near(a, b, end=True)
            jump = Jump(m_edge - value, points, float(k))
            score = self.judge(other, Side(k, m_edge, v_edge), jump, edge=True)
            se = math.sqrt(self.difference_variance(length, v_other, k, v_edge))
            brk = Break(
                e0,
                self.center + m_other,
                self.center + m_edge,
                se,
                (m_edge - m_other) / se,
                length,
                k,
            )
        return score, brk

    def drifts(self, found: list[int]) -> list[Drift]:
        """Levels of at least twice ``jump_window`` points along which the points move:
        the change of their straight line, tested against the stationary part of the
        noise (a random walk is what a drift is)."""
        tuning = self.tuning
        long_run = self.correlation.long_run()
        out = []
        for a, b in pairwise([0, *found, self.n]):
            length = b - a
            if length < 2 * tuning.jump_window:
                continue
            middle = a + (length - 1) / 2
            sxx = length * (length * length - 1) / 12
            total = self.S[b] - self.S[a]
            mean = total / length
            sxy = self.T[b] - self.T[a] - middle * total
            change = sxy / sxx * (length - 1)
            first = mean - change / 2
            v = self.point_variance(a, b)
            se = math.sqrt(v * long_run * (length - 1) ** 2 / sxx)
            t = change / se
            if (
                abs(t) < tuning.threshold
                or min(self.meaningful(first, change, v, v), 1e300) < tuning.threshold
            ):
                continue
            out.append(Drift(a, b, self.center + first, self.center + first + change, se, t))
        return out
