"""Re-measures of changes: which change of a walk was measured again, by which
repetitions, and what it found; a second re-measure replaces the first. On SQLite
and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine, text, update

from perfwalk.store import LATEST_VERSION, Store, schema
from tests.store.factories import T0, new_series

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
