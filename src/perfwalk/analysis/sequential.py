"""When to stop an A/B try: a sequential comparison of two builds measured in turns.

``perfwalk try`` measures the two sides in the order A B B A A B B A … (:func:`side`)
on the same host and calls :func:`decide` after every pair. The answer is one of
WORSE, BETTER (B against A, beyond ``min_change``), SAME (equivalent within
``±min_change``) or UNDECIDED, and whether the test stops for this metric.

The model. Values are compared on the log scale (a change is relative, noise is
relative): ``log y = μ + δ·[B] + β·slot + ε``, fitted by least squares over both
sides, ``slot`` being the value's place in the A B B A order. The change is
``exp(δ) - 1``, its interval ``exp(δ ± t·se) - 1`` with Student's t on
``n_a + n_b - 3`` degrees of freedom. Why this model and not another:

* The ABBA order balances a linear drift of the machine in the two means (exactly
  after every complete A B B A block, nearly after a half block), but a drift also
  spreads each side's values: the unpaired t-test (ministat's) counts that spread as
  noise. It stays correct but loses power the more the machine drifts.
* The differences of consecutive pairs (B - A of A B, then of B A) cancel a linear
  drift in the mean, and a drift term for their alternating sign cancels it in the
  variance too; but they have half the degrees of freedom (``n - 2``), which at the
  first looks, where a large change should stop the try, costs more than it gains
  (t at 3 pairs and 1 degree of freedom), and slowly wandering noise (AR(1)) makes
  neighbouring pair differences correlated, so their variance is underestimated.
* The drift term ``β·slot`` in the model above removes a linear drift from the
  estimate and from the residual variance exactly, at the cost of one degree of
  freedom out of ``2n - 2``: the power of the unpaired test without drift, all of it
  with drift. What the line does not capture (AR(1) noise, a loaded stretch, a bend)
  stays in the residuals: the ABBA contrast cancels slow wander, so its true variance
  is smaller than the residuals say (for AR(1) noise, by ``1 / (1 + φ²)``), and the
  test errs on the safe side. The simulations in tests/analysis/test_sequential.py
  and bench/try.py measure that (bench/try.py: 0.9 % false WORSE at no change on a
  machine drifting by 0.25 % a repetition with AR(1) noise, 1.6 % on a steady one).

Repeated looks. The try looks at the data only at ``n = 3, 4, 6, 8, 11, 16, 23,
32, …`` repetitions per side (about ×√2 each, :func:`looks`), the last look at
``most``. Each look's interval is at the level ``1 - α / K`` (Bonferroni over the K
looks of the schedule, α = 1 - confidence): the intervals of all looks then hold
*together* with the configured confidence, whatever the dependence between looks,
drift and autocorrelation included. So every verdict (a difference, an
equivalence) is wrong with probability at most α over the whole try, and the try
loop may keep measuring after a metric is decided (for another metric) and read its
later looks without breaking that promise. Why not an alpha-spending function
(Pocock, O'Brien–Fleming) or an anytime-valid confidence sequence: the spending
boundaries come from the joint normal distribution of the looks, which the t of a
handful of values and autocorrelated noise do not follow, for a gain of about 7 %
(Pocock's constant boundary on these 8 looks, normal case: z = 2.55 against
Bonferroni's 2.73). Confidence sequences valid at every single value are wider
still at the 3 to 10 repetitions where a try should stop on a large change. The
geometric schedule keeps K small (8 looks up to 30 repetitions) while looking early.

The verdict at a look, with the change ``c`` of B against A and its interval
``[low, high]``:

* the interval excludes 0 and ``|c| > min_change``: WORSE or BETTER (by the
  metric's direction), final;
* the interval lies within ``±min_change``: SAME, final (an equivalence test,
  TOST at the corrected level);
* else (including a certain change smaller than ``min_change`` whose interval
  still reaches beyond ``±min_change``): UNDECIDED, final only at ``most``.

The values of a side are taken in the order measured, its ``i``-th value at that
side's ``i``-th place in the order (:func:`slot`). Their logarithms are compared when
all values are positive; otherwise the same model runs on the values themselves and
the change is relative to the mean of A.

Pure: numbers in, typed results out. No I/O, no clock, no randomness.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Literal

from perfwalk.analysis.scaled import ratio_change
from perfwalk.errors import UsageError

Side = Literal["A", "B"]

#: The first look: fewer values leave the model (3 parameters) too few degrees of freedom.
FIRST_LOOK = 3
DEFAULT_CONFIDENCE = 95.0
DEFAULT_MIN_CHANGE = 0.01


def side(position: int) -> Side:
    """The side measured at ``position`` (from 0): A B B A, A B B A, …"""
    if position < 0:
        raise ValueError(f"position {position} is negative")
    return "A" if position % 4 in (0, 3) else "B"


def slot(which: Side, index: int) -> int:
    """The position of the ``index``-th (from 0) repetition of side ``which``."""
    if index < 0:
        raise ValueError(f"index {index} is negative")
    block, second = divmod(index, 2)
    if which == "A":
        return 4 * block + (3 if second else 0)
    return 4 * block + (2 if second else 1)


def looks(most: int) -> tuple[int, ...]:
    """The repetitions per side at which the try looks: about ×√2 apart, up to ``most``."""
    if most < FIRST_LOOK:
        raise UsageError(
            f"at most {most} repetitions per side: too few for a sequential test",
            hint=f"allow {FIRST_LOOK} repetitions per side or more (--max-repetitions)",
        )
    schedule: list[int] = []
    k = 0
    while (n := round(4 * math.sqrt(2) ** (k - 1))) < most:
        if not schedule or n > schedule[-1]:
            schedule.append(n)
        k += 1
    schedule.append(most)
    return tuple(schedule)


def look_confidence(confidence: float, most: int) -> float:
    """The two-sided confidence (in %) of each look's interval: 1 - α / K."""
    return each_confidence(_check_confidence(confidence), len(looks(most)))


def each_confidence(confidence: float, count: int) -> float:
    """The confidence (in %) of each of ``count`` intervals or comparisons for which
    all of them together hold at ``confidence`` (Bonferroni: 1 - α / count)."""
    return 100 * (1 - (1 - confidence / 100) / count)


class Verdict(enum.Enum):
    WORSE = "worse"
    BETTER = "better"
    SAME = "same"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class Decision:
    """The decision at one look (or between looks: UNDECIDED, not final)."""

    verdict: Verdict
    final: bool  # the test stops for this metric
    change: float  # B against A, as a share: 0.10 = B is 10 % higher
    low: float  # the change's interval at the look's level (nan: too few values)
    high: float
    count_a: int
    count_b: int
    reason: str
    level: float  # the two-sided confidence of each look's interval, in %
    look: bool  # these counts are one of the looks of the schedule (or the last)


@dataclass(frozen=True)
class Estimate:
    """The fitted change (log scale or linear) with its standard error."""

    delta: float  # log(B / A), or B - A on the linear scale
    se: float
    degrees: int
    logged: bool
    scale: float  # the linear scale's reference: |mean of A|; 1 when logged

    def change(self, delta: float) -> float:
        return ratio_change(delta) if self.logged else delta / self.scale


def estimate(a: Sequence[float], b: Sequence[float]) -> Estimate | None:
    """The change of ``b`` against ``a`` under the drift model (None: too few values).

    ``a`` and ``b`` are in the order measured, the ``i``-th value of a side at that
    side's ``i``-th slot (:func:`slot`).
    """
    degrees = len(a) + len(b) - 3
    if not a or not b or degrees < 1:
        return None
    logged = all(v > 0 for v in (*a, *b))
    ys = [math.log(v) for v in (*a, *b)] if logged else [float(v) for v in (*a, *b)]
    scale = 1.0 if logged else abs(math.fsum(a) / len(a))
    xs = [float(slot("A", i)) for i in range(len(a))] + [float(slot("B", i)) for i in range(len(b))]
    gs = [0.0] * len(a) + [1.0] * len(b)
    # Frisch–Waugh: δ is the slope of y on g once both are freed of (1, slot)
    y_res, g_res = _residuals(ys, xs), _residuals(gs, xs)
    sgg = math.fsum(g * g for g in g_res)
    if sgg <= 0:  # cannot happen with both sides present and distinct slots
        return None
    delta = math.fsum(g * y for g, y in zip(g_res, y_res, strict=True)) / sgg
    rss = math.fsum((y - delta * g) ** 2 for g, y in zip(g_res, y_res, strict=True))
    se = math.sqrt(max(rss, 0.0) / degrees / sgg)
    return Estimate(delta, se, degrees, logged, scale)


def _residuals(values: Sequence[float], xs: Sequence[float]) -> list[float]:
    """``values`` minus their least-squares line over ``xs``."""
    n = len(values)
    mx = math.fsum(xs) / n
    mv = math.fsum(values) / n
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    slope = math.fsum((x - mx) * (v - mv) for x, v in zip(xs, values, strict=True)) / sxx
    return [v - mv - slope * (x - mx) for x, v in zip(xs, values, strict=True)]


def decide(
    a: Sequence[float],
    b: Sequence[float],
    *,
    higher_is_better: bool,
    confidence: float = DEFAULT_CONFIDENCE,
    min_change: float = DEFAULT_MIN_CHANGE,
    most: int,
) -> Decision:
    """The decision after ``len(a)`` A and ``len(b)`` B values (in the order measured).

    Only the looks of :func:`looks` decide; between them the answer is UNDECIDED and
    not final, with the current estimate. At ``most`` values per side the test ends.
    """
    for name, values in (("A", a), ("B", b)):
        if not all(math.isfinite(v) for v in values):
            raise ValueError(f"side {name} has a value that is not a finite number")
    if min_change < 0:
        raise ValueError(f"min_change {min_change} is negative")
    schedule = looks(most)
    level = look_confidence(confidence, most)
    count_a, count_b = len(a), len(b)
    last = min(count_a, count_b) >= most
    look = (count_a == count_b and count_a in schedule) or last
    counts = f"after {count_a} + {count_b} repetitions"
    fit = estimate(a, b)
    if fit is None or fit.scale == 0:
        why = "too few values" if fit is None else "the A values average 0"
        return Decision(
            Verdict.UNDECIDED,
            last,
            math.nan,
            math.nan,
            math.nan,
            count_a,
            count_b,
            f"no decision {counts}: {why}",
            level,
            look,
        )
    half = student_t_quantile(1 - (1 - level / 100) / 2, fit.degrees) * fit.se
    change = fit.change(fit.delta)
    low, high = fit.change(fit.delta - half), fit.change(fit.delta + half)
    shown = interval_text(change, low, high)

    def decision(verdict: Verdict, final: bool, reason: str) -> Decision:
        return Decision(verdict, final, change, low, high, count_a, count_b, reason, level, look)

    upcoming = next(
        (n for n in schedule if n >= max(count_a, count_b) and (n, n) != (count_a, count_b)),
        most,
    )
    then = f"the next look is at {upcoming} + {upcoming}"
    if not look:
        return decision(Verdict.UNDECIDED, False, f"between looks: {shown} {counts}; {then}")
    at = f"at {confidence:g} % {counts}"
    bound = f"±{100 * min_change:g} %"
    certain = low > 0 or high < 0
    if certain and abs(change) > min_change:
        worse = (change < 0) if higher_is_better else (change > 0)
        # the size of the change and its interval, as magnitudes
        up = (low, high) if change > 0 else (-high, -low)
        size = ", ".join(_percent(v, sign=False) for v in up)
        size = f"{_percent(abs(change), sign=False)} [{size}]"
        if worse:
            return decision(Verdict.WORSE, True, f"B is worse by {size} {at}")
        return decision(Verdict.BETTER, True, f"B is better by {size} {at}")
    if -min_change <= low and high <= min_change:
        return decision(Verdict.SAME, True, f"equivalent within {bound}: {shown} {at}")
    if last:
        why = (
            f"a change is certain but may lie within {bound}"
            if certain
            else f"the interval holds both no change and a change beyond {bound}"
        )
        return decision(
            Verdict.UNDECIDED,
            True,
            f"no decision after the maximum of {count_a} + {count_b} repetitions: {shown}; {why}",
        )
    return decision(Verdict.UNDECIDED, False, f"no decision yet: {shown} {counts}; {then}")


def interval_text(change: float, low: float, high: float) -> str:
    """``+6.7 % [-1.1 %, +15.0 %]``: a change with its interval, as a decision's reason
    writes them."""
    return f"{_percent(change)} [{_percent(low)}, {_percent(high)}]"


def _percent(share: float, *, sign: bool = True) -> str:
    """A share in % to one decimal (no "-0.0")."""
    rounded = round(100 * share, 1) + 0.0
    return f"{rounded:+.1f} %" if sign else f"{rounded:.1f} %"


def _check_confidence(confidence: float) -> float:
    if not 50 <= confidence < 100:
        raise UsageError(
            f"confidence {confidence:g} %: a confidence level is between 50 and 100 %",
            hint="give a level such as 95 or 99",
        )
    return confidence


# Student's t, at any level and degrees of freedom


def student_t_cdf(t: float, degrees: float) -> float:
    """P(T ≤ t) for Student's t with ``degrees`` (> 0) degrees of freedom."""
    if degrees <= 0:
        raise ValueError(f"degrees of freedom {degrees} is not positive")
    if math.isinf(degrees):
        return NormalDist().cdf(t)
    tail = 0.5 * incomplete_beta(degrees / (degrees + t * t), degrees / 2, 0.5)
    return 1 - tail if t > 0 else tail


@lru_cache(maxsize=4096)
def student_t_quantile(p: float, degrees: float) -> float:
    """The ``t`` with P(T ≤ t) = p: bisection on :func:`student_t_cdf` to float precision."""
    if not 0 < p < 1:
        raise ValueError(f"probability {p} is not between 0 and 1")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -student_t_quantile(1 - p, degrees)
    low, high = 0.0, max(1.0, NormalDist().inv_cdf(p))
    while student_t_cdf(high, degrees) < p:
        low, high = high, 2 * high
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if student_t_cdf(middle, degrees) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def incomplete_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b) (continued fraction, Lentz)."""
    if not 0 <= x <= 1:
        raise ValueError(f"x = {x} is not between 0 and 1")
    if x in (0, 1):
        return x
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(x, a, b) / a
    return 1 - front * _beta_fraction(1 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 1000):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return result
