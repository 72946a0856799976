"""fs_mark (file system metadata benchmark): its result table.

fs_mark writes its settings as ``#`` lines, then a table::

    FSUse%        Count         Size    Files/sec     App Overhead
        71          100         4096       2902.7              377

with a row per iteration (``-L N``). Values: ``files`` (``files/sec``, the
``Files/sec`` column) and ``app_overhead`` (``us``: the microseconds the iteration
spent outside the file system calls); with several rows, the mean of each.

After the table header every line must be a row of five numbers: another line
(``fill_dir:mkdir ... failed``, a write that failed, a row cut short) is a
ParseError naming it.
"""

from __future__ import annotations

import re

from perfwalk.model import Value
from perfwalk.parsers.lines import Line, line_error, numbered
from perfwalk.parsers.values import finite, mean_of_repeats, require

NAME = "fs_mark"

_HEADER = re.compile(r"^\s*FSUse%\s+Count\s+Size\s+Files/sec\s+App Overhead\s*$")
COLUMNS = 5


def _row(line: Line) -> list[float]:
    """The five numbers of a row of the table; a ParseError naming any other line."""
    numbers = [number for number in map(finite, line.text.split()) if number is not None]
    if len(numbers) != COLUMNS or len(line.text.split()) != COLUMNS:
        raise line_error(NAME, line, "not a row of fs_mark's table (5 numbers)")
    return numbers


def parse(text: str) -> tuple[Value, ...]:
    values = []
    header = None
    for line in numbered(text):
        if _HEADER.match(line.text):
            header = line
        elif header is not None and line.text.strip():
            row = _row(line)
            values += [Value("files", row[3], "files/sec"), Value("app_overhead", row[4], "us")]
    if header is not None and not values:
        raise line_error(NAME, header, "fs_mark's table has no row: a run cut short? Its header")
    return require(
        mean_of_repeats(values), "fs_mark's table: 'FSUse%  Count  Size  Files/sec  App Overhead'"
    )
