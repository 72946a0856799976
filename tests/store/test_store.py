"""The Store API on both back-ends: series, checkouts, repetitions, values, logs."""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, event, func, select, text

from perfwalk.errors import StoreError
from perfwalk.model import Log, Status, Value
from perfwalk.store import NewRepetition, NewResult, Store, schema

from .factories import CEST, T0, checkout, new_series, repetition, result

# -- series -------------------------------------------------------------------------


def test_series_round_trip(store: Store) -> None:
    new = new_series()
    series_id = store.create_series(new)
    row = store.series(series_id)
    assert row.id == series_id
    assert (row.name, row.project, row.repo, row.step, row.between) == (
        new.name,
        new.project,
        new.repo,
        new.step,
        new.between,
    )
    assert (row.from_spec, row.to_spec, row.repetitions, row.host) == (
        "2024-01-01",
        "2024-03-01",
        3,
        "local",
    )
    assert row.state == "running"
    assert row.started_at == T0
    assert row.finished_at is None
    assert row.commands == new.commands
    assert row.fingerprint == new.fingerprint
    assert (row.config_hash, row.config_text) == (new.config_hash, new.config_text)
    assert row.kind == "walk"
    assert row.parent_id is None
    assert row.quirks == new.quirks


def test_zoom_series_names_its_parent(store: Store) -> None:
    parent = store.create_series(new_series())
    child = store.create_series(new_series(parent_id=parent, kind="drill", step="commit"))
    row = store.series(child)
    assert (row.parent_id, row.kind, row.step) == (parent, "drill", "commit")
    with pytest.raises(StoreError, match="no series with id 4242"):
        store.create_series(new_series(parent_id=4242))


def test_list_series_newest_first(store: Store) -> None:
    old = store.create_series(new_series(started_at=T0 - timedelta(days=2)))
    new = store.create_series(new_series(started_at=T0))
    middle = store.create_series(new_series(started_at=T0 - timedelta(days=1)))
    assert [row.id for row in store.list_series()] == [new, middle, old]


def test_find_unfinished(store: Store) -> None:
    assert store.find_unfinished() is None
    first = store.create_series(new_series(config_hash="aaa", started_at=T0))
    second = store.create_series(new_series(config_hash="bbb", started_at=T0 + timedelta(hours=1)))
    unfinished = store.find_unfinished()
    assert unfinished is not None
    assert unfinished.id == second
    by_hash = store.find_unfinished("aaa")
    assert by_hash is not None
    assert by_hash.id == first

    store.set_series_state(second, "finished", T0 + timedelta(hours=2))
    store.set_series_state(first, "interrupted")
    unfinished = store.find_unfinished()
    assert unfinished is not None
    assert (unfinished.id, unfinished.state) == (first, "interrupted")
    drill = store.create_series(new_series(kind="drill", started_at=T0 + timedelta(hours=3)))
    store.set_series_state(drill, "interrupted")
    unfinished = store.find_unfinished()
    assert unfinished is not None
    assert unfinished.id == first  # a drill is not resumed by `run --resume`
    assert store.find_unfinished("bbb") is None
    assert store.series(second).finished_at == T0 + timedelta(hours=2)

    store.set_series_state(first, "finished", T0)
    assert store.find_unfinished() is None


def test_set_series_state_checks_its_input(store: Store) -> None:
    with pytest.raises(StoreError, match="no series with id 77"):
        store.set_series_state(77, "finished", T0)
    series_id = store.create_series(new_series())
    with pytest.raises(ValueError, match="state"):
        store.set_series_state(series_id, "done")  # type: ignore[arg-type]


def test_timestamps_come_back_in_utc(store: Store) -> None:
    local = datetime(2024, 3, 1, 14, 0, tzinfo=CEST)
    series_id = store.create_series(new_series(started_at=local))
    started = store.series(series_id).started_at
    assert started == local
    assert started.utcoffset() == timedelta(0)


def test_naive_timestamps_are_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="naive datetime"):
        store.create_series(new_series(started_at=datetime(2024, 1, 1)))
    assert store.list_series() == []


def test_untrusted_text_is_stored_on_every_back_end(store: Store) -> None:
    name = "weird \x00 name \udcff <script>"
    series_id = store.create_series(new_series(name=name))
    assert store.series(series_id).name == "weird \ufffd name ? <script>"


# -- unknown ids --------------------------------------------------------------------


def test_unknown_ids_are_store_errors_naming_them(store: Store) -> None:
    calls: dict[str, Callable[[], object]] = {
        "series": lambda: store.series(999),
        "checkouts": lambda: store.checkouts(999),
        "done_repetitions": lambda: store.done_repetitions(999),
        "values": lambda: store.values(999),
        "results": lambda: store.results(999),
        "add_checkout": lambda: store.add_checkout(999, checkout(0)),
        "set_build": lambda: store.set_build(999, Status.PASS, 1.0, Log.of(b"")),
        "add_quirk_run": lambda: store.add_quirk_run(999, "A", Status.PASS, Log.of(b"")),
        "commits_since": lambda: store.commits_since(999),
        "plan_repetitions": lambda: store.plan_repetitions(999, 10),
        "add_repetition": lambda: store.add_repetition(999, repetition(0)),
        "repetitions": lambda: store.repetitions(999),
        "log": lambda: store.log(999),
    }
    for name, call in calls.items():
        with pytest.raises(StoreError, match=r"\b999\b") as info:
            call()
        assert info.value.hint, name


def test_closed_store_refuses_work(store_url: str) -> None:
    opened = Store.open(store_url)
    opened.close()
    opened.close()  # twice is fine
    with pytest.raises(StoreError, match="closed"):
        opened.list_series()


def test_a_store_keeps_its_own_id_and_another_store_has_another(
    store_url: str, tmp_path: Path
) -> None:
    with Store.open(store_url) as first:
        made = first.store_id()
        assert len(made) == 32
        assert int(made, 16) >= 0
        assert first.store_id() == made
    with Store.open(store_url) as again:
        assert again.store_id() == made
    with Store.open(f"sqlite:///{tmp_path}/other.db") as other:
        assert other.store_id() != made


# -- checkouts ----------------------------------------------------------------------


def test_add_checkout_stores_commits_since(store: Store) -> None:
    series_id = store.create_series(new_series())
    co = checkout(0, commits=3)
    checkout_id = store.add_checkout(series_id, co)
    rows = store.checkouts(series_id)
    assert len(rows) == 1
    row = rows[0]
    assert (row.id, row.series_id, row.idx, row.sha, row.date) == (
        checkout_id,
        series_id,
        0,
        co.commit,
        co.date,
    )
    assert row.quirks == ("A",)
    assert (row.build_status, row.build_seconds, row.build_log_id) == (None, None, None)
    assert row.commit_count == 3
    assert store.commits_since(checkout_id) == list(co.since)


def test_a_checkout_planned_more_repetitions_than_its_series_has_them_as_its_own(
    store: Store,
) -> None:
    series_id = store.create_series(new_series())
    series = store.series(series_id)
    planned = series.planned_repetitions
    assert planned is not None
    first = store.add_checkout(series_id, checkout(0))
    store.add_checkout(series_id, checkout(1))
    store.plan_repetitions(first, planned + 4)
    rows = store.checkouts(series_id)
    assert [row.planned_repetitions for row in rows] == [planned + 4, None]
    # a repetition numbered below them is the walk's own; beyond, a re-measure
    assert [series.planned_at(row) for row in rows] == [planned + 4, planned]


def test_reads_in_one_state_see_no_write_made_meanwhile(store_url: str) -> None:
    """The reads of a thread within ``one_state`` agree: a checkout and its values
    written by another store (as another process would) after the block's first read
    are not seen by the block's later reads, and are seen after it; another thread
    reads as usual meanwhile."""
    with Store.open(store_url) as reader, Store.open(store_url) as writer:
        series_id = writer.create_series(new_series())
        first_id = writer.add_checkout(series_id, checkout(0))
        writer.add_repetition(first_id, repetition(0, result("t", 1.0)))
        with reader.one_state("read a series"), ThreadPoolExecutor(1) as other:
            before = reader.checkouts(series_id)
            second_id = writer.add_checkout(series_id, checkout(1))
            writer.add_repetition(second_id, repetition(0, result("t", 2.0)))
            assert len(other.submit(reader.checkouts, series_id).result()) == 2
            values = reader.passed_values(series_id)
            again = reader.checkouts(series_id)
        assert [c.idx for c in before] == [c.idx for c in again] == [0]
        assert [(v[0], v[5]) for v in values] == [(0, 1.0)]
        assert [(v[0], v[5]) for v in reader.passed_values(series_id)] == [(0, 1.0), (1, 2.0)]


def test_commit_dates_keep_their_offset(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    first = store.commits_since(checkout_id)[0]
    assert first.date.utcoffset() == timedelta(hours=2)


def test_add_checkout_is_idempotent(store: Store, raw: Engine) -> None:
    series_id = store.create_series(new_series())
    first = store.add_checkout(series_id, checkout(0))
    again = store.add_checkout(series_id, checkout(0))
    assert again == first
    assert len(store.checkouts(series_id)) == 1
    assert store.checkouts(series_id)[0].commit_count == 2
    with raw.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(schema.checkout_commit)) == 2
        assert conn.scalar(select(func.count()).select_from(schema.git_commit)) == 2


def test_add_checkout_refuses_a_changed_history(store: Store) -> None:
    series_id = store.create_series(new_series())
    store.add_checkout(series_id, checkout(0))
    moved = replace(checkout(0), commit="f" * 40)
    with pytest.raises(StoreError, match=r"is commit [0-9a-f]{40}, not f{40}") as info:
        store.add_checkout(series_id, moved)
    assert info.value.hint is not None
    assert "new series" in info.value.hint


def test_commits_are_shared_between_series(store: Store, raw: Engine) -> None:
    first = store.create_series(new_series())
    second = store.create_series(new_series(name="zoom"))
    a = store.add_checkout(first, checkout(1, commits=4))
    b = store.add_checkout(second, checkout(1, commits=4))
    assert store.commits_since(a) == store.commits_since(b)
    with raw.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(schema.git_commit)) == 4


def test_many_commits_since_one_checkout(store: Store) -> None:
    series_id = store.create_series(new_series())
    co = checkout(0, commits=1234)
    checkout_id = store.add_checkout(series_id, co)
    assert store.checkouts(series_id)[0].commit_count == 1234
    assert [c.id for c in store.commits_since(checkout_id)] == [c.id for c in co.since]


def test_checkouts_in_index_order(store: Store) -> None:
    series_id = store.create_series(new_series())
    for idx in (2, 0, 1):
        store.add_checkout(series_id, checkout(idx, commits=idx + 1))
    rows = store.checkouts(series_id)
    assert [row.idx for row in rows] == [0, 1, 2]
    assert [row.commit_count for row in rows] == [1, 2, 3]


def test_build_and_quirk_runs(store: Store, raw: Engine) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    store.set_build(checkout_id, Status.NOEXIST, 12.5, Log.of(b"cc: error\n"))
    store.set_build(checkout_id, Status.PASS, 61.0, Log.of(b"built\n"))  # a retry replaces
    store.add_quirk_run(checkout_id, "A", Status.FAIL, Log.of(b"patch failed\n"))
    store.add_quirk_run(checkout_id, "A", Status.PASS, Log.of(b"patched\n"))
    store.add_quirk_run(checkout_id, "B", Status.PASS, Log.of(b"rebooted\n"))
    row = store.checkouts(series_id)[0]
    assert (row.build_status, row.build_seconds) == (Status.PASS, 61.0)
    assert row.build_log_id is not None
    assert store.log(row.build_log_id).data == b"built\n"
    assert [(run.letter, run.status) for run in row.quirk_runs] == [
        ("A", Status.PASS),
        ("B", Status.PASS),
    ]
    assert store.log(row.quirk_runs[0].log_id).data == b"patched\n"
    with raw.connect() as conn:  # replaced logs are gone
        assert conn.scalar(select(func.count()).select_from(schema.log)) == 3


# -- repetitions --------------------------------------------------------------------


def test_repetition_round_trip(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    rep = NewRepetition(
        idx=0,
        started_at=T0,
        finished_at=T0 + timedelta(seconds=42),
        between_status=Status.PASS,
        between_log=Log.of(b"rebooted\n"),
        results=(
            result("iperf", 941.5, 0.125),
            NewResult(test="fs", status=Status.NOTERM, message="timed out after 60 s"),
        ),
    )
    repetition_id = store.add_repetition(checkout_id, rep)
    [row] = store.repetitions(checkout_id)
    assert (row.id, row.checkout_id, row.idx) == (repetition_id, checkout_id, 0)
    assert (row.started_at, row.finished_at) == (rep.started_at, rep.finished_at)
    assert row.between_status is Status.PASS
    assert row.between_log_id is not None
    assert store.log(row.between_log_id).data == b"rebooted\n"
    iperf, fs = row.results
    assert (iperf.test, iperf.status, iperf.message) == ("iperf", Status.PASS, "")
    assert (iperf.duration, iperf.exit_code, iperf.command) == (1.25, 0, "run iperf")
    assert [(v.name, v.unit, v.value, v.direction) for v in iperf.values] == [
        ("iperf.v0", "bits/sec", 941.5, "higher"),
        ("iperf.v1", "bits/sec", 0.125, "lower"),
    ]
    assert store.log(iperf.stdout_log_id).data == b"iperf out\n"
    assert store.log(iperf.stderr_log_id) == Log.of(b"")
    assert (fs.status, fs.message, fs.values, fs.duration, fs.exit_code) == (
        Status.NOTERM,
        "timed out after 60 s",
        (),
        None,
        None,
    )


def test_repetition_without_between(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    store.add_repetition(checkout_id, repetition(0))
    [row] = store.repetitions(checkout_id)
    assert (row.between_status, row.between_log_id) == (None, None)


def test_repetitions_in_index_order_with_their_own_results(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    for idx in (2, 0, 1):
        store.add_repetition(checkout_id, repetition(idx, result("t", float(idx), float(-idx))))
    rows = store.repetitions(checkout_id)
    assert [row.idx for row in rows] == [0, 1, 2]
    for row in rows:
        assert [v.value for v in row.results[0].values] == [float(row.idx), float(-row.idx)]


def test_done_repetitions(store: Store) -> None:
    series_id = store.create_series(new_series())
    other = store.create_series(new_series(name="other"))
    assert store.done_repetitions(series_id) == set()
    first = store.add_checkout(series_id, checkout(0))
    second = store.add_checkout(series_id, checkout(1))
    store.add_repetition(first, repetition(0))
    store.add_repetition(first, repetition(1))
    store.add_repetition(second, repetition(0))
    store.add_repetition(store.add_checkout(other, checkout(5)), repetition(0))
    assert store.done_repetitions(series_id) == {(0, 0), (0, 1), (1, 0)}
    assert store.done_repetitions(other) == {(5, 0)}


def test_duplicate_repetition_is_refused(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    store.add_repetition(checkout_id, repetition(0))
    with pytest.raises(StoreError, match=r"repetition 0 of checkout \d+ is already stored"):
        store.add_repetition(checkout_id, repetition(0, result("other", 1.0)))
    [row] = store.repetitions(checkout_id)
    assert [r.test for r in row.results] == ["iperf", "ping"]


def test_worst_status_of_builds_results_and_betweens_of_one_series(store: Store) -> None:
    series_id = store.create_series(new_series())
    other = store.create_series(new_series(name="other"))
    assert store.worst_status(series_id) is Status.PASS  # nothing stored yet
    first = store.add_checkout(series_id, checkout(0))
    second = store.add_checkout(series_id, checkout(1))
    store.add_repetition(first, repetition(0))
    store.set_build(second, Status.PASS, 1.0, Log.of(b"built\n"))
    assert store.worst_status(series_id) is Status.PASS
    store.add_repetition(second, repetition(0, result("t", 1.0, status=Status.FAIL)))
    assert store.worst_status(series_id) is Status.FAIL
    store.add_repetition(
        first, replace(repetition(1), between_status=Status.NOCLEAN, between_log=Log.of(b"x"))
    )
    assert store.worst_status(series_id) is Status.NOCLEAN
    store.set_build(second, Status.NOEXIST, 2.0, Log.of(b"cc: error\n"))
    assert store.worst_status(series_id) is Status.NOEXIST
    # another series' statuses are not this one's
    elsewhere = store.add_checkout(other, checkout(5))
    store.add_repetition(elsewhere, repetition(0, result("t", 1.0, status=Status.XPASS)))
    assert store.worst_status(other) is Status.XPASS
    with pytest.raises(StoreError, match="no series with id 4242"):
        store.worst_status(4242)


def test_bad_direction_is_a_programming_error(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    bad = NewResult(test="t", status=Status.PASS, values=((Value("x", 1.0, "s"), "sideways"),))
    with pytest.raises(ValueError, match="sideways"):
        store.add_repetition(checkout_id, repetition(0, bad))
    assert store.repetitions(checkout_id) == []


# -- values -------------------------------------------------------------------------


def test_values_flat_shape_and_order(store: Store) -> None:
    series_id = store.create_series(new_series())
    ids = {idx: store.add_checkout(series_id, checkout(idx)) for idx in (1, 0)}
    for idx, checkout_id in sorted(ids.items(), reverse=True):
        for rep in (1, 0):
            store.add_repetition(
                checkout_id,
                repetition(
                    rep,
                    result("iperf", 100.0 * idx + rep, 0.5),
                    result("broken", status=Status.FAIL),
                ),
            )
    rows = store.values(series_id)
    assert [(r.checkout_idx, r.repetition_idx, r.name) for r in rows] == [
        (0, 0, "iperf.v0"),
        (0, 0, "iperf.v1"),
        (0, 1, "iperf.v0"),
        (0, 1, "iperf.v1"),
        (1, 0, "iperf.v0"),
        (1, 0, "iperf.v1"),
        (1, 1, "iperf.v0"),
        (1, 1, "iperf.v1"),
    ]
    first = rows[4]
    assert first.checkout_id == ids[1]
    assert first.sha == checkout(1).commit
    assert first.date == checkout(1).date
    assert (first.test, first.status, first.unit, first.value, first.direction) == (
        "iperf",
        Status.PASS,
        "bits/sec",
        100.0,
        "higher",
    )
    assert rows[5].direction == "lower"
    assert len({r.result_id for r in rows}) == 4

    summaries = store.results(series_id)
    assert [(s.checkout_idx, s.repetition_idx, s.test, s.status) for s in summaries[:2]] == [
        (0, 0, "iperf", Status.PASS),
        (0, 0, "broken", Status.FAIL),
    ]
    assert len(summaries) == 8
    assert summaries[1].message == "no value found"


def test_passed_values_are_the_values_of_pass_results_in_the_same_order(store: Store) -> None:
    series_id = store.create_series(new_series())
    other = store.create_series(new_series(name="other"))
    ids = {idx: store.add_checkout(series_id, checkout(idx)) for idx in (1, 0)}
    for idx, checkout_id in sorted(ids.items(), reverse=True):
        for rep in (1, 0):
            store.add_repetition(
                checkout_id,
                repetition(
                    rep,
                    result("iperf", 100.0 * idx + rep, 0.5),
                    result("broken", 7.0, status=Status.FAIL),  # a value, not a PASS
                    result("ping", 0.25 * rep),
                ),
            )
    store.add_repetition(store.add_checkout(other, checkout(0)), repetition(0))
    every = store.values(series_id)
    assert any(row.status is Status.FAIL for row in every)
    expected = [
        (r.checkout_idx, r.repetition_idx, r.test, r.name, r.unit, r.value, r.direction)
        for r in every
        if r.status is Status.PASS
    ]
    passed = store.passed_values(series_id)
    assert [tuple(row) for row in passed] == expected
    assert len(passed) == 2 * 2 * 3
    assert tuple(passed[0]) == (0, 0, "iperf", "iperf.v0", "bits/sec", 0.0, "higher")
    assert len(store.passed_values(other)) == 3
    with pytest.raises(StoreError, match="no series with id 4242"):
        store.passed_values(4242)


def test_special_floats_survive(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    store.add_repetition(
        checkout_id,
        repetition(0, result("t", math.inf, -math.inf, math.nan, 5e-324, 1.7976931348623157e308)),
    )
    values = [row.value for row in store.values(series_id)]
    assert values[:2] == [math.inf, -math.inf]
    assert math.isnan(values[2])
    assert values[3:] == [5e-324, 1.7976931348623157e308]
    passed = [value for *_, value, _direction in store.passed_values(series_id)]
    assert passed[:2] == [math.inf, -math.inf]
    assert math.isnan(passed[2])
    assert passed[3:] == [5e-324, 1.7976931348623157e308]


def selects(statements: list[str]) -> list[str]:
    return [s for s in statements if s.lstrip().upper().startswith("SELECT")]


@contextmanager
def count_statements(store: Store) -> Iterator[list[str]]:
    statements: list[str] = []
    engine = store._db.engine

    def record(*args: object) -> None:
        statements.append(str(args[2]))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", record)


def test_reads_do_not_query_per_row(store: Store) -> None:
    series_id = store.create_series(new_series())
    for idx in range(3):
        checkout_id = store.add_checkout(series_id, checkout(idx))
        for rep in range(4):
            store.add_repetition(
                checkout_id, repetition(rep, *(result(f"t{k}", 1.0, 2.0, 3.0) for k in range(5)))
            )
    with count_statements(store) as statements:
        assert len(store.values(series_id)) == 3 * 4 * 5 * 3
    assert len(selects(statements)) <= 2  # series exists + one join
    with count_statements(store) as statements:
        assert len(store.repetitions(checkout_id)) == 4
    assert len(selects(statements)) <= 4  # checkout exists + one per table
    with count_statements(store) as statements:
        assert len(store.checkouts(series_id)) == 3
    assert len(selects(statements)) <= 3
    with count_statements(store) as statements:
        store.add_repetition(
            checkout_id, repetition(9, *(result(f"t{k}", 1.0, 2.0, 3.0) for k in range(20)))
        )
    if store.url.startswith("postgresql"):
        # A few round trips, not one per result or value. (SQLite runs in-process:
        # SQLAlchemy inserts RETURNING rows one at a time there to keep their order.)
        # Then the checkout's pack (perfwalk.store.packs): delete, three reads, insert.
        assert len(statements) <= 8 + 5


# -- logs ---------------------------------------------------------------------------


def test_logs_round_trip_bytes_exactly(store: Store, raw: Engine) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    binary = bytes(range(256)) * 4 + b"\xff\xfe invalid \xc3\x28 utf-8 \x00\x00"
    truncated = Log(
        data=b"head\n[... 10485760 bytes left out ...]\ntail\n", total=10_485_790, truncated=True
    )
    store.add_repetition(
        checkout_id,
        repetition(0, replace(result("t", 1.0), stdout=Log.of(binary), stderr=truncated)),
    )
    [row] = store.repetitions(checkout_id)
    out = store.log(row.results[0].stdout_log_id)
    err = store.log(row.results[0].stderr_log_id)
    assert out == Log(data=binary, total=len(binary), truncated=False)
    assert err == truncated
    assert err.truncated
    assert err.total == 10_485_790


def test_logs_are_stored_compressed(store: Store, raw: Engine) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    text_log = b"".join(b"line %d: all is well\n" % i for i in range(5000))
    store.set_build(checkout_id, Status.PASS, 3.0, Log.of(text_log))
    log_id = store.checkouts(series_id)[0].build_log_id
    with raw.connect() as conn:
        stored = conn.execute(
            select(schema.log.c.compression, schema.log.c.data, schema.log.c.size).where(
                schema.log.c.id == log_id
            )
        ).one()
    assert stored.compression == "zlib"
    assert stored.size == len(text_log)
    assert len(stored.data) < len(text_log) / 5
    assert zlib.decompress(stored.data) == text_log


def test_damaged_log_is_a_store_error(store: Store, raw: Engine) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    store.set_build(checkout_id, Status.PASS, 3.0, Log.of(b"fine"))
    log_id = store.checkouts(series_id)[0].build_log_id
    assert log_id is not None
    with raw.begin() as conn:
        conn.execute(schema.log.update().values(data=b"not zlib"))
    with pytest.raises(StoreError, match=f"log {log_id} is damaged"):
        store.log(log_id)
    with raw.begin() as conn:
        conn.execute(schema.log.update().values(compression="zstd"))
    with pytest.raises(StoreError, match="zstd") as info:
        store.log(log_id)
    assert info.value.hint is not None
    assert "upgrade" in info.value.hint


# -- durability of the whole --------------------------------------------------------


def test_reopen_keeps_everything(store_url: str) -> None:
    with Store.open(store_url) as first:
        series_id = first.create_series(new_series())
        checkout_id = first.add_checkout(series_id, checkout(0))
        first.set_build(checkout_id, Status.PASS, 10.0, Log.of(b"ok"))
        first.add_repetition(checkout_id, repetition(0))
        before = (
            first.series(series_id),
            first.checkouts(series_id),
            first.repetitions(checkout_id),
            first.values(series_id),
            first.commits_since(checkout_id),
        )
    with Store.open(store_url) as second:
        after = (
            second.series(series_id),
            second.checkouts(series_id),
            second.repetitions(checkout_id),
            second.values(series_id),
            second.commits_since(checkout_id),
        )
    assert after == before


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    with (
        Store.open(f"sqlite:///{tmp_path}/wal.db") as sqlite_store,
        sqlite_store._db.read("check") as conn,
    ):
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() == 30_000


def test_in_memory_sqlite_store() -> None:
    with Store.open("sqlite://") as memory:
        series_id = memory.create_series(new_series())
        assert memory.series(series_id).name == "netstack weekly"


def test_passed_values_of_some_tests_units_and_newest_checkouts(store_url: str) -> None:
    """The values benchmark validity judges: of some tests, in some units, at the newest
    checkouts only (their indexes, whatever the holes between them)."""
    with Store.open(store_url) as store:
        series_id = store.create_series(new_series())
        for idx in (0, 1, 3, 4):
            checkout_id = store.add_checkout(series_id, checkout(idx))
            store.add_repetition(checkout_id, repetition(0))
        every = store.passed_values(series_id)
        assert {v[2] for v in every} == {"iperf", "ping"}
        ping = store.passed_values(series_id, tests=["ping"], units=["bits/sec"], newest=2)
        assert [(v[0], v[2], v[5]) for v in ping] == [(3, "ping", 0.25), (4, "ping", 0.25)]
        assert store.passed_values(series_id, units=["ms", "ns"]) == []
        assert len(store.passed_values(series_id, newest=1000)) == len(every)
