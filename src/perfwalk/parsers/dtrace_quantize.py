"""DTrace's distributions: the aggregations of ``quantize()``, ``lquantize()`` and
``llquantize()`` as ``dtrace`` prints them at its end.

A block is a header line ``value  ---- Distribution ---- count``, under the
aggregation's key when it has one (``bash``, or nothing for ``@ = quantize(x)``),
then one line per bucket: its lower bound, a bar, its count::

      sshd
               value  ------------- Distribution ------------- count
                1024 |                                         0
                2048 |@@@@@@@@@@                               3
                4096 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           9
                8192 |                                         0

A bucket runs from its value to the next line's; the last line, and lquantize's
open ``< low`` and ``>= high`` lines, count at their value. Each block is a histogram
named by its key (the ``name`` option when it has none). See
:mod:`perfwalk.parsers.distribution` for the percentiles and the options.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from perfwalk.parsers.distribution import (
    Buckets,
    DistributionParser,
    Found,
    ascending,
    configured,
)
from perfwalk.parsers.lines import Line, numbered

NAME = "dtrace-quantize"

_HEADER = re.compile(r"^\s*value\s+-+\s*Distribution\s*-+\s+count\s*$")
_ROW = re.compile(r"^\s*(?:<|>=)?\s*(?P<value>-?\d+)\s+\|[@ ]*\s+(?P<count>\d+)\s*$")


def _rows(lines: list[Line], start: int) -> tuple[list[tuple[float, int]], int]:
    rows: list[tuple[float, int]] = []
    index = start
    while index < len(lines) and (row := _ROW.match(lines[index].text)) is not None:
        rows.append((float(row["value"]), int(row["count"])))
        index += 1
    return rows, index


def read(text: str) -> list[Found]:
    lines = numbered(text)
    found: list[Found] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not _HEADER.match(line.text):
            continue
        above = lines[index - 2].text if index >= 2 else ""
        key = "" if _ROW.match(above) else above.strip()
        rows, index = _rows(lines, index)
        if not rows:
            continue
        buckets: Buckets = [
            (value, rows[n + 1][0] if n + 1 < len(rows) else value, count)
            for n, (value, count) in enumerate(rows)
        ]
        found.append((key or None, ascending(NAME, buckets, f"line {line.number}"), {}))
    return found


def make(options: Mapping[str, object], key: str) -> DistributionParser:
    return configured(NAME, read, options, key)
