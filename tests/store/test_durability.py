"""A repetition is stored whole or not at all: on errors, on kill -9, with two writers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

import perfwalk
from perfwalk.errors import StoreError
from perfwalk.model import Status, Value
from perfwalk.store import NewResult, Store, schema

from .factories import checkout, new_series, repetition, result

TABLES = (schema.repetition, schema.result, schema.value, schema.log)


def _counts(raw: Engine) -> dict[str, int]:
    with raw.connect() as conn:
        return {t.name: int(conn.scalar(select(func.count()).select_from(t)) or 0) for t in TABLES}


@pytest.mark.parametrize(
    "bad_value",
    [
        pytest.param(Value(None, 1.0, "s"), id="null-name"),  # type: ignore[arg-type]
        pytest.param(Value("x", "not a number", "s"), id="not-a-float"),  # type: ignore[arg-type]
    ],
)
def test_failure_inside_add_repetition_leaves_nothing(
    store: Store, raw: Engine, bad_value: Value
) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    store.add_repetition(checkout_id, repetition(0))
    before = _counts(raw)
    # The bad value is the very last thing written: logs, the repetition and the
    # results are already inserted when it fails.
    broken = replace(result("late", 1.0), values=((bad_value, "higher"),))
    with pytest.raises(StoreError, match="cannot store repetition 1 of checkout"):
        store.add_repetition(checkout_id, repetition(1, result("fine", 2.0), broken))
    assert _counts(raw) == before
    assert store.done_repetitions(series_id) == {(0, 0)}
    store.add_repetition(checkout_id, repetition(1))  # the index is free again
    assert store.done_repetitions(series_id) == {(0, 0), (0, 1)}


_WRITER = """
import sys
from perfwalk.model import Log, Status, Value
from perfwalk.store import NewRepetition, NewResult, Store
from datetime import datetime, UTC

url, checkout_id = sys.argv[1], int(sys.argv[2])
payload = bytes(range(256)) * 512  # 128 KiB of poorly compressible output per stream
store = Store.open(url)
for idx in range(100000):
    now = datetime.now(UTC)
    results = tuple(
        NewResult(
            test=f"t{k}",
            status=Status.PASS,
            stdout=Log.of(payload + str(idx).encode()),
            stderr=Log.of(payload),
            values=tuple((Value(f"v{j}", float(idx), "s"), "lower") for j in range(3)),
        )
        for k in range(5)
    )
    store.add_repetition(
        checkout_id, NewRepetition(idx=idx, started_at=now, finished_at=now, results=results)
    )
"""


def test_kill_9_loses_at_most_the_repetition_in_flight(store_url: str, tmp_path: Path) -> None:
    with Store.open(store_url) as store:
        series_id = store.create_series(new_series())
        checkout_id = store.add_checkout(series_id, checkout(0))
    script = tmp_path / "writer.py"
    script.write_text(textwrap.dedent(_WRITER))
    env = dict(os.environ, PYTHONPATH=str(Path(perfwalk.__file__).parents[1]))
    writer = subprocess.Popen(
        [sys.executable, str(script), store_url, str(checkout_id)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        with Store.open(store_url) as watcher:
            deadline = time.monotonic() + 60
            while len(watcher.done_repetitions(series_id)) < 4:
                assert writer.poll() is None, writer.stderr.read() if writer.stderr else ""
                assert time.monotonic() < deadline, "the writer stored nothing in 60 s"
                time.sleep(0.02)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        if writer.stderr:
            writer.stderr.close()

    with Store.open(store_url) as store:
        done = sorted(rep for _, rep in store.done_repetitions(series_id))
        assert done == list(range(len(done)))
        for row in store.repetitions(checkout_id):
            assert [r.test for r in row.results] == [f"t{k}" for k in range(5)]
            assert all(len(r.values) == 3 for r in row.results)
            last = store.log(row.results[-1].stdout_log_id)
            assert last.data.endswith(str(row.idx).encode())
        store.add_repetition(checkout_id, repetition(len(done)))  # resume goes on from there


def test_two_writers_at_once(store_url: str) -> None:
    with Store.open(store_url) as store:
        series_id = store.create_series(new_series())
        checkout_ids = [store.add_checkout(series_id, checkout(idx)) for idx in range(2)]
    errors: list[BaseException] = []

    def write(checkout_id: int) -> None:
        try:
            with Store.open(store_url) as own:
                for idx in range(15):
                    own.add_repetition(checkout_id, repetition(idx))
        except BaseException as err:  # reported by the main thread
            errors.append(err)

    threads = [threading.Thread(target=write, args=(cid,)) for cid in checkout_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with Store.open(store_url) as store:
        assert store.done_repetitions(series_id) == {(c, r) for c in range(2) for r in range(15)}


def test_a_result_may_have_no_values_and_no_output(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    bare = NewResult(test="setup", status=Status.NOEXIST)
    store.add_repetition(checkout_id, repetition(0, bare))
    [row] = store.repetitions(checkout_id)
    assert [(r.test, r.status, r.values) for r in row.results] == [("setup", Status.NOEXIST, ())]
    assert store.values(series_id) == []
