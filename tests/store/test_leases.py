"""Host leases: all or nothing, named holders, heartbeats, expiry, stale holders, breaking.
Every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from perfwalk.store import Store
from perfwalk.store.leases import Holder, process_start

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def _holder(purpose: str) -> Holder:
    return Holder.this_process(purpose)


def test_leases_are_taken_all_or_nothing_and_name_their_holder(store: Store) -> None:
    first, second = _holder("series 1"), _holder("series 2")
    assert store.leases.take(["dut", "sink"], first, expiry=60, now=NOW) == []
    blocking = store.leases.take(["src", "sink"], second, expiry=60, now=NOW)
    assert [row.host for row in blocking] == ["sink"]
    assert "series 1" in blocking[0].describe(NOW)
    assert first.owner in blocking[0].describe(NOW)
    assert sorted(row.host for row in store.leases.list()) == ["dut", "sink"]  # src not taken
    store.leases.release(first)
    assert store.leases.take(["src", "sink"], second, expiry=60, now=NOW) == []


def test_taking_again_renews_and_heartbeats_push_the_expiry(store: Store) -> None:
    holder = _holder("series 1")
    store.leases.take(["dut"], holder, expiry=60, now=NOW)
    assert store.leases.take(["dut"], holder, expiry=60, now=NOW + timedelta(seconds=5)) == []
    later = NOW + timedelta(seconds=50)
    assert store.leases.renew(["dut"], holder, expiry=60, now=later) == []
    (row,) = store.leases.list()
    assert row.heartbeat_at == later
    assert row.expires_at == later + timedelta(seconds=60)


def test_an_expired_lease_is_taken_over(store: Store) -> None:
    old, new = _holder("gone"), _holder("new")
    remote = dataclasses.replace(old, machine="elsewhere")  # its process cannot be checked
    store.leases.take(["dut"], remote, expiry=60, now=NOW)
    assert store.leases.take(["dut"], new, expiry=60, now=NOW + timedelta(seconds=30)) != []
    assert store.leases.take(["dut"], new, expiry=60, now=NOW + timedelta(seconds=61)) == []
    assert store.leases.renew(["dut"], remote, expiry=60, now=NOW) == ["dut"]  # it lost it


def test_a_lease_of_a_dead_process_of_this_machine_is_stale(store: Store) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(dead.stdout)
    holder = dataclasses.replace(_holder("killed"), pid=pid, process_start="12345")
    store.leases.take(["dut"], holder, expiry=3600, now=NOW)
    (row,) = store.leases.list()
    assert row.holder_gone()
    assert store.leases.take(["dut"], _holder("resumed"), expiry=60, now=NOW) == []
    assert process_start(pid) == ""


def test_breaking_a_lease_removes_it_whoever_holds_it(store: Store) -> None:
    holder = _holder("stuck")
    store.leases.take(["dut"], holder, expiry=3600, now=NOW)
    removed = store.leases.break_lease("dut")
    assert removed is not None
    assert removed.purpose == "stuck"
    assert store.leases.list() == []
    assert store.leases.break_lease("dut") is None
    assert store.leases.renew(["dut"], holder, expiry=60, now=NOW) == ["dut"]


def test_a_process_gives_back_every_lease_it_holds_whichever_use_case_took_it(
    store: Store,
) -> None:
    """A worker between two jobs gives back what a job of its own could not (the store
    was gone when it ended): the leases of its process, not another's."""
    left, earlier = _holder("a walk the store lost"), _holder("an earlier drill")
    other = dataclasses.replace(_holder("another worker"), pid=left.pid + 1)
    store.leases.take(["dut"], left, expiry=60, now=NOW)
    store.leases.take(["sink"], earlier, expiry=60, now=NOW)
    store.leases.take(["src"], other, expiry=60, now=NOW)
    assert store.leases.release_process(_holder("the worker")) == ["dut", "sink"]
    assert [row.host for row in store.leases.list()] == ["src"]
