"""Sweeps: a ``[[test]]`` declared once with ``[test.sweep]`` lists of parameter
values, that stands for one test per combination of them.

``[test.sweep] size = [64, 1500]; streams = [1, 10]`` on the test ``udp`` makes four
tests, named ``udp[size=64,streams=1]`` … ``udp[size=1500,streams=10]``: the family
name, then every parameter as ``name=value``, the names in alphabetical order, so a
name does not change when a value is added to a list or the parameters are written
in another order (a parameter added to the sweep does change every name: the
members measure something else). Each member's commands get ``{sweep.<name>}``
placeholders, substituted as one shell-quoted word each like every placeholder.

A value is an integer, a float or a short word (letters, digits and ``_ . : + -``),
so that a name reads well on every page and in every terminal.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType

#: One value of a sweep's parameter.
SweepValue = int | float | str

#: The most tests one sweep may expand into (the product of its lists' lengths).
MOST_MEMBERS = 1000
#: A parameter's name: what ``{sweep.<name>}`` and an expression's ``sweep.<name>`` say.
PARAMETER = re.compile(r"[a-z][a-z0-9_]{0,31}")
#: A value that is a word.
WORD = re.compile(r"[A-Za-z0-9_.:+-]{1,64}")
#: The prefix of a sweep's placeholders and of its parameters in expressions.
PREFIX = "sweep."

#: A test's parameters (none for a test without a sweep).
NO_PARAMETERS: Mapping[str, SweepValue] = MappingProxyType({})


def _problem_of_value(name: str, index: int, value: object) -> str | None:
    where = f"{name}[{index}]"
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        what = "a boolean" if isinstance(value, bool) else f"a {type(value).__name__}"
        return f'{where} is {what}: a value is an integer, a float or a word ("em0")'
    if isinstance(value, float) and not math.isfinite(value):
        return f"{where} is {value!r}: a value is a finite number"
    if isinstance(value, str) and WORD.fullmatch(value) is None:
        return (
            f"{where} is {value!r}: a word is 1 to 64 letters, digits and _ . : + - "
            "(it becomes part of the test's name)"
        )
    return None


def sweep_problem(sweep: Mapping[str, object]) -> str | None:
    """What is wrong with a ``[test.sweep]`` table (None: nothing): a parameter's name,
    an empty list, a value that is no number or word, a value listed twice, more
    combinations than :data:`MOST_MEMBERS`."""
    members = 1
    for name, values in sweep.items():
        if PARAMETER.fullmatch(name) is None:
            return (
                f"parameter {name!r}: a name is a lower-case letter, then lower-case letters, "
                "digits and _ (it becomes {sweep." + name + "})"
            )
        if not isinstance(values, list | tuple):
            return f"{name} is not a list: write {name} = [{values!r}] for one value"
        if not values:
            return f"{name} is an empty list: give it a value at least, or remove it"
        seen: dict[str, int] = {}
        for index, value in enumerate(values):
            problem = _problem_of_value(name, index, value)
            if problem is not None:
                return problem
            text = shown(value)
            if text in seen:
                return (
                    f"{name}[{index}] is {text} again ({name}[{seen[text]}]): two tests would "
                    "have the same name"
                )
            seen[text] = index
        members *= len(values)
    if members > MOST_MEMBERS:
        return f"{members} combinations: a sweep expands into {MOST_MEMBERS} tests at most"
    return None


def shown(value: SweepValue) -> str:
    """A value as a name and a command show it: ``64``, ``1.5``, ``em0``."""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def member_name(family: str, parameters: Mapping[str, SweepValue]) -> str:
    """``udp[size=64,streams=1]``: the name of the member of ``family`` with
    ``parameters`` (by alphabetical order of their names)."""
    listed = ",".join(f"{name}={shown(parameters[name])}" for name in sorted(parameters))
    return f"{family}[{listed}]"


def combinations(sweep: Mapping[str, Sequence[SweepValue]]) -> list[Mapping[str, SweepValue]]:
    """Every combination of the values, the first parameter's changing slowest (the
    order the file lists them in: the members' measuring order)."""
    names = list(sweep)
    return [
        MappingProxyType(dict(zip(names, chosen, strict=True)))
        for chosen in itertools.product(*(sweep[name] for name in names))
    ]


def placeholders(parameters: Mapping[str, SweepValue]) -> dict[str, str]:
    """The placeholders of a member's commands: ``{"sweep.size": "64"}``."""
    return {PREFIX + name: shown(value) for name, value in parameters.items()}


def expand(tests: list[dict[str, object]]) -> list[dict[str, object]]:
    """The checked ``[[test]]`` tables with each swept one replaced by its members, in
    its place: each a copy with its own ``name``, its ``sweep`` parameters and its
    ``family`` (the name of the table; "" for a test without a sweep)."""
    found: list[dict[str, object]] = []
    for test in tests:
        sweep = test["sweep"]
        assert isinstance(sweep, Mapping)
        if not sweep:
            found.append({**test, "sweep": NO_PARAMETERS, "family": ""})
            continue
        family = str(test["name"])
        for parameters in combinations(sweep):
            found.append(
                {
                    **test,
                    "name": member_name(family, parameters),
                    "sweep": parameters,
                    "family": family,
                }
            )
    return found
