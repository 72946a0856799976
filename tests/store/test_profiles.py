"""Profiles: stored compressed, bounded to the heaviest stacks, read by checkout and
by series, the extra run apart from the counted repetitions. On SQLite and
PostgreSQL."""

from __future__ import annotations

import pytest

from perfwalk.errors import StoreError
from perfwalk.model import Status
from perfwalk.store import Store
from perfwalk.store.profiles import NewProfile, bounded
from tests.store.factories import checkout, new_series

STACKS = {
    "bench;main;checksum_block": 700,
    "bench;main;fill": 250,
    "bench;main;<script>alert(1)</script>": 40,
    "bench;[libc.so.6];memcpy with space": 10,
}


def _profile(**changes: object) -> NewProfile:
    fields: dict[str, object] = {
        "test": "crc",
        "role": "",
        "host": "local",
        "tool": "perf",
        "event": "cpu-clock",
        "status": Status.PASS,
        "message": "",
        "stacks": STACKS,
    }
    fields.update(changes)
    return NewProfile(**fields)  # type: ignore[arg-type]


def test_profiles_by_checkout_and_by_series(store: Store) -> None:
    series = store.create_series(new_series())
    first = store.add_checkout(series, checkout(0))
    second = store.add_checkout(series, checkout(1))
    store.profiles.add(second, _profile(), limit=1 << 20)
    store.profiles.add(first, _profile(values=(("time", 1.5, "s"),), duration=1.6), limit=1 << 20)
    store.profiles.add(first, _profile(repetition=0), limit=1 << 20)
    store.profiles.add(first, _profile(test="other"), limit=1 << 20)

    (extra, counted) = store.profiles.at(first, "crc")
    assert extra.extra
    assert extra.repetition is None
    assert extra.checkout_idx == 0
    assert counted.repetition == 0
    assert not counted.extra
    assert extra.stacks == STACKS
    assert extra.samples == 1000
    assert not extra.cut
    assert extra.values == (("time", 1.5, "s"),)
    assert extra.duration == 1.6
    assert (extra.host, extra.tool, extra.event, extra.status) == (
        "local",
        "perf",
        "cpu-clock",
        Status.PASS,
    )
    assert len(store.profiles.at(first)) == 3
    assert [p.checkout_idx for p in store.profiles.in_series(series)] == [0, 0, 0, 1]
    assert store.profiles.extra_done(first) == {"crc", "other"}
    assert store.profiles.extra_done(second) == {"crc"}


def test_over_the_limit_the_heaviest_stacks_are_kept(store: Store) -> None:
    series = store.create_series(new_series())
    at = store.add_checkout(series, checkout(0))
    limit = len("bench;main;checksum_block 700\nbench;main;fill 250\n")
    store.profiles.add(at, _profile(), limit=limit)
    (row,) = store.profiles.at(at)
    assert row.stacks == {"bench;main;checksum_block": 700, "bench;main;fill": 250}
    assert row.cut
    assert row.dropped == 50
    assert row.samples == 1000


def test_a_failed_profile_keeps_its_reason(store: Store) -> None:
    series = store.create_series(new_series())
    at = store.add_checkout(series, checkout(0))
    message = "perf is not installed on host local: install linux-perf"
    store.profiles.add(at, _profile(status=Status.XFAIL, message=message, stacks={}), limit=100)
    (row,) = store.profiles.at(at)
    assert (row.status, row.message, row.stacks, row.samples) == (Status.XFAIL, message, {}, 0)


def test_a_profile_of_no_checkout_is_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="no checkout 99"):
        store.profiles.add(99, _profile(), limit=100)


def test_bounded_keeps_a_lighter_stack_that_still_fits() -> None:
    text, dropped = bounded({"a;very;long;stack;of;frames": 9, "b": 5, "c;d": 1}, 12)
    assert text == "b 5\nc;d 1\n"
    assert dropped == 9


def test_a_large_profile_is_stored_small(store: Store) -> None:
    series = store.create_series(new_series())
    at = store.add_checkout(series, checkout(0))
    many = {f"bench;main;layer{i % 50};function_{i}": 1 + i % 7 for i in range(40_000)}
    limit = 1 << 20
    store.profiles.add(at, _profile(stacks=many), limit=limit)
    (row,) = store.profiles.at(at)
    assert row.samples == sum(many.values())
    assert row.cut
    assert sum(len(f"{s} {n}\n") for s, n in row.stacks.items()) <= limit
    assert min(row.stacks.values()) >= max(n for s, n in many.items() if s not in row.stacks)
