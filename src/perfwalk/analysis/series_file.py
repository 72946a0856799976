"""The text of a series file: one number per line, or one column of a CSV table.

Pure: text in, numbers out; every mistake names the file and the line.
"""

from __future__ import annotations

import csv
import io
import math
import re

from perfwalk.analysis.ministat import c_number
from perfwalk.errors import UsageError


def parse_series(
    text: str, name: str, *, column: str | None = None, delimiter: str = ","
) -> list[list[float]]:
    """The points of a series file, each a set of zero or one value.

    Without ``column``: one number per line; blank lines and ``#`` comments (whole
    line or after the number) are skipped. With ``column`` (a 1-based number or a
    header name): that column of a CSV table; a first row whose cell there is not a
    number is its header; an empty cell is a point without a value (its index
    still counts).
    """
    if column is None:
        return _one_per_line(text, name)
    return _csv_column(text, name, column, delimiter)


def _one_per_line(text: str, name: str) -> list[list[float]]:
    points: list[list[float]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        field = line.split("#", 1)[0].strip()
        if not field:
            continue
        points.append([_number(field, name, number)])
    return points


def _csv_column(text: str, name: str, column: str, delimiter: str) -> list[list[float]]:
    if len(delimiter) != 1:
        raise UsageError(f"delimiter {delimiter!r}: a CSV delimiter is one character")
    rows = [(i, row) for i, row in enumerate(csv.reader(io.StringIO(text), delimiter=delimiter), 1)]
    rows = [(i, row) for i, row in rows if row and not row[0].lstrip().startswith("#")]
    if not rows:
        return []
    header_line, header = rows[0]
    if re.fullmatch(r"[0-9]+", column):
        position = int(column) - 1
        if position < 0:
            raise UsageError(f"column {column}: columns count from 1")
        widest = max(len(row) for _line, row in rows)
        if position >= widest:
            raise UsageError(
                f"{name}: no column {column}: its rows have at most {widest} "
                f"column{'' if widest == 1 else 's'} (delimiter {delimiter!r})",
                hint=f"give --column 1 to {widest}, or a header name"
                + ("" if widest > 1 else ", or another --delimiter"),
            )
        first = header[position].strip() if position < len(header) else ""
        if first and c_number(first) is None:
            rows = rows[1:]
    else:
        cells = [cell.strip() for cell in header]
        if column not in cells:
            raise UsageError(
                f"{name} line {header_line}: no column {column!r} in the header",
                hint=f"columns: {', '.join(cells)}; or give a number (1 is the first)",
            )
        position = cells.index(column)
        rows = rows[1:]
    points: list[list[float]] = []
    for number, row in rows:
        cell = row[position].strip() if position < len(row) else ""
        points.append([_number(cell, name, number)] if cell else [])
    return points


def _number(field: str, name: str, line: int) -> float:
    value = c_number(field)
    if value is None or not math.isfinite(value):
        raise UsageError(
            f"{name} line {line}: {field!r} is not a finite number",
            hint="give one number per line, or a CSV column with --column; # starts a comment",
        )
    return value
