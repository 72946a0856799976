"""Walkers: who walks each series, told alive, gone or elsewhere; the planned checkouts
of a series. Every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import dataclasses
import subprocess
from datetime import UTC, datetime

from perfwalk.store import Store
from perfwalk.store.leases import Holder, process_start
from tests.store.factories import new_series

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def _exited() -> Holder:
    """A holder that was a process of this machine and is gone."""
    proc = subprocess.Popen(["sleep", "1000"])
    start = process_start(proc.pid)
    proc.kill()
    proc.wait()
    return dataclasses.replace(Holder.this_process("killed"), pid=proc.pid, process_start=start)


def test_the_newest_walker_of_a_series_is_recorded_and_told_alive_or_gone(store: Store) -> None:
    series_id = store.create_series(new_series())
    assert store.walkers.of([series_id]) == {}  # a series stored before walkers were
    gone = _exited()
    store.walkers.record(series_id, gone, NOW)
    assert store.walkers.of([series_id])[series_id].liveness() == "gone"
    ours = Holder.this_process("resumed")
    store.walkers.record(series_id, ours, NOW)  # replaces the earlier walker
    (row,) = store.walkers.of([series_id]).values()
    assert (row.token, row.pid, row.started_at) == (ours.token, ours.pid, NOW)
    assert row.liveness() == "alive"
    assert row.describe() == f"pid {ours.pid} on {ours.machine} since 2026-01-01 12:00:00 UTC"
    elsewhere = dataclasses.replace(ours, machine="another-machine")
    store.walkers.record(series_id, elsewhere, NOW)
    assert store.walkers.of([series_id])[series_id].liveness() == "elsewhere"


def test_the_walkers_of_unfinished_series_of_a_machine(store: Store) -> None:
    running = store.create_series(new_series(name="running"))
    stopped = store.create_series(new_series(name="stopped"))
    done = store.create_series(new_series(name="done"))
    other = store.create_series(new_series(name="other machine"))
    holder = Holder.this_process("walks")
    for series_id in (running, stopped, done):
        store.walkers.record(series_id, holder, NOW)
    store.walkers.record(other, dataclasses.replace(holder, machine="elsewhere"), NOW)
    store.set_series_state(stopped, "interrupted")
    store.set_series_state(done, "finished", NOW)
    found = [w.series_id for w in store.walkers.unfinished(holder.machine)]
    assert found == [running, stopped]


def test_a_series_keeps_how_many_checkouts_its_walk_plans(store: Store) -> None:
    planned = store.create_series(new_series(planned_checkouts=11))
    older = store.create_series(new_series())
    assert store.series(planned).planned_checkouts == 11
    assert store.series(older).planned_checkouts is None
    store.set_planned_checkouts(older, 7)
    assert {s.id: s.planned_checkouts for s in store.list_series()} == {planned: 11, older: 7}
