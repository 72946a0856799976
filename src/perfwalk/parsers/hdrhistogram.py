"""HdrHistogram's percentile distribution: the table that the Java library's
``outputPercentileDistribution``, the C library's ``hdr_percentiles_print`` and
``wrk2 --latency`` (its "Detailed Percentile spectrum") write.

The table's header holds ``Value``, ``Percentile`` and ``TotalCount``; each row gives
a value, the fraction of the samples at or below it, and their count (and
``1/(1-Percentile)``, missing or ``inf`` on the last row). The CSV form
(``"Value","Percentile","TotalCount",…``) is read too. A footer
``#[Mean = …, StdDeviation = …]`` gives ``<name>.mean``.

The samples counted between two rows are a bucket from the first row's value to the
second's; the first row's count is at its value. A percentile is the value of the
first row whose count reaches its rank (as the library's ``getValueAtPercentile``).
Several tables (wrk2's corrected and uncorrected spectra) are ``latency``, ``latency_2`` … (see
:mod:`perfwalk.parsers.distribution` for the percentiles and the options). A table
whose counts fall, or whose header has no row, is a ParseError naming its line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from perfwalk.parsers.distribution import Buckets, DistributionParser, Found, configured
from perfwalk.parsers.lines import Line, line_error, numbered
from perfwalk.parsers.values import NUMBER, finite

NAME = "hdrhistogram"

_HEADER = re.compile(r'^\s*"?Value"?[\s,]+"?Percentile"?[\s,]+"?TotalCount"?', re.I)
_ROW = re.compile(
    rf"^\s*(?P<value>{NUMBER})\s*[\s,]\s*(?P<percentile>{NUMBER})\s*[\s,]\s*(?P<count>\d+)"
    r"(?:\s*[\s,]\s*(?:\S+))?\s*$"
)
_MEAN = re.compile(rf"^#\[Mean\s*=\s*(?P<mean>{NUMBER})\s*,")


def _table(lines: list[Line], start: int) -> tuple[Buckets, dict[str, float], int]:
    """The buckets and the mean of the table whose header is ``lines[start]``, and the
    index of the line after it."""
    buckets: Buckets = []
    extra: dict[str, float] = {}
    index = start + 1
    previous: tuple[float, int] | None = None
    while index < len(lines):
        line = lines[index]
        row = _ROW.match(line.text)
        if row is None:
            if not line.text.strip() and previous is None:
                index += 1
                continue  # the blank line under the header
            break
        value, count = finite(row["value"]), int(row["count"])
        if value is None:
            raise line_error(NAME, line, "a value that is not a finite number")
        if previous is None:
            buckets.append((value, value, count))
        else:
            if count < previous[1] or value < previous[0]:
                raise line_error(NAME, line, "the total count or the value falls")
            buckets.append((previous[0], value, count - previous[1]))
        previous = (value, count)
        index += 1
    if previous is None:
        raise line_error(NAME, lines[start], "a table header without its rows")
    if index < len(lines) and (mean := _MEAN.match(lines[index].text)):
        number = finite(mean["mean"])
        if number is not None:
            extra["mean"] = number
    return buckets, extra, index


def read(text: str) -> list[Found]:
    lines = numbered(text)
    found: list[Found] = []
    index = 0
    while index < len(lines):
        if _HEADER.match(lines[index].text):
            buckets, extra, index = _table(lines, index)
            found.append((None, buckets, extra))
        else:
            index += 1
    return found


def make(options: Mapping[str, object], key: str) -> DistributionParser:
    return configured(NAME, read, options, key, interpolate=False)
