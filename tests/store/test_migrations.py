"""Schema versions: creation from empty, upgrades step by step, refusal of newer stores."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from sqlalchemy import Column, Connection, Engine, Integer, MetaData, Table, inspect, select, text

from perfwalk import __version__
from perfwalk.errors import StoreError
from perfwalk.model import Value
from perfwalk.store import LATEST_VERSION, Store, schema
from perfwalk.store.conduct import ConductValue
from perfwalk.store.connect import Database
from perfwalk.store.migrations import MIGRATIONS, Migration, check_sequence, migrate
from perfwalk.store.outbox import NewMessage
from perfwalk.store.records import Measuring

from .factories import T0, new_series, older_series_row


def _version(raw: Engine) -> str | None:
    with raw.connect() as conn:
        return conn.scalar(select(schema.meta.c.value).where(schema.meta.c.key == "schema_version"))


def _extra_table(conn: Connection) -> None:
    md = MetaData()
    Table("extra", md, Column("id", Integer, primary_key=True))
    md.create_all(conn)


def test_empty_database_is_migrated_to_the_latest_version(store_url: str, raw: Engine) -> None:
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
    assert _version(raw) == str(LATEST_VERSION)
    with raw.connect() as conn:
        created_with = conn.scalar(
            select(schema.meta.c.value).where(schema.meta.c.key == "created_with")
        )
    assert created_with == __version__


def test_migrated_schema_is_the_one_the_code_queries(store_url: str, raw: Engine) -> None:
    Store.open(store_url).close()
    inspector = inspect(raw)
    assert set(inspector.get_table_names()) == set(schema.metadata.tables)
    for name, table in schema.metadata.tables.items():
        columns = {c["name"]: c["nullable"] for c in inspector.get_columns(name)}
        assert columns == {c.name: c.nullable for c in table.columns}, name
        declared = {ix.name for ix in table.indexes}
        assert declared <= {ix["name"] for ix in inspector.get_indexes(name)}, name
        uniques = {
            uc.name for uc in table.constraints if uc.__class__.__name__ == "UniqueConstraint"
        }
        assert uniques <= {uc["name"] for uc in inspector.get_unique_constraints(name)}, name


def test_reopening_does_not_migrate_again(store_url: str) -> None:
    with Store.open(store_url) as store:
        series_id = store.create_series(new_series())
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
        assert [row.id for row in store.list_series()] == [series_id]


def test_newer_store_is_refused_with_a_hint_to_upgrade(store_url: str, raw: Engine) -> None:
    Store.open(store_url).close()
    with raw.begin() as conn:
        conn.execute(
            schema.meta.update().where(schema.meta.c.key == "schema_version").values(value="999")
        )
    with pytest.raises(StoreError, match="schema version 999 is newer") as info:
        Store.open(store_url)
    assert info.value.hint is not None
    assert "upgrade perfwalk" in info.value.hint


def test_later_steps_upgrade_an_older_store_once(store_url: str, db: Database, raw: Engine) -> None:
    with Store.open(store_url) as store:
        series_id = store.create_series(new_series())
    runs: list[int] = []

    def step(conn: Connection) -> None:
        runs.append(1)
        _extra_table(conn)

    steps = (*MIGRATIONS, Migration(LATEST_VERSION + 1, "an extra table", step))
    assert migrate(lambda: db.write("upgrade"), db.shown, steps) == LATEST_VERSION + 1
    assert migrate(lambda: db.write("upgrade"), db.shown, steps) == LATEST_VERSION + 1
    assert runs == [1]
    assert _version(raw) == str(LATEST_VERSION + 1)
    assert inspect(raw).has_table("extra")
    with pytest.raises(StoreError, match="newer than this perfwalk knows"):
        Store.open(store_url)  # this code knows only LATEST_VERSION
    with raw.connect() as conn:
        assert conn.scalar(select(schema.series.c.id)) == series_id


def test_a_failed_step_leaves_the_previous_version(
    store_url: str, db: Database, raw: Engine
) -> None:
    Store.open(store_url).close()

    def broken(conn: Connection) -> None:
        _extra_table(conn)
        conn.execute(text("SELECT * FROM no_such_table"))

    steps = (*MIGRATIONS, Migration(LATEST_VERSION + 1, "broken", broken))
    with pytest.raises(StoreError, match="no_such_table"):
        migrate(lambda: db.write("upgrade"), db.shown, steps)
    assert _version(raw) == str(LATEST_VERSION)
    assert not inspect(raw).has_table("extra")  # the DDL was rolled back too
    Store.open(store_url).close()


def test_a_database_of_something_else_is_refused(store_url: str, raw: Engine) -> None:
    with raw.begin() as conn:
        conn.execute(text("CREATE TABLE invoices (id INTEGER PRIMARY KEY)"))
    with pytest.raises(StoreError, match=r"not a perfwalk store.*invoices") as info:
        Store.open(store_url)
    assert info.value.hint is not None


def test_steps_are_numbered_without_gaps() -> None:
    check_sequence(MIGRATIONS)
    assert [step.version for step in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))
    assert all(step.summary for step in MIGRATIONS)
    with pytest.raises(ValueError, match="numbered"):
        check_sequence((MIGRATIONS[0], Migration(3, "gap", _extra_table)))


def test_step_7_gives_older_series_the_checkout_order(
    store_url: str, db: Database, raw: Engine
) -> None:
    assert migrate(lambda: db.write("make"), db.shown, MIGRATIONS[:6]) == 6
    with raw.begin() as conn:
        older = Table("series", MetaData(), autoload_with=conn)
        conn.execute(older.insert().values(older_series_row()))
    with Store.open(store_url) as store:
        (series,) = store.list_series()
        assert (series.measuring, series.order, series.adaptive) == (None, "checkout", False)
        rounds = Measuring(order="rounds", seed=2**62 - 1, repetitions_max=9, rse_target=0.02)
        again = store.create_series(new_series(measuring=rounds))
        assert store.series(again).measuring == rounds
        assert (store.series(again).order, store.series(again).adaptive) == ("rounds", True)


def test_step_11_keeps_the_series_of_an_older_store_with_no_walk(
    store_url: str, db: Database, raw: Engine
) -> None:
    assert migrate(lambda: db.write("make"), db.shown, MIGRATIONS[:10]) == 10
    with raw.begin() as conn:
        older = Table("series", MetaData(), autoload_with=conn)
        conn.execute(older.insert().values(older_series_row(project="netstack")))
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
        (series,) = store.list_series()
        assert (series.name, series.project, series.state, series.walk) == (
            "older",
            "netstack",
            "finished",
            None,
        )
        assert store.find_walk("netstack", "nightly") is None
        named = store.create_series(new_series(walk="nightly"))
        assert store.series(named).walk == "nightly"
        found = store.find_walk("netstack", "nightly")
        assert found is not None
        assert found.id == named
        assert store.find_walk("other", "nightly") is None  # another project's walk


def test_a_named_walk_series_is_extended(store_url: str) -> None:
    with Store.open(store_url) as store:
        series_id = store.create_series(new_series(walk="nightly", planned_checkouts=3))
        store.extend_series(series_id, "f00d", 5)
        series = store.series(series_id)
        assert (series.to_spec, series.planned_checkouts, series.walk) == ("f00d", 5, "nightly")
        with pytest.raises(StoreError, match="no series with id 99"):
            store.extend_series(99, "f00d", 5)


def test_step_13_gives_an_older_store_an_empty_outbox(
    store_url: str, db: Database, raw: Engine
) -> None:
    assert migrate(lambda: db.write("make"), db.shown, MIGRATIONS[:12]) == 12
    with raw.begin() as conn:
        older = Table("series", MetaData(), autoload_with=conn)
        conn.execute(older.insert().values(older_series_row()))
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
        assert store.outbox.all() == []
        (series,) = store.list_series()
        message = NewMessage(
            series_id=series.id,
            before_sha="a" * 40,
            after_sha="b" * 40,
            test="t",
            metric="v",
            receiver="0123456789abcdef",
            receiver_shown="json://localhost/hook",
            title="title",
            text="text",
            markdown="markdown",
        )
        assert store.outbox.enqueue([message], T0) == 1
        assert [row.series_id for row in store.outbox.due(T0)] == [series.id]


def test_step_12_gives_an_older_store_no_seen_changes(
    store_url: str, db: Database, raw: Engine
) -> None:
    assert migrate(lambda: db.write("make"), db.shown, MIGRATIONS[:11]) == 11
    with raw.begin() as conn:
        older = Table("series", MetaData(), autoload_with=conn)
        conn.execute(older.insert().values(older_series_row()))
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
        assert store.seen.keys() == set()
        (series,) = store.list_series()
        at = datetime(2026, 11, 25, tzinfo=UTC)
        key = (series.id, "a" * 40, "b" * 40)
        assert store.seen.add([key, key], at) == 1
        assert store.seen.add([key, (series.id, "a" * 40, "c" * 40)], at) == 1
        assert store.seen.keys() == {key, (series.id, "a" * 40, "c" * 40)}


def test_step_15_gives_an_older_conductor_run_no_values(
    store_url: str, db: Database, raw: Engine
) -> None:
    assert migrate(lambda: db.write("make"), db.shown, MIGRATIONS[:14]) == 14
    with raw.begin() as conn:
        older = Table("conduct_run", MetaData(), autoload_with=conn)
        conn.execute(
            older.insert().values(
                name="m.cfg",
                master="/lab/m.cfg",
                config_text="[Test]\n",
                players={},
                trials=2,
                state="finished",
                started_at=T0,
                finished_at=T0,
            )
        )
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
        (run,) = store.conduct.runs()
        assert store.conduct.values(run.id) == []
        values = {1: (Value("rate", 940.5, "Mbit/s"),), 2: (Value("rate", math.nan, "Mbit/s"),)}
        assert store.conduct.set_values(run.id, values, parser="value") == 2
        first, second = store.conduct.values(run.id)
        assert first == ConductValue(1, "rate", 940.5, "Mbit/s")
        assert (second.trial, second.name, math.isnan(second.value)) == (2, "rate", True)
        assert store.conduct.set_values(run.id, {}, parser="value") == 0
        assert store.conduct.values(run.id) == []


def test_step_16_keeps_an_older_parsed_conductor_run_with_no_parser(
    store_url: str, db: Database, raw: Engine
) -> None:
    """A run parsed before step 16 keeps its values; its parser is not known (None)
    until it is parsed again."""
    assert migrate(lambda: db.write("make"), db.shown, MIGRATIONS[:15]) == 15
    with raw.begin() as conn:
        older = Table("conduct_run", MetaData(), autoload_with=conn)
        assert "parser" not in older.columns
        run_id = conn.execute(
            older.insert()
            .values(
                name="m.cfg",
                master="/lab/m.cfg",
                config_text="[Test]\n",
                players={},
                trials=1,
                state="finished",
                started_at=T0,
                finished_at=T0,
            )
            .returning(older.c.id)
        ).scalar_one()
        values = Table("conduct_value", MetaData(), autoload_with=conn)
        conn.execute(
            values.insert().values(conduct_id=run_id, trial=1, name="rate", value=940.5, unit="x")
        )
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
        (summary,) = store.conduct.summaries()
        assert (summary.run.parser, summary.values) == (None, 1)
        store.conduct.set_values(run_id, {1: (Value("rate", 941.0, "x"),)}, parser="value")
        assert store.conduct.run(run_id).parser == "value"
