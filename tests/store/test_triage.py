"""Triage in the store: every word on a change is a new row (its history), the newest
is the current one, keyed by the change's series and commit range. On SQLite and
PostgreSQL."""

from __future__ import annotations

from datetime import UTC, timedelta

import pytest
from sqlalchemy import Engine, MetaData, Table, func, select

from perfwalk.errors import StoreError
from perfwalk.store import Store, schema
from perfwalk.store.connect import Database
from perfwalk.store.migrations import MIGRATIONS, migrate
from tests.store.factories import T0, new_series, older_series_row

A, B, C = "a" * 40, "b" * 40, "c" * 40


def test_every_word_is_kept_and_the_newest_is_the_current_one(store: Store, raw: Engine) -> None:
    walk = store.create_series(new_series())
    other = store.create_series(new_series(name="other"))
    first = store.triage.add(
        (walk, A, B), state="acknowledged", reason="looking", who="ada@lab", at=T0
    )
    # the clock went back: the order of the words, not their time, says which is newest
    earlier = T0 - timedelta(hours=1)
    second = store.triage.add(
        (walk, A, B),
        state="expected",
        reason="the new checksum is slower by design",
        who="bob@lab",
        at=earlier,
        bug="https://bugs.example.org/7",
    )
    store.triage.add((walk, B, C), state="invalid", reason="noise", who="ada@lab", at=T0)
    store.triage.add((other, A, B), state="fixed", reason="reverted", who="ada@lab", at=T0)

    assert second.id > first.id
    history = store.triage.history((walk, A, B))
    assert [(r.state, r.who, r.bug, r.at) for r in history] == [
        ("acknowledged", "ada@lab", "", T0),
        ("expected", "bob@lab", "https://bugs.example.org/7", earlier),
    ]
    assert history[1].at.tzinfo is UTC
    assert history[1].reason == "the new checksum is slower by design"
    current = store.triage.current()
    assert {key: row.state for key, row in current.items()} == {
        (walk, A, B): "expected",
        (walk, B, C): "invalid",
        (other, A, B): "fixed",
    }
    assert current[(walk, A, B)] == second
    assert set(store.triage.current([other])) == {(other, A, B)}
    assert store.triage.history((walk, A, C)) == []  # another range: nothing
    with raw.connect() as conn:  # two words on one change: two rows, none overwritten
        assert conn.scalar(select(func.count()).select_from(schema.triage)) == 4


def test_a_word_on_a_series_that_does_not_exist_is_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="no series with id 42") as info:
        store.triage.add((42, A, B), state="expected", reason="why", who="ada@lab", at=T0)
    assert info.value.hint is not None
    assert store.triage.current() == {}


def test_a_store_of_schema_11_gets_triage(store_url: str, db: Database, raw: Engine) -> None:
    assert migrate(lambda: db.write("make"), db.shown, MIGRATIONS[:11]) == 11
    with raw.begin() as conn:
        older = Table("series", MetaData(), autoload_with=conn)
        conn.execute(older.insert().values(older_series_row()))
    with Store.open(store_url) as store:
        (series,) = store.list_series()
        assert store.triage.current() == {}
        row = store.triage.add(
            (series.id, A, B), state="acknowledged", reason="seen", who="ada@lab", at=T0
        )
        assert store.triage.history((series.id, A, B)) == [row]
