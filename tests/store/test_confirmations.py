"""Re-measures of changes: which change of a walk was measured again, by which
repetitions, and what it found; a second re-measure replaces the first. A sequential
re-measure (schema step 25) keeps its outcome, its rounds with their load, its waits
and both sides' values; a row of an older store still reads. On SQLite and
PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import Engine, MetaData, Table, select, text, update

from perfwalk.store import LATEST_VERSION, Store, schema
from perfwalk.store.connect import Database
from perfwalk.store.migrations import MIGRATIONS, migrate
from tests.store.factories import T0, new_series, older_series_row

HELD = {
    "test": "iperf",
    "name": "iperf.v0",
    "before": 100.0,
    "after": 130.0,
    "measured_before": 101.5,
    "measured_after": 129.0,
    "held": True,
}
GONE = {**HELD, "name": "iperf.v1", "measured_before": 130.0, "measured_after": None}


def test_a_re_measure_is_kept_per_change_with_its_repetitions_and_metrics(store: Store) -> None:
    walk = store.create_series(new_series())
    other = store.create_series(new_series(name="other"))
    store.confirmations.add(
        walk, (3, 4), (5, 3), held=False, metrics=[HELD, {**GONE, "held": False}], measured_at=T0
    )
    store.confirmations.add(walk, (7, 9), (3, 3), held=True, metrics=[HELD], measured_at=T0)

    found = store.confirmations.of_series(walk)
    assert sorted(found) == [(3, 4), (7, 9)]
    first = found[(3, 4)]
    assert (first.before_rep, first.after_rep, first.held) == (5, 3, False)
    assert first.measured_at == T0
    assert first.metric("iperf", "iperf.v0") == HELD
    assert first.metric("iperf", "iperf.v1") == {**GONE, "held": False}
    assert first.metric("iperf", "iperf.v2") is None
    assert found[(7, 9)].held
    assert store.confirmations.of_series(other) == {}


def test_measuring_a_change_again_replaces_its_re_measure(store: Store) -> None:
    walk = store.create_series(new_series())
    store.confirmations.add(walk, (3, 4), (3, 3), held=False, metrics=[GONE], measured_at=T0)
    later = T0 + timedelta(hours=1)
    store.confirmations.add(walk, (3, 4), (4, 4), held=True, metrics=[HELD], measured_at=later)

    (row,) = store.confirmations.of_series(walk).values()
    assert (row.before_rep, row.after_rep, row.held, row.measured_at) == (4, 4, True, later)
    assert row.metrics == (HELD,)


def test_a_store_of_schema_8_gets_the_re_measures(store_url: str, raw: Engine) -> None:
    with Store.open(store_url) as store:
        walk = store.create_series(new_series())
    with raw.begin() as conn:  # back to what perfwalk wrote before schema 9
        conn.execute(text("DROP TABLE confirmation"))
        conn.execute(
            update(schema.meta).where(schema.meta.c.key == "schema_version").values(value="8")
        )
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
        assert store.confirmations.of_series(walk) == {}
        store.confirmations.add(walk, (1, 2), (3, 3), held=True, metrics=[HELD], measured_at=T0)
        assert store.confirmations.of_series(walk)[(1, 2)].held


#: a metric of a sequential re-measure, as perfwalk.orchestrate.confirm.confirm stores it
SEQUENTIAL = {
    **HELD,
    "measured_before": 100.5,
    "measured_after": 130.25,
    "values_before": [100.0, 101.0],
    "values_after": [130.0, 130.5],
    "outcome": "held",
    "final": True,
    "change": 0.296,
    "low": 0.28,
    "high": 0.31,
    "p_value": 0.0001,
    "level": 98.75,
    "confidence": 95.0,
    "reason": "the checkout after is worse by 29.6 % [28.0 %, 31.0 %] at 95 %",
}
ROUNDS = [
    {
        "side": "before",
        "checkout": 3,
        "rep": 5,
        "loaded": False,
        "hosts": {"local": {"load1": 0.5}},
    },
    {"side": "after", "checkout": 4, "rep": 3, "loaded": True, "hosts": {"local": {"load1": 3.5}}},
]
WAITS = [{"at": "2026-01-01T00:00:00+00:00", "seconds": 4.0, "quiet": True, "why": "local: load"}]


def test_a_sequential_re_measure_keeps_its_outcome_rounds_waits_and_values(store: Store) -> None:
    walk = store.create_series(new_series())
    store.confirmations.add(
        walk,
        (3, 4),
        (5, 3),
        held=True,
        metrics=[SEQUENTIAL],
        measured_at=T0,
        outcome="undecided",
        final=False,
        rounds=ROUNDS,
        waits=WAITS,
    )
    (row,) = store.confirmations.of_series(walk).values()
    assert (row.outcome, row.final, row.held) == ("undecided", False, True)
    assert row.rounds == tuple(ROUNDS)
    assert row.waits == tuple(WAITS)
    assert row.metric("iperf", "iperf.v0") == SEQUENTIAL
    with pytest.raises(ValueError, match="outcome 'maybe' is not one of held, not held"):
        store.confirmations.add(
            walk, (3, 4), (5, 3), held=True, metrics=[], measured_at=T0, outcome="maybe"
        )


def test_a_one_pair_re_measure_of_a_store_of_schema_24_still_reads(
    store_url: str, db: Database, raw: Engine
) -> None:
    assert migrate(lambda: db.write("make"), db.shown, MIGRATIONS[:24]) == 24
    with raw.begin() as conn:
        series = Table("series", MetaData(), autoload_with=conn)
        walk = conn.execute(series.insert().values(older_series_row()).returning(series.c.id))
        walk_id = walk.scalar_one()
        older = Table("confirmation", MetaData(), autoload_with=conn)
        assert "outcome" not in older.columns
        conn.execute(
            older.insert().values(
                series_id=walk_id,
                before_idx=3,
                after_idx=4,
                before_rep=3,
                after_rep=3,
                held=False,
                metrics=[GONE],
                measured_at=T0,
            )
        )
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
        (row,) = store.confirmations.of_series(walk_id).values()
        # what it was: one pair, its held alone says what it found; never measured on
        assert (row.held, row.outcome, row.final, row.rounds, row.waits) == (
            False,
            None,
            True,
            (),
            (),
        )
        assert row.metric("iperf", "iperf.v1") == GONE
    with raw.connect() as conn:
        stored = conn.execute(select(schema.confirmation.c.outcome, schema.confirmation.c.final))
        assert stored.all() == [(None, None)]
