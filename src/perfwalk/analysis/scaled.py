"""Sums that never overflow: numbers far from 1 are scaled by a power of two first.

A mean or a standard deviation adds values and their squares: ``1e308 + 1e308``
and ``(1e200)²`` leave the float range although every value, and the mean, are
in it; ``(1e-200)²`` underflows to 0. Scaling by a power of two is exact (every
value keeps its digits), so a statistic computed on scaled values and scaled back
is the same number, without the overflow. Numbers between ``2**-SAFE`` and
``2**SAFE`` in magnitude are used as they are: the statistics of everyday numbers
are computed exactly as they always were, to the last bit.

A result that is itself beyond the float range (the standard deviation of
``-1.7e308`` and ``1.7e308``, the difference of ``1e308`` and ``-1e308``) is
``±inf``; the mean and the median of finite numbers never are.

Pure: numbers in, numbers out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

#: Numbers of magnitude 2**-SAFE … 2**SAFE are summed and squared as they are.
SAFE = 128
_HIGH = 2.0**SAFE
_LOW = 2.0**-SAFE


def exponent(values: Iterable[float]) -> int:
    """``k`` such that ``values / 2**k`` can be summed and squared safely.

    0 when they already can (their largest magnitude lies between ``2**-SAFE`` and
    ``2**SAFE``, or is 0, or is not finite); else the binary exponent of the largest
    magnitude, which ``values / 2**k`` brings between 0.5 and 1.
    """
    largest = max(map(abs, values), default=0.0)
    if largest == 0.0 or _LOW <= largest <= _HIGH or not math.isfinite(largest):
        return 0
    return math.frexp(largest)[1]


def scale(value: float, k: int) -> float:
    """``value × 2**k``: exact, unless it leaves the float range (then ±inf, or a
    number rounded to the nearest subnormal)."""
    if k == 0:
        return value
    try:
        return math.ldexp(value, k)
    except OverflowError:
        return math.copysign(math.inf, value)


def scaled(values: Iterable[float], k: int) -> list[float]:
    """Every value divided by ``2**k``."""
    return list(values) if k == 0 else [math.ldexp(v, -k) for v in values]


def mean(values: Sequence[float]) -> float:
    """The mean of ``values`` (finite numbers, at least one); never overflows."""
    if not values:
        raise ValueError("the mean of no values")
    k = exponent(values)
    return scale(math.fsum(scaled(values, k)) / len(values), k)


def sample_sd(values: Sequence[float], centre: float | None = None) -> float:
    """The sample standard deviation (n - 1) of ``values``, around their mean unless
    ``centre`` is given; 0 for fewer than two values; ``inf`` only when the true
    deviation exceeds the float range."""
    n = len(values)
    if n < 2:
        return 0.0
    k = exponent([*values, 0.0 if centre is None else centre])
    x = scaled(values, k)
    middle = math.fsum(x) / n if centre is None else scale(centre, -k)
    return scale(math.sqrt(math.fsum([(v - middle) ** 2 for v in x]) / (n - 1)), k)


def midpoint(a: float, b: float) -> float:
    """``(a + b) / 2`` without overflow."""
    middle = (a + b) / 2
    return middle if math.isfinite(middle) else a / 2 + b / 2


def relative_distance(value: float, reference: float) -> float:
    """``|value - reference| / |reference|`` (``reference`` not 0), without overflow
    in the difference."""
    distance = abs(value - reference)
    if math.isinf(distance):
        return abs(value / 2 - reference / 2) / abs(reference) * 2
    return distance / abs(reference)


#: exp() of more leaves the float range
EXP_LIMIT = 709.0


def ratio_change(log_step: float) -> float:
    """``exp(log_step) - 1``, the relative change of a step on logarithms; ``inf``
    beyond the float range (levels more than 1e307 times apart, or the bound of an
    interval that wide)."""
    return math.expm1(log_step) if log_step < EXP_LIMIT else math.inf


def median(values: Sequence[float]) -> float:
    """The median of ``values`` (at least one): the mean of the middle two for an
    even count, without overflow."""
    if not values:
        raise ValueError("the median of no values")
    ordered = sorted(values)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else midpoint(ordered[half - 1], ordered[half])
