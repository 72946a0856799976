"""The difference of two snapshots of counters (after − before), as a person reads it:
the counters that changed first, the largest change first; new and vanished counters
said as such; the unchanged ones last, in the order the command printed them.

Pure: mappings of numbers in, a tuple of :class:`CounterChange` out. Integers stay
integers (a 64-bit counter's difference is exact).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

Number = int | float


class Change(enum.Enum):
    """What happened to one counter between the two snapshots."""

    CHANGED = "changed"
    NEW = "new"  # only in the snapshot after
    GONE = "gone"  # only in the snapshot before
    SAME = "same"


@dataclass(frozen=True)
class CounterChange:
    """One counter: its value before and after (None where it was not printed) and
    the difference (None for a new or vanished counter)."""

    name: str
    before: Number | None
    after: Number | None
    delta: Number | None
    change: Change


def difference(
    before: Mapping[str, Number], after: Mapping[str, Number]
) -> tuple[CounterChange, ...]:
    """Every counter of ``before`` and ``after``: changed ones by decreasing absolute
    change (then by name), then new ones and vanished ones (by name), then the
    unchanged ones in the order of ``after``."""
    changed: list[CounterChange] = []
    same: list[CounterChange] = []
    new: list[CounterChange] = []
    for name, value in after.items():
        old = before.get(name)
        if old is None:
            new.append(CounterChange(name, None, value, None, Change.NEW))
        elif old == value:
            same.append(CounterChange(name, old, value, 0, Change.SAME))
        else:
            changed.append(CounterChange(name, old, value, value - old, Change.CHANGED))
    gone = [
        CounterChange(name, value, None, None, Change.GONE)
        for name, value in before.items()
        if name not in after
    ]
    changed.sort(key=lambda c: (-abs(c.delta or 0), c.name))
    new.sort(key=lambda c: c.name)
    gone.sort(key=lambda c: c.name)
    return (*changed, *new, *gone, *same)
