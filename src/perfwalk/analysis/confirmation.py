"""Whether a re-measure confirms a change (``[run] confirm``, ``[watch] confirm``).

A change's two checkouts are measured again side by side, interleaved (before,
after, after, before, … as a try's A B B A), until a sequential test decides or the
budget is spent (docs/analysis.md, "Confirmed by a re-measure"). The rules are
defined here and nowhere else:

a metric's re-measure is decided (:func:`decide_again`) by the sequential test of
:mod:`perfwalk.analysis.sequential` (the drift model, looks at 3, 4, 6, 8, 11, …
repetitions per side, intervals that hold together at the configured confidence). It
**held** when the interval does not hold 0 and the checkout after differs from the
one before the change's way by more than the metric's ``min_change`` (the change is
there, whatever its size now); it did **not hold** when the interval lies within ±
the margin :func:`margin` (:data:`HELD_SHARE` of the change's size, at least the
metric's ``min_change``: the two checkouts, measured side by side, do not differ by
half the change: a change made by time or by a load on one side) and what it measured
is at most :data:`EQUAL_SHARE` of that margin (or ``min_change``), or when it does
not hold 0 and the difference is the other way; it stays **undecided** as long as
neither, and for good at the most repetitions per side. A metric whose test gave no
value on a side after :data:`FIRST_LOOK` pairs did not hold.

Undecided (the budget spent before a decision), a re-measure is told for the
hypothesis its values are nearer to (:func:`held`): the re-measured difference
``after - before`` of the means has the sign of the change's difference (the levels'
``after - before``) and at least :data:`HELD_SHARE` of its size. With one value each
side, as a re-measure of one pair was before the sequential test, that is all there
is: halfway between "the change is there" and "nothing changed" is where they are
equally likely under the same symmetric noise.

Pure: numbers in, verdicts out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from perfwalk.analysis.sequential import (
    FIRST_LOOK,
    Verdict,
    decide,
    estimate,
    interval_text,
    student_t_cdf,
)

#: a re-measure within ± the margin refutes a change only when what it measured is
#: also at most this share of the margin (or ``min_change``): a real step that a load
#: on one side made look larger is measured again at its own size, inside a margin of
#: half the inflated size, and must not be refuted for that (it goes on, and holds)
EQUAL_SHARE = 0.25

#: what a re-measure found: the change is there, it is not, or no decision yet
HELD, NOT_HELD, UNDECIDED = "held", "not held", "undecided"

#: the share of the change's difference a re-measured difference must reach
HELD_SHARE = 0.5


def held(change_before: float, change_after: float, before: float, after: float) -> bool:
    """Whether the re-measured ``before`` → ``after`` holds the change ``change_before`` →
    ``change_after`` (its levels): the same sign and at least half the difference."""
    expected = change_after - change_before
    seen = after - before
    if not (math.isfinite(expected) and math.isfinite(seen)) or expected == 0:
        return False
    return seen * expected > 0 and abs(seen) >= HELD_SHARE * abs(expected)


def one_value(values: Sequence[float]) -> float | None:
    """The value of one repetition (the mean when a test printed the value several
    times), or of the repetitions of one side measured again; None when there is none
    (the test failed)."""
    return math.fsum(values) / len(values) if values else None


def moved(before: float, after: float) -> float:
    """The relative move a re-measure measured, ``(after - before) / |before|``
    (±inf from 0)."""
    if before:
        return (after - before) / abs(before)
    return math.copysign(math.inf, after) if after else 0.0


def standing(outcome: str, *, final: bool) -> str:
    """A re-measure's outcome in words: held, not held, undecided (for good, at its
    most repetitions), or "undecided yet" while it may be measured on."""
    return outcome if final or outcome != UNDECIDED else "undecided yet"


def margin(change_before: float, change_after: float, min_change: float) -> float:
    """The difference (a share of the level before) a re-measure must exceed to hold
    and stay within not to: :data:`HELD_SHARE` of the change's size (to a tenth of a
    percent), at least ``min_change``; ``min_change`` alone for a change from a level
    of 0."""
    if change_before == 0 or not (math.isfinite(change_before) and math.isfinite(change_after)):
        return min_change
    size = abs(change_after - change_before) / abs(change_before)
    return max(min_change, round(HELD_SHARE * size, 3))  # to a tenth of a percent


@dataclass(frozen=True)
class Again:
    """What a metric's re-measure found so far (:func:`decide_again`)."""

    outcome: str  # HELD, NOT_HELD or UNDECIDED
    final: bool  # nothing more to measure for it: decided, or the most reached
    held: bool  # the change is there: by the decision, or (undecided) the nearer answer
    change: float  # after against before, a share (nan: too few values)
    low: float  # its interval at the look's level (nan: too few values)
    high: float
    p_value: float  # two-sided, of no difference, at this look (nan: too few values)
    level: float  # the confidence of each look's interval, in %
    reason: str


def decide_again(
    before: Sequence[float],
    after: Sequence[float],
    *,
    levels: tuple[float, float],
    higher_is_better: bool,
    confidence: float,
    min_change: float,
    most: int,
) -> Again:
    """The re-measure of a change from ``levels[0]`` to ``levels[1]``, given the values
    measured again at its two checkouts (each side in the order measured, the
    before side first in every A B B A block)."""
    expected = levels[1] - levels[0]
    if not before or not after:
        measured = max(len(before), len(after))
        final = measured >= FIRST_LOOK  # as many as the first look, and none on one side
        side = "before" if not before else "after"
        why = f"the test gave no value at the checkout {side} the change in {measured}"
        nan = math.nan
        return Again(NOT_HELD if final else UNDECIDED, final, False, nan, nan, nan, nan, nan, why)
    found = decide(
        before,
        after,
        higher_is_better=higher_is_better,
        confidence=confidence,
        min_change=min_change,
        most=most,
    )
    bound = margin(levels[0], levels[1], min_change)
    reason, final = found.reason.replace("B is ", "the checkout after is ", 1), found.final
    if found.verdict in (Verdict.WORSE, Verdict.BETTER):
        outcome = HELD if found.change * expected > 0 else NOT_HELD
        if outcome == NOT_HELD:
            reason = f"the other way: {reason}"
    elif found.verdict is Verdict.SAME:
        outcome = NOT_HELD
    elif (
        found.look
        and -bound <= found.low
        and found.high <= bound
        and abs(found.change) <= max(min_change, EQUAL_SHARE * bound)
    ):
        outcome, final = NOT_HELD, True
        reason = (
            f"no difference of half the change (±{100 * bound:g} %): "
            f"{interval_text(found.change, found.low, found.high)} at {confidence:g} % after "
            f"{len(before)} + {len(after)} repetitions"
        )
    else:
        outcome = UNDECIDED
    mean_before, mean_after = one_value(before), one_value(after)
    nearer = (
        mean_before is not None
        and mean_after is not None
        and held(levels[0], levels[1], mean_before, mean_after)
    )
    return Again(
        outcome=outcome,
        final=final,
        held=outcome == HELD or (outcome == UNDECIDED and nearer),
        change=found.change,
        low=found.low,
        high=found.high,
        p_value=_p_value(before, after),
        level=found.level,
        reason=reason,
    )


def _p_value(before: Sequence[float], after: Sequence[float]) -> float:
    """Two-sided p of no difference under the drift model (nominal: one look)."""
    fit = estimate(before, after)
    if fit is None:
        return math.nan
    if fit.se == 0:
        return 1.0 if fit.delta == 0 else 0.0
    return 2 * (1 - student_t_cdf(abs(fit.delta / fit.se), fit.degrees))
