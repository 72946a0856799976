"""bpftrace's histograms: the maps of ``hist()`` and ``lhist()`` as bpftrace prints them
at its end (or with ``print(@name)``).

A map's block starts with its name alone on a line (``@usecs:``, ``@usecs[sshd]:``,
``@:``), then one line per bucket: its range, its count and a bar::

    @usecs:
    [0]                    3 |@@                                                  |
    [1]                    0 |                                                    |
    [2, 4)                12 |@@@@@@@@@                                           |
    [1K, 2K)              70 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

A range is ``[v]`` (that value), ``[low, high)``, or open: ``(..., high)`` below an
``lhist``'s minimum, ``[low, ...)`` above its maximum, counted at their finite bound.
Bounds take bpftrace's suffixes ``K``, ``M``, ``G``, ``T``, ``P``, ``E``: powers of
1024. Each block is a histogram named by its map without the ``@`` (``usecs``,
``usecs[sshd]``; ``@:`` takes the ``name`` option); other lines (a map of numbers,
``Attaching 1 probe...``) are not read. See :mod:`perfwalk.parsers.distribution` for
the percentiles and the options.
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
from perfwalk.parsers.lines import Line, line_error, numbered

NAME = "bpftrace-hist"

_SUFFIX = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50, "E": 2**60}
_BOUND = r"-?\d+[KMGTPE]?"
_MAP = re.compile(r"^@(?P<name>[^:\s\[]*(?:\[.*\])?):\s*$")
_BUCKET = re.compile(
    rf"^(?:\[(?P<at>{_BOUND})\]"
    rf"|\[(?P<low>{_BOUND}), (?P<high>{_BOUND})\)"
    rf"|\(\.\.\., (?P<below>{_BOUND})\)"
    rf"|\[(?P<above>{_BOUND}), \.\.\.\))"
    r"\s+(?P<count>\d+)\s*(?:\|[@ ]*\|)?\s*$"
)


def _number(bound: str) -> float:
    suffix = bound[-1] if bound[-1] in _SUFFIX else ""
    return float(int(bound[: len(bound) - len(suffix)]) * _SUFFIX[suffix])


def _bucket(line: Line) -> tuple[float, float, int] | None:
    found = _BUCKET.match(line.text.strip())
    if found is None:
        return None
    count = int(found["count"])
    if found["low"] is not None:
        low, high = _number(found["low"]), _number(found["high"])
        if high < low:
            raise line_error(NAME, line, "a bucket whose upper bound is below its lower")
        return low, high, count
    bound = next(found[g] for g in ("at", "below", "above") if found[g] is not None)
    return _number(bound), _number(bound), count


def read(text: str) -> list[Found]:
    lines = numbered(text)
    found: list[Found] = []
    index = 0
    while index < len(lines):
        header = _MAP.match(lines[index].text.strip())
        index += 1
        if header is None:
            continue
        buckets: Buckets = []
        while index < len(lines) and (bucket := _bucket(lines[index])) is not None:
            buckets.append(bucket)
            index += 1
        if buckets:
            where = f"line {lines[index - len(buckets) - 1].number}"
            found.append((header["name"] or None, ascending(NAME, buckets, where), {}))
    return found


def make(options: Mapping[str, object], key: str) -> DistributionParser:
    return configured(NAME, read, options, key)
