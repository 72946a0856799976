"""Export formats: the JSON document, and CSV/gnuplot flattened from it."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from perfwalk.report.export import CSV_COLUMNS, render

DOCUMENT: dict[str, Any] = {
    "format": "perfwalk-export",
    "version": 2,
    "series": [
        {
            "id": 7,
            "host": "lab host",
            "started_at": "2026-01-10T12:00:00+00:00",
            "checkouts": [
                {
                    "index": 0,
                    "commit": "abc",
                    "date": "2026-01-05T10:00:00+01:00",
                    "repetitions": [
                        {
                            "index": rep,
                            "tests": [
                                {
                                    "name": "iperf tcp",
                                    "status": status,
                                    "values": [
                                        {
                                            "name": "receiver",
                                            "unit": "bits/sec",
                                            "value": 9.4e9 + rep,
                                            "direction": "higher",
                                            "variant": "base",
                                        },
                                    ],
                                }
                            ],
                        }
                        for rep, status in enumerate(["PASS", "NOEXIT", "PASS"])
                    ],
                }
            ],
        }
    ],
}


def test_json_round_trips() -> None:
    assert json.loads(render(DOCUMENT, "json")) == DOCUMENT


def test_csv_has_a_row_per_value() -> None:
    rows = list(csv.DictReader(io.StringIO(render(DOCUMENT, "csv"))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [r["status"] for r in rows] == ["PASS", "NOEXIT", "PASS"]
    assert rows[2]["value"] == str(9.4e9 + 2)


def test_gnuplot_is_the_lab_format_with_pass_values_only() -> None:
    lines = render(DOCUMENT, "gnuplot").splitlines()
    assert lines[0] == "# test subtest run checkout repeat value unit host variant"
    assert lines[1:] == [
        "iperf_tcp receiver 1768046400 1767603600 000 9400000000.0 bits/sec lab_host base",
        "iperf_tcp receiver 1768046400 1767603600 002 9400000002.0 bits/sec lab_host base",
    ]
