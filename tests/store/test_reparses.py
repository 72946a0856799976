"""Reparses in the store (perfwalk.store.reparses), on both back-ends: the values of
results replaced in one transaction with what they were kept, the packs and the
site's marks following, an undo putting everything back; and the parser losses and
metric names a series' pages and walks read."""

from __future__ import annotations

import dataclasses
import json
import math
from datetime import timedelta

import pytest
from sqlalchemy import Engine, func, select

from perfwalk.errors import StoreError
from perfwalk.model import Log, Status
from perfwalk.store import Store, StoredValue, schema
from perfwalk.store.packs import from_little_endian
from perfwalk.store.reparses import Replacement

from .factories import T0, checkout, new_series, repetition, result


def _series(store: Store) -> tuple[int, list[int]]:
    """A series of two checkouts: at the first iperf passes with two values, at the
    second it gave one only, and ping FAILs with none."""
    series_id = store.create_series(new_series())
    first = store.add_checkout(series_id, checkout(0))
    store.add_repetition(first, repetition(0, result("iperf", 940.0, math.nan)))
    second = store.add_checkout(series_id, checkout(1))
    store.add_repetition(
        second,
        repetition(0, result("iperf", 950.0), result("ping", status=Status.FAIL)),
    )
    return series_id, [first, second]


def _counts(raw: Engine) -> dict[str, int]:
    tables = ("result", "value", "reparse", "replaced_result", "checkout_pack", "log")
    with raw.connect() as conn:
        return {
            name: int(conn.scalar(select(func.count()).select_from(schema.metadata.tables[name])))
            for name in tables
        }


def _value(name: str, number: float, unit: str = "bits/sec") -> StoredValue:
    return StoredValue(name=name, unit=unit, value=number, direction="higher")


def test_a_reparse_replaces_values_keeps_the_old_and_an_undo_puts_them_back(
    store: Store, raw: Engine
) -> None:
    series_id, (first, second) = _series(store)
    stored = store.reparses.results(series_id)
    results = [r.result for r in stored]
    assert [(r.checkout_idx, r.result.test, r.result.status) for r in stored] == [
        (0, "iperf", Status.PASS),
        (1, "iperf", Status.PASS),
        (1, "ping", Status.FAIL),
    ]
    assert math.isnan(results[0].values[1].value)
    before = {r.id: r for r in results}
    marks_before = store.site.repetition_marks(series_id)
    counts = _counts(raw)
    iperf, ping = results[1], results[2]
    reparse_id = store.reparses.replace(
        series_id,
        [
            Replacement(
                iperf.id,
                Status.PASS,
                "2 values in 1.250 s",
                (
                    _value("iperf.v0", 950.0),
                    _value("iperf.v1", 7.0),
                ),
            ),
            Replacement(ping.id, Status.PASS, "1 values in 1.250 s", (_value("ping.rtt", 0.5),)),
        ],
        why="the parsers of the test",
        who="ada@lab",
        at=T0 + timedelta(days=1),
    )
    after = {r.result.id: r.result for r in store.reparses.results(series_id)}
    assert after[ping.id].status is Status.PASS
    assert [v.name for v in after[iperf.id].values] == ["iperf.v0", "iperf.v1"]
    assert after[results[0].id] == before[results[0].id]  # not in the reparse: as it was
    grown = _counts(raw)
    assert grown["result"] == counts["result"]
    assert grown["log"] == counts["log"]
    assert grown["value"] == counts["value"] + 2
    assert (grown["reparse"], grown["replaced_result"]) == (1, 2)
    # the pack of the second checkout holds the new values; the site sees it changed
    [pack] = store.site.packs(series_id, 1, 1)
    assert ["ping", "ping.rtt", "bits/sec", "higher"] in json.loads(pack.head)["metrics"]
    assert json.loads(pack.head)["worst"] == {"iperf": 1, "ping": 1}
    assert 0.5 in list(from_little_endian(pack.passed))
    marks = store.site.repetition_marks(series_id)
    assert marks[0] == marks_before[0]
    assert marks[1] == (*marks_before[1], reparse_id)
    assert store.reparses.last_applied(series_id).id == reparse_id  # type: ignore[union-attr]
    # the undo: what the reparse replaced, back, and what it replaced kept in turn
    kept = store.reparses.replaced(reparse_id)
    assert {r.result_id: r.status for r in kept} == {iperf.id: Status.PASS, ping.id: Status.FAIL}
    undo_id = store.reparses.replace(
        series_id, kept, why="undo", who="ada@lab", at=T0 + timedelta(days=2), undoes=reparse_id
    )
    back = {r.result.id: r.result for r in store.reparses.results(series_id)}
    assert back == before
    assert store.reparses.last_applied(series_id) is None
    [applied, undo] = store.reparses.history(series_id)
    assert (applied.kind, applied.undone_by, undo.kind, undo.undoes) == (
        "apply",
        undo_id,
        "undo",
        reparse_id,
    )
    assert (undo.checkouts, undo.results) == (1, 2)
    assert {r.result_id for r in store.reparses.replaced(undo_id)} == {iperf.id, ping.id}
    assert store.site.repetition_marks(series_id)[1][2] == undo_id
    assert _counts(raw)["value"] == counts["value"]
    assert second != first


def test_a_replace_in_an_unknown_series_changes_nothing(store: Store, raw: Engine) -> None:
    series_id, _ = _series(store)
    counts = _counts(raw)
    with pytest.raises(StoreError, match="no series with id 999"):
        store.reparses.replace(999, [], why="", who="", at=T0)
    assert _counts(raw) == counts
    assert store.reparses.history(series_id) == []


def test_logs_are_read_with_their_cut_and_a_missing_one_is_said(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    cut = Log(data=b"head\n[... cut ...]\ntail\n", total=10_000, truncated=True)
    store.add_repetition(
        checkout_id, repetition(0, dataclasses.replace(result("iperf", 1.0), stdout=cut))
    )
    [stored] = [r.result for r in store.reparses.results(series_id, [0])]
    found, unreadable = store.reparses.logs([stored.stdout_log_id, stored.stderr_log_id, 123456])
    assert found[stored.stdout_log_id] == cut
    assert found[stored.stderr_log_id] == Log.of(b"")
    assert unreadable == {123456: "log 123456 is not in the store"}


def test_the_metric_names_of_a_series_count_the_passing_results(store: Store) -> None:
    series_id, _ = _series(store)
    assert store.metric_names(series_id) == {
        0: {"iperf": (1, {"iperf.v0": 1, "iperf.v1": 1})},
        1: {"iperf": (1, {"iperf.v0": 1})},
    }
    assert store.produced_metrics(series_id) == {("iperf", "iperf.v0"), ("iperf", "iperf.v1")}


def test_parser_losses_are_stored_per_series_whole(store: Store) -> None:
    series_id, _ = _series(store)
    other, _ = _series(store)
    store.parser_losses.replace(series_id, [(1, "iperf", ("iperf.v0", "iperf.v1"), ("iperf.v1",))])
    store.parser_losses.replace(other, [(1, "iperf", ("a",), ("a",))])
    assert store.parser_losses.of_series(series_id) == [
        (1, "iperf", ("iperf.v0", "iperf.v1"), ("iperf.v1",))
    ]
    store.parser_losses.replace(series_id, [])
    assert store.parser_losses.of_series(series_id) == []
    assert store.parser_losses.of_series(other) == [(1, "iperf", ("a",), ("a",))]
