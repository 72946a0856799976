"""Retention in the store: what each checkout could drop, dropping it in one
transaction per call, what pruned rows say, and the space given back; on SQLite and
on PostgreSQL."""

from __future__ import annotations

import random
import sqlite3
from datetime import timedelta
from pathlib import Path

from sqlalchemy import Engine, MetaData, Table, func, select

from perfwalk.model import Log, Pruned, Status
from perfwalk.store import LATEST_VERSION, Store, schema
from perfwalk.store.connect import Database
from perfwalk.store.logs import pack
from perfwalk.store.migrations import MIGRATIONS, migrate
from perfwalk.store.profiles import NewProfile

from .factories import T0, checkout, new_series, repetition

STACKS = {"main;work;crc": 90, "main;work;copy": 10}


def _count(raw: Engine, table: str) -> int:
    with raw.connect() as conn:
        return int(conn.scalar(select(func.count()).select_from(schema.metadata.tables[table])))


def _walked(store: Store) -> tuple[int, list[int]]:
    """A series of three checkouts, each built, with two repetitions and a profile;
    checkout 1 also crossed quirk A."""
    series = store.create_series(new_series())
    ids = [store.add_checkout(series, checkout(i)) for i in range(3)]
    for i, at in enumerate(ids):
        store.set_build(at, Status.PASS, 2.0, Log.of(b"cc -O2 main.c\n" * (i + 1)))
        for rep in range(2):
            store.add_repetition(at, repetition(rep))
        new = NewProfile("iperf", "", "local", "perf", "cycles", Status.PASS, "", STACKS)
        store.profiles.add(at, new, limit=1 << 20)
    store.add_quirk_run(ids[1], "A", Status.PASS, Log.of(b"patched\n"))
    return series, ids


def test_a_prune_drops_outputs_and_keeps_every_value(store_url: str, raw: Engine) -> None:
    with Store.open(store_url) as store:
        series, ids = _walked(store)
        outputs = {o.idx: o for o in store.retention.outputs()}
        # a build log and two results with output per repetition; empty stderr not counted
        assert [outputs[i].logs for i in range(3)] == [5, 6, 5]
        assert all(outputs[i].profiles == 1 and outputs[i].profile_bytes > 0 for i in range(3))
        assert outputs[0].measured_at == T0 + timedelta(minutes=1, seconds=30)
        values, logs = _count(raw, "value"), _count(raw, "log")
        before_packs = store.site.packs(series, 0, 2)

        prune = store.retention.start("older than 30 days", T0 + timedelta(days=60))
        dropped = store.retention.drop(prune, [ids[0], ids[1]])
        assert (dropped.checkouts, dropped.logs, dropped.profiles) == (2, 11, 2)
        assert dropped.bytes == sum(outputs[i].bytes for i in (0, 1))
        assert store.retention.drop(prune, [ids[0]]).logs == 0  # pruned once only
        store.retention.finish(prune, T0 + timedelta(days=60, seconds=3))

        assert (_count(raw, "value"), _count(raw, "log")) == (values, logs)
        assert store.site.packs(series, 0, 2) == before_packs  # values and summaries
        said = Pruned(T0 + timedelta(days=60), "older than 30 days")
        rows = store.checkouts(series)
        assert [row.pruned for row in rows] == [said, said, None]
        build = store.log(rows[0].build_log_id or 0)
        assert (build.data, build.pruned, build.total) == (b"", said, 14)
        assert said.said("log") == "log pruned on 2024-04-30 (retention: older than 30 days)"
        kept = store.log(rows[2].build_log_id or 0)
        assert (kept.data, kept.pruned) == (b"cc -O2 main.c\n" * 3, None)
        (profile,) = store.profiles.at(ids[0])
        assert (profile.pruned, profile.stacks, profile.samples) == (said, {}, 100)
        assert store.profiles.listed(series) == {2: (("iperf", 3),)}
        site_logs = {row.id: row for row in store.site.logs(series, 0, 2)}
        assert site_logs[rows[0].build_log_id or 0].pruned == said
        assert site_logs[rows[2].build_log_id or 0].pruned is None
        assert [o.logs for o in store.retention.outputs([series])] == [0, 0, 5]
        (row,) = store.retention.prunes()
        assert (row.dropped, row.finished_at) == (dropped, T0 + timedelta(days=60, seconds=3))


def test_a_prune_stopped_midway_leaves_whole_checkouts(store_url: str) -> None:
    with Store.open(store_url) as store:
        series, ids = _walked(store)
        prune = store.retention.start("beyond 1.00 KiB", T0)
        store.retention.drop(prune, [ids[0]])
        # … and the process was killed here: no finish
        (row,) = store.retention.prunes()
        assert (row.finished_at, row.dropped.checkouts, row.dropped.logs) == (None, 1, 5)
        assert [o.logs for o in store.retention.outputs([series])] == [0, 6, 5]


def test_reclaiming_gives_the_space_back(store_url: str) -> None:
    noise = random.Random(29).randbytes(1 << 20)  # 1 MiB that zlib cannot shrink
    with Store.open(store_url) as store:
        series = store.create_series(new_series())
        at = store.add_checkout(series, checkout(0))
        for i in range(4):
            store.add_quirk_run(at, chr(ord("A") + i), Status.PASS, Log.of(noise + bytes([i])))
        prune = store.retention.start("older than 1 day", T0)
        assert store.retention.drop(prune, [at]).bytes > 4 << 20
        reclaimed = store.retention.reclaim()
        if store_url.startswith("sqlite"):  # the file is written again, smaller
            assert reclaimed.before - reclaimed.after > 4 << 20, reclaimed
        else:  # VACUUM frees the dead rows' space; it gives the end of a table back when
            # no transaction of the server still sees them (another's may, meanwhile)
            assert reclaimed.after <= reclaimed.before + (64 << 10), reclaimed


def test_step_29_keeps_the_logs_of_an_older_store(
    store_url: str, db: Database, raw: Engine
) -> None:
    assert migrate(lambda: db.write("make"), db.shown, MIGRATIONS[:26]) == 26
    with raw.begin() as conn:
        older = Table("log", MetaData(), autoload_with=conn)
        conn.execute(older.insert().values(pack(Log.of(b"built\n"))))
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
        assert (store.log(1).data, store.log(1).pruned) == (b"built\n", None)
        assert store.retention.prunes() == []


def test_a_store_read_meanwhile_shrinks_once_its_reader_is_done(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    with Store.open(f"sqlite:///{db}") as store:
        series = store.create_series(new_series())
        at = store.add_checkout(series, checkout(0))
        store.add_quirk_run(at, "A", Status.PASS, Log.of(random.Random(3).randbytes(1 << 20)))
        store.retention.drop(store.retention.start("older than 1 day", T0), [at])
        reader = sqlite3.connect(db)
        try:
            reader.execute("begin")
            reader.execute("select count(*) from log").fetchone()  # a read in progress
            assert store.retention.reclaim().pending
        finally:
            reader.close()
        again = store.retention.reclaim()
        assert not again.pending
        assert again.after < again.before - (1 << 20)
