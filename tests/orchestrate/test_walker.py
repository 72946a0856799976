"""The walker of a series: one at a time, what a gone walker left is stopped, and the
state of a series is never the error a user sees. Real store, real processes."""

from __future__ import annotations

import dataclasses
import os
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.errors import StoreError, UsageError
from perfwalk.hosts.leftovers import CGROUP_PREFIX, WALK_MARKER, new_cgroup
from perfwalk.orchestrate.session.walker import (
    interrupted_on_error,
    sweep_gone,
    take_series,
    this_walker,
)
from perfwalk.store import Store
from perfwalk.store.leases import Holder, process_start
from tests.store.factories import new_series

NOW = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'results.db'}")
    yield opened
    opened.close()


def _gone_walker(purpose: str = "a walk that was killed") -> Holder:
    """A walker whose process ran on this machine and is gone now."""
    proc = subprocess.Popen(["sleep", "1000"])
    start = process_start(proc.pid)
    holder = dataclasses.replace(this_walker(purpose), pid=proc.pid, process_start=start)
    proc.kill()
    proc.wait()
    return holder


def test_a_series_walked_by_a_live_process_is_not_taken(store: Store) -> None:
    series_id = store.create_series(new_series())
    take_series(store, series_id, this_walker("the first walk"), NOW)
    with pytest.raises(
        UsageError, match=rf"series {series_id} is being walked by pid {os.getpid()}"
    ) as info:
        take_series(store, series_id, this_walker("a second walk"), NOW)
    assert f"kill -TERM {os.getpid()}" in (info.value.hint or "")


def test_a_series_its_live_walker_finished_is_taken_again(store: Store) -> None:
    """A named walk continued a second time by the same process (``watch``)."""
    series_id = store.create_series(new_series())
    take_series(store, series_id, this_walker("the first walk"), NOW)
    store.set_series_state(series_id, "finished", NOW)
    again = this_walker("the walk continued")
    take_series(store, series_id, again, NOW)
    assert store.walkers.of([series_id])[series_id].token == again.token


def test_a_series_whose_walker_is_gone_is_taken_over(store: Store) -> None:
    series_id = store.create_series(new_series())
    gone = _gone_walker()
    take_series(store, series_id, gone, NOW)
    ours = this_walker("the resume")
    take_series(store, series_id, ours, NOW)
    assert store.walkers.of([series_id])[series_id].token == ours.token


def test_what_a_gone_walker_left_is_stopped_and_its_series_interrupted(store: Store) -> None:
    killed = store.create_series(new_series(name="killed"))
    alive = store.create_series(new_series(name="alive"))
    gone = _gone_walker()
    take_series(store, killed, gone, NOW)
    walking = this_walker("a walk that runs")
    take_series(store, alive, walking, NOW)
    env = dict(os.environ)
    orphan = subprocess.Popen(
        ["sleep", "1000"], env={**env, WALK_MARKER: gone.token}, start_new_session=True
    )
    living = subprocess.Popen(
        ["sleep", "1000"], env={**env, WALK_MARKER: walking.token}, start_new_session=True
    )
    try:
        (swept,) = sweep_gone(store)
        assert [p.pid for p in swept.stopped] == [orphan.pid]
        assert orphan.wait(timeout=10) == -9
        assert living.poll() is None  # the process of a live walk is left alone
        assert store.series(killed).state == "interrupted"
        assert store.series(alive).state == "running"
        assert swept.describe().startswith(
            f"stopped 1 process left running by the walk of series {killed} that is gone "
        )
        assert sweep_gone(store) == []  # nothing left the second time
    finally:
        for proc in (orphan, living):
            if proc.poll() is None:
                proc.kill()
            proc.wait()


def test_the_error_that_stopped_a_walk_wins_over_a_lost_store(store: Store) -> None:
    series_id = store.create_series(new_series())
    store.close()  # the store is lost, then the walk fails
    with (
        pytest.raises(StoreError, match="the disk is full") as info,
        interrupted_on_error(store, series_id),
    ):
        raise StoreError("the disk is full")
    (note,) = info.value.__notes__
    assert note.startswith(f"series {series_id} could not be marked interrupted: result store ")
    assert note.endswith("is closed")


def test_a_walk_that_stops_marks_its_series_interrupted(store: Store) -> None:
    series_id = store.create_series(new_series())
    with pytest.raises(KeyboardInterrupt), interrupted_on_error(store, series_id):
        raise KeyboardInterrupt
    assert store.series(series_id).state == "interrupted"


def test_no_cgroup_of_the_walks_tests_is_left_whatever_happened(store: Store) -> None:
    """A test's cgroup that could not be removed at its end (a killed process that
    init had not reaped yet) is removed when the walk ends."""
    series_id = store.create_series(new_series())
    marker = this_walker("a walk").token
    left, why = new_cgroup(f"{CGROUP_PREFIX}{marker}-0123456789abcdef")
    if left is None:
        pytest.skip(f"no cgroup here: {why} (CI runs as root with cgroup v2)")
    try:
        with interrupted_on_error(store, series_id, marker):
            assert left.path.is_dir()
        assert not left.path.exists()
    finally:
        left.end()
