"""Histograms in the store: each distribution a result's values carry is written
whole with its repetition, once per result and name, and read back for its series
with where it was measured; a store at step 32 gets the table and keeps its values.
Every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import Engine, MetaData, Table

from perfwalk.model import Direction, Histogram, Value
from perfwalk.store import LATEST_VERSION, NewResult, Store
from perfwalk.store.connect import Database
from perfwalk.store.migrations import MIGRATIONS, migrate
from tests.store.factories import checkout, new_series, older_series_row, repetition, result

LATENCY = Histogram("latency", "us", ((100.0, 100.0, 5), (100.0, 149.0, 94), (149.0, 1499.0, 1)))
USECS = Histogram("usecs[sshd]", "us", ((0.0, 0.0, 1), (1024.0, 2048.0, 7)))


def _with_histograms(test: str) -> NewResult:
    values = (
        (Value("latency.p50", 125.0, "us", LATENCY), Direction.LOWER),
        (Value("latency.p99", 149.0, "us", LATENCY), Direction.LOWER),
        (Value("usecs[sshd].p50", 1536.0, "us", USECS), Direction.LOWER),
        (Value("other", 1.0, "s"), Direction.LOWER),
    )
    return replace(result(test), values=values)


def test_histograms_are_stored_whole_with_their_repetition(store: Store) -> None:
    series_id = store.create_series(new_series())
    for idx in (0, 1):
        checkout_id = store.add_checkout(series_id, checkout(idx))
        for rep in (0, 1):
            store.add_repetition(
                checkout_id,
                repetition(rep, _with_histograms("rpc"), result("plain", 1.0)),
            )
    rows = store.histograms.of_series(series_id)
    print([(r.idx, r.repetition, r.test, r.histogram.name) for r in rows])
    assert [(r.idx, r.repetition, r.test, r.histogram.name) for r in rows] == [
        (i, rep, "rpc", name)
        for i in (0, 1)
        for rep in (0, 1)
        for name in ("latency", "usecs[sshd]")
    ]
    assert rows[0].histogram == LATENCY
    assert rows[1].histogram == USECS
    assert rows[0].histogram.count == 100
    # the percentiles are ordinary values of the result, beside the others
    values = store.passed_values(series_id)
    assert {name for _c, _r, test, name, _u, _v, _d in values if test == "rpc"} == {
        "latency.p50",
        "latency.p99",
        "usecs[sshd].p50",
        "other",
    }
    other = store.create_series(new_series(name="other walk"))
    assert store.histograms.of_series(other) == []


def test_step_33_gives_an_older_store_the_histograms_table(
    store_url: str, db: Database, raw: Engine
) -> None:
    assert migrate(lambda: db.write("make"), db.shown, MIGRATIONS[:32]) == 32
    with raw.begin() as conn:
        older = Table("series", MetaData(), autoload_with=conn)
        conn.execute(older.insert().values(older_series_row()))
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
        (series,) = store.list_series()
        assert store.histograms.of_series(series.id) == []
        checkout_id = store.add_checkout(series.id, checkout(0))
        store.add_repetition(checkout_id, repetition(0, _with_histograms("rpc")))
        assert [r.histogram for r in store.histograms.of_series(series.id)] == [LATENCY, USECS]
