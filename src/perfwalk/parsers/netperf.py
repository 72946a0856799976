"""netperf's classic report: the result table of a STREAM or a REQUEST/RESPONSE test.

netperf (``-t TCP_STREAM``, ``UDP_STREAM``, ``TCP_RR``, ``TCP_MAERTS``,
``TCP_CRR``, ``UDP_RR`` ...) writes a banner, a table header whose last line
starts with ``bytes`` and holds ``secs.``, a blank line and the result rows. The
values depend on the header:

- a stream (``Throughput``): ``throughput`` (``bits/sec``), the fifth column;
- ``UDP_STREAM`` (``Messages``): ``sender`` (the first row, the local sends) and
  ``receiver`` (the second row, what the remote received) in ``bits/sec``, and
  ``lost_percent`` (``percent``): the messages sent that were not received;
- request/response (``Trans.`` ``per sec``): ``transaction_rate`` (``trans/sec``),
  the sixth column.

A rate is read in the unit of the header: ``10^6bits/sec`` (the default, ``-f
m``), ``10^3bits``, ``10^9bits``, ``10^0bits``, or ``Bytes``, ``KBytes``,
``MBytes``, ``GBytes`` (powers of 1024, ``-f K`` ...), and stored in bits/sec.
The columns of ``-c``/``-C`` (CPU use) may follow. Several tables (netperf run in
a loop) give the mean of each value. The output of ``-P 0`` (no header) or ``-v
0`` (a number alone) is not read. A line ``netperf: ...`` or ``establish control:
...`` (no netserver, a refused connection) is a ParseError naming it, and so is a
header without its result rows (a run cut short).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfwalk.model import Value
from perfwalk.parsers.lines import BINARY, Line, line_error, numbered
from perfwalk.parsers.values import finite, mean_of_repeats, require

NAME = "netperf"
HEADER_LINES = 4
"""At most this many lines above the units line, up to a blank one, tell the test."""

_UNITS_LINE = re.compile(r"^bytes\s.*\ssecs\b", re.I)
_RATE_UNIT = re.compile(r"(?:10\^(?P<power>\d\d?)bits|(?P<prefix>[KMG]?)Bytes) */s")
_PROBLEM = re.compile(r"^(?:netperf: |establish control|establish_control )")


@dataclass(frozen=True)
class _Table:
    header: str  # the title lines, joined
    units: Line
    rows: list[tuple[Line, list[float]]]


def _numbers(text: str) -> list[float]:
    """The numbers at the start of a row, up to the first word that is not one."""
    numbers = []
    for word in text.split():
        number = finite(word)
        if number is None:
            break
        numbers.append(number)
    return numbers


def _tables(lines: list[Line]) -> list[_Table]:
    tables = []
    for index, line in enumerate(lines):
        if not _UNITS_LINE.match(line.text):
            continue
        above = []
        for title in reversed(lines[max(0, index - HEADER_LINES) : index]):
            if not title.text.strip():
                break
            above.append(title.text)
        header = " ".join(reversed(above))
        rows = []
        for below in lines[index + 1 :]:
            numbers = _numbers(below.text)
            if numbers:
                rows.append((below, numbers))
            elif rows or below.text.strip():
                break
        tables.append(_Table(header, line, rows))
    return tables


def _factor(table: _Table) -> float:
    """What a rate of the table is multiplied by to be in bits/sec."""
    unit = _RATE_UNIT.search(table.units.text)
    if unit is None:
        raise line_error(NAME, table.units, "no rate unit (10^6bits/sec, KBytes/sec ...)")
    if unit["power"] is not None:
        return 10.0 ** int(unit["power"])
    return BINARY[unit["prefix"].lower()] * 8


def _column(table: _Table, row: int, column: int) -> float:
    if len(table.rows) <= row:
        last = table.rows[-1][0] if table.rows else table.units
        raise line_error(NAME, last, f"the table ends before its result row {row + 1}")
    line, numbers = table.rows[row]
    if len(numbers) <= column:
        raise line_error(NAME, line, f"a result row with no column {column + 1}")
    return numbers[column]


def _values(table: _Table) -> list[Value]:
    if "Messages" in table.header:  # UDP_STREAM: the sender's row, the receiver's row
        factor = _factor(table)
        sent, received = _column(table, 0, 3), _column(table, 1, 2)
        values = [
            Value("sender", _column(table, 0, 5) * factor, "bits/sec"),
            Value("receiver", _column(table, 1, 3) * factor, "bits/sec"),
        ]
        if sent > 0:
            values.append(Value("lost_percent", 100.0 * (sent - received) / sent, "percent"))
        return values
    if "Request" in table.header and "Trans." in table.header:
        return [Value("transaction_rate", _column(table, 0, 5), "trans/sec")]
    column = 5 if "Request" in table.header else 4
    return [Value("throughput", _column(table, 0, column) * _factor(table), "bits/sec")]


def parse(text: str) -> tuple[Value, ...]:
    lines = numbered(text)
    for line in lines:
        if _PROBLEM.match(line.text):
            raise line_error(NAME, line, "netperf reported an error")
    values = [value for table in _tables(lines) for value in _values(table)]
    return require(
        mean_of_repeats(values),
        "netperf's result table: a header ending in 'bytes ... secs. ...' and its rows",
    )
