"""Number reading and value-list helpers shared by the parsers."""

from __future__ import annotations

import math
from collections.abc import Iterable

from perfwalk.errors import ParseError
from perfwalk.model import Value

NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
"""A decimal number as tools print it: ``12``, ``-0.5``, ``.5``, ``1.2e+09``."""


def finite(text: str) -> float | None:
    """``text`` as a float, or None when it is not a finite number."""
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def require(values: Iterable[Value], looked_for: str) -> tuple[Value, ...]:
    """``values`` as a tuple; ParseError naming what was looked for when there is none.

    A value that arithmetic made infinite (a sum or a scale past the float range)
    is a ParseError too: a parser never returns a number that is not finite.
    """
    found = tuple(values)
    if not found:
        raise ParseError(f"no value found: looked for {looked_for}")
    for value in found:
        if not math.isfinite(value.value):
            raise ParseError(f"{value.name}: {value.value} is not a finite number")
    return found


def mean_of_repeats(values: Iterable[Value]) -> tuple[Value, ...]:
    """One value per name, the mean of its occurrences, in order of first appearance.

    Used where a tool prints the same measurement several times in one execution
    (``go test -count N``, Google Benchmark repetitions). The unit is the first's.
    """
    groups: dict[str, list[Value]] = {}
    for value in values:
        groups.setdefault(value.name, []).append(value)
    merged = []
    for name, group in groups.items():
        # Dividing first keeps the sum of finite values finite.
        mean = math.fsum(v.value / len(group) for v in group)
        merged.append(Value(name, mean, group[0].unit))
    return tuple(merged)
