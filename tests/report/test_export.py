"""Export formats: the JSON document, and CSV/gnuplot flattened from it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from perfwalk.report.export import CSV_COLUMNS, EXPORT_VERSION, render
from perfwalk.services.export import export
from perfwalk.store import Store
from tests.report.history import make_fixed_store

DOCUMENT: dict[str, Any] = {
    "format": "perfwalk-export",
    "version": 4,
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


def test_each_series_and_value_carries_its_variant(tmp_path: Path) -> None:
    """A walk and its variant ``fast`` (the fixed store's series 1 and 3): the same
    checkouts, told apart by ``variant`` in every series, value and flattened row."""
    fixed = make_fixed_store(tmp_path / "store.db", daily_checkouts=3)
    assert fixed.fast is not None
    with Store.open(fixed.url, read_only=True) as store:
        document = json.loads(export(store, None, "json"))
        rows = list(csv.DictReader(io.StringIO(export(store, None, "csv"))))
        gnuplot = export(store, [fixed.daily, fixed.fast], "gnuplot").splitlines()
    assert (document["format"], document["version"]) == ("perfwalk-export", EXPORT_VERSION)
    assert EXPORT_VERSION == 4
    series = {s["id"]: s for s in document["series"]}
    walk, fast = series[fixed.daily], series[fixed.fast]
    assert (walk["kind"], walk["variant"], walk["parent"]) == ("walk", "base", None)
    assert (fast["kind"], fast["variant"], fast["parent"]) == ("variant", "fast", fixed.daily)
    assert series[fixed.fine]["variant"] == "base"
    assert [c["commit"] for c in fast["checkouts"]] == [c["commit"] for c in walk["checkouts"]]
    for s in (walk, fast):
        values = [
            v
            for c in s["checkouts"]
            for r in c["repetitions"]
            for t in r["tests"]
            for v in t["values"]
        ]
        assert values
        assert {v["variant"] for v in values} == {s["variant"]}
    assert {(r["series"], r["variant"]) for r in rows} == {
        (str(fixed.daily), "base"),
        (str(fixed.fine), "base"),
        (str(fixed.fast), "fast"),
        (str(fixed.tried), "base"),  # a try is no walk's variant (its B is in the try)
    }
    assert gnuplot[0].split()[-1] == "variant"
    assert {line.split()[-1] for line in gnuplot[1:]} == {"base", "fast"}


def test_json_exports_each_repetitions_steps_and_snapshots(tmp_path: Path) -> None:
    import dataclasses
    from datetime import timedelta

    from perfwalk.model import Log, Status
    from perfwalk.store import NewSnapshot, NewStep
    from tests.store.factories import T0, checkout, new_series, repetition

    step = NewStep(
        test="iperf",
        phase="snapshot-after",
        role="dut",
        host="box",
        kind="snapshot",
        name="net",
        command="nstat -az",
        status=Status.PASS,
        started_at=T0,
        finished_at=T0 + timedelta(seconds=1),
        exit_code=0,
        stdout=Log.of(b"UdpOutDatagrams 9\n"),
    )
    big = 2**64 - 1
    snapshot = NewSnapshot(
        test="iperf",
        name="net",
        role="dut",
        host="box",
        parser="counters",
        before={"UdpOutDatagrams": 5, "Bytes": big - 1},
        after={"UdpOutDatagrams": 9, "Bytes": big},
    )
    with Store.open(f"sqlite:///{tmp_path / 'store.db'}") as store:
        series_id = store.create_series(new_series())
        checkout_id = store.add_checkout(series_id, checkout(0))
        rep = dataclasses.replace(repetition(0), steps=(step,), snapshots=(snapshot,))
        store.add_repetition(checkout_id, rep)
        document = json.loads(export(store, [series_id], "json"))
        (exported,) = document["series"][0]["checkouts"][0]["repetitions"]
        (shown,) = exported["steps"]
        assert store.log(shown["stdout_log"]).data == b"UdpOutDatagrams 9\n"
    assert {k: shown[k] for k in ("phase", "role", "kind", "name", "status", "exit_code")} == {
        "phase": "snapshot-after",
        "role": "dut",
        "kind": "snapshot",
        "name": "net",
        "status": "PASS",
        "exit_code": 0,
    }
    assert exported["snapshots"] == [
        {
            "test": "iperf",
            "name": "net",
            "role": "dut",
            "host": "box",
            "parser": "counters",
            "status": "PASS",
            "message": "",
            "before": {"UdpOutDatagrams": 5, "Bytes": big - 1},
            "after": {"UdpOutDatagrams": 9, "Bytes": big},  # exact, however large
        }
    ]


def test_json_tells_the_walks_own_repetitions_from_a_changes_re_measures(
    tmp_path: Path,
) -> None:
    """A walk of 3 repetitions a checkout: checkout 0 has a re-measure of a change
    (numbered after them), checkout 1 was planned 5 (an adaptive walk's, where its
    level was not clear): its repetitions 3 and 4 are its own."""
    from tests.store.factories import checkout, new_series, repetition

    with Store.open(f"sqlite:///{tmp_path / 'store.db'}") as store:
        series_id = store.create_series(new_series(repetitions=3))
        first = store.add_checkout(series_id, checkout(0))
        second = store.add_checkout(series_id, checkout(1))
        store.plan_repetitions(second, 5)
        for checkout_id, count in ((first, 4), (second, 5)):
            for idx in range(count):
                store.add_repetition(checkout_id, repetition(idx))
        (series,) = json.loads(export(store, [series_id], "json"))["series"]
        rows = list(csv.DictReader(io.StringIO(export(store, [series_id], "csv"))))
    assert series["planned_repetitions"] == 3
    one, two = series["checkouts"]
    assert (one["planned_repetitions"], two["planned_repetitions"]) == (3, 5)
    assert [r["remeasure"] for r in one["repetitions"]] == [False, False, False, True]
    assert [r["remeasure"] for r in two["repetitions"]] == [False] * 5
    assert len(rows) == 3 * 9  # every value still has its row (iperf's two, ping's one)
