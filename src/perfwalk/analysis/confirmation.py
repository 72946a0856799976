"""Whether a re-measure confirms a change (``[run] confirm``).

At the end of a walk, each change it found is measured once more at both of its
checkouts, in a new round: one repetition at the checkout before the change, one
at the checkout after, interleaved with the other changes' (docs/analysis.md,
"Confirmed by a re-measure"). The rule is defined here and nowhere else:

a metric's change **held** (:func:`held`) when the re-measured difference
``after - before`` has the sign of the change's difference (the levels' ``after -
before``) and at least :data:`HELD_SHARE` of its size. With one value each side
there is no spread to test against; the re-measure is told for the hypothesis it
is nearer to: "the change is there" (the difference it showed) or "nothing
changed" (no difference). Halfway between the two is where they are equally
likely under the same symmetric noise, so a real change held as often as a
change that is not there fails, and a change made by time (the machine got
slower between the two checkouts' turns) fails: measured again side by side, its
two checkouts no longer differ.

Pure: numbers in, verdicts out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

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
    times); None when it printed none (the test failed)."""
    return math.fsum(values) / len(values) if values else None


def moved(before: float, after: float) -> float:
    """The relative move a re-measure measured, ``(after - before) / |before|``
    (±inf from 0)."""
    if before:
        return (after - before) / abs(before)
    return math.copysign(math.inf, after) if after else 0.0
