"""POSIX ``time -p``: lines ``real 1.23``, ``user 0.50``, ``sys 0.10``.

The walk passes stdout and stderr joined, so the lines can be anywhere. When the
output holds several blocks (a script that times more than one command) the
LAST block is used; a block starts at a ``real`` line (or where a name comes
again). A
decimal comma (some locales) is read as a point. Values: ``real``, ``user``,
``sys`` in ``s``.
"""

from __future__ import annotations

import re

from perfwalk.model import Value
from perfwalk.parsers.values import finite, require

_LINE = re.compile(r"^[ \t]*(real|user|sys)[ \t]+(\d+(?:[.,]\d+)?)[ \t\r]*$", re.MULTILINE)


def parse(text: str) -> tuple[Value, ...]:
    block: dict[str, float] = {}
    for match in _LINE.finditer(text):
        name = match.group(1)
        number = finite(match.group(2).replace(",", "."))
        if number is None:
            continue
        if name == "real" or name in block:
            block = {}
        block[name] = number
    return require(
        (Value(name, block[name], "s") for name in ("real", "user", "sys") if name in block),
        "'real <seconds>', 'user <seconds>', 'sys <seconds>' lines of time -p",
    )
