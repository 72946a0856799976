"""Export formats of stored series: JSON (documented, versioned), CSV, gnuplot.

The JSON document is the source; CSV and gnuplot are flattened from it, so the
three always agree. Format history (docs/export.md):
  1  series → checkouts → repetitions → tests → values
  2  a walk's variants: each series and value has ``variant`` ("base" for the plain
     checkout; a variant's series is of kind "variant", its walk the parent); CSV and
     gnuplot rows end with it
  3  each repetition has ``steps`` (every step of its tests' phases, outputs by log
     id) and ``snapshots`` (each [[snapshot]]'s counters before and after a test);
     each checkout ``ran`` (each host's kernel and compiler, the symbol list's counts
     against the previous checkout), JSON only
  4  how many repetitions the walk planned: ``planned_repetitions`` of each series and
     checkout, and ``remeasure`` of each repetition (a re-measure of a change, not
     the walk's own), JSON only
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from perfwalk.numbers import json_text
from perfwalk.untrusted import show_controls

EXPORT_FORMAT = "perfwalk-export"
EXPORT_VERSION = 4
FORMATS = ("json", "csv", "gnuplot")

Document = Mapping[str, Any]


def to_json(document: Document) -> str:
    return json_text(document, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def _rows(document: Document) -> Iterator[dict[str, Any]]:
    for series in document["series"]:
        for checkout in series["checkouts"]:
            for rep in checkout["repetitions"]:
                for test in rep["tests"]:
                    for value in test["values"]:
                        yield {
                            "series": series["id"],
                            "series_started": series["started_at"],
                            "host": series["host"],
                            "checkout": checkout["index"],
                            "commit": checkout["commit"],
                            "date": checkout["date"],
                            "repetition": rep["index"],
                            "test": test["name"],
                            "status": test["status"],
                            "name": value["name"],
                            "unit": value["unit"],
                            "value": value["value"],
                            "direction": value["direction"],
                            "variant": value["variant"],
                        }


CSV_COLUMNS = (
    "series",
    "host",
    "checkout",
    "commit",
    "date",
    "repetition",
    "test",
    "status",
    "name",
    "unit",
    "value",
    "direction",
    "variant",
)


#: what a spreadsheet takes for the start of a formula (or a cell it shifts)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows as text: control characters but tab and
    newline as ``\\xNN``, and a text that starts like a formula (``=HYPERLINK(…)``,
    ``+``, ``-``, ``@``, tab, CR) behind an apostrophe. Numbers stay numbers."""
    if not isinstance(value, str):
        return value
    text = show_controls(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def to_csv(document: Document) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in _rows(document))
    return out.getvalue()


def _epoch(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp())


def _word(text: str) -> str:
    """A gnuplot data word: no white space inside, control characters as ``\\xNN``."""
    return "_".join(show_controls(str(text)).split()) or "-"


def to_gnuplot(document: Document) -> str:
    """The lab format: ``# test subtest run checkout repeat value unit host``, one row
    per PASS value; ``run`` and ``checkout`` are epoch seconds; a last column, the
    variant (``base`` for the plain checkout), tells a walk's variants apart."""
    lines = ["# test subtest run checkout repeat value unit host variant"]
    for row in _rows(document):
        if row["status"] != "PASS":
            continue
        lines.append(
            " ".join(
                (
                    _word(row["test"]),
                    _word(row["name"]),
                    str(_epoch(row["series_started"])),
                    str(_epoch(row["date"])),
                    f"{row['repetition']:03d}",
                    repr(float(row["value"])),
                    _word(row["unit"]),
                    _word(row["host"]),
                    _word(row["variant"]),
                )
            )
        )
    return "\n".join(lines) + "\n"


def render(document: Document, fmt: str) -> str:
    return {"json": to_json, "csv": to_csv, "gnuplot": to_gnuplot}[fmt](document)
