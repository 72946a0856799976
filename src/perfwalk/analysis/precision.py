"""When a checkout has enough repetitions: the relative standard error of its values.

Adaptive repetitions (``[run] repetitions_max``) add repetitions at a checkout until
the relative standard error, sd / mean / sqrt(n), of each of its values is below a
target, or the most allowed ran, as the Phoronix Test Suite does. Pure functions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from perfwalk.analysis.summary import summarize


def relative_standard_error(values: Sequence[float]) -> float:
    """sd / |mean| / sqrt(n) of the finite ``values`` (sample sd); inf below two of
    them, 0 when they are all equal."""
    found = summarize(values)  # (finite values only)
    if found is None or found.n < 2:
        return math.inf
    return found.rsd / math.sqrt(found.n)


def wants_more(
    count: int,
    values: Mapping[str, Sequence[float]],
    *,
    least: int,
    most: int,
    target: float,
) -> bool:
    """Whether a checkout with ``count`` repetitions and these ``values`` (by metric)
    gets another: always below ``least``, never at ``most``, in between while a
    metric's relative standard error is at or above ``target``. A checkout without
    values (every repetition failed) gets no more than ``least``."""
    if count < least:
        return True
    if count >= most:
        return False
    return any(relative_standard_error(found) >= target for found in values.values())
