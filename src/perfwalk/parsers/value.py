"""The lab line format: ``VALUE <number> <unit> <name>``.

One value per line, anywhere in the output; every other line is ignored. The
number may be an integer, a decimal or have an exponent (``1.5e+09``); the name
is the rest of the line. Every VALUE line is a value, in order.
"""

from __future__ import annotations

import re

from perfwalk.model import Value
from perfwalk.parsers.values import NUMBER, finite, require

_LINE = re.compile(
    rf"^[ \t]*VALUE[ \t]+(?P<number>{NUMBER})[ \t]+(?P<unit>\S+)[ \t]+(?P<name>\S[^\n]*?)[ \t\r]*$",
    re.MULTILINE,
)


def parse(text: str) -> tuple[Value, ...]:
    values = []
    for match in _LINE.finditer(text):
        number = finite(match["number"])
        if number is not None:
            values.append(Value(match["name"], number, match["unit"]))
    return require(values, "'VALUE <number> <unit> <name>' lines")
