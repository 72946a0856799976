"""A series' snapshots read whole (Store.series_snapshots), on SQLite and PostgreSQL:
each with its checkout and repetition, the seconds between the end of its command
before the test and the start of its command after (None without its steps), a
failed one left out, 64-bit counters exact."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from perfwalk.model import Log, Status
from perfwalk.store import NewSnapshot, NewStep, Store
from tests.store.factories import T0, checkout, new_series, repetition

BIG = 2**63 - 1


def step(phase: str, start: float, end: float) -> NewStep:
    return NewStep(
        test="iperf",
        phase=phase,
        role="dut",
        host="box",
        kind="snapshot",
        name="net",
        command="nstat -az",
        status=Status.PASS,
        started_at=T0 + timedelta(seconds=start),
        finished_at=T0 + timedelta(seconds=end),
        exit_code=0,
        stdout=Log.of(b"UdpOutDatagrams 9\n"),
    )


def snapshot(name: str, **changes: object) -> NewSnapshot:
    found = NewSnapshot(
        test="iperf",
        name=name,
        role="dut",
        host="box",
        parser="counters",
        before={"UdpOutDatagrams": 5, "Bytes": BIG - 7},
        after={"UdpOutDatagrams": 9, "Bytes": BIG},
    )
    return dataclasses.replace(found, **changes)  # type: ignore[arg-type]


def test_a_series_snapshots_with_their_seconds(store: Store) -> None:
    series_id = store.create_series(new_series())
    first = store.add_checkout(series_id, checkout(0))
    second = store.add_checkout(series_id, checkout(1))
    timed = (step("snapshot-before", 0, 0.5), step("snapshot-after", 3.0, 3.25))
    failed = snapshot("gone", after=None, status=Status.NOEXIT, message="exit 3")
    store.add_repetition(
        first,
        dataclasses.replace(repetition(0), steps=timed, snapshots=(snapshot("net"), failed)),
    )
    store.add_repetition(second, dataclasses.replace(repetition(1), snapshots=(snapshot("net"),)))
    found = store.series_snapshots(series_id)
    assert [(s.checkout_idx, s.repetition_idx, s.name, s.seconds) for s in found] == [
        (0, 0, "net", 2.5),
        (1, 1, "net", None),
    ]
    assert found[0].after["Bytes"] - found[0].before["Bytes"] == 7  # exact
    assert found[0].test == "iperf"
    assert found[0].role == "dut"
