"""Records for store tests, with everything defaulted but what a test cares about."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from perfwalk.model import Checkout, Commit, Direction, Log, Status, Value
from perfwalk.store import NewRepetition, NewResult, NewSeries, QuirkInfo

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
CEST = timezone(timedelta(hours=2))


def new_series(**changes: Any) -> NewSeries:
    fields: dict[str, Any] = {
        "name": "netstack weekly",
        "project": "netstack",
        "repo": "/src/netstack",
        "from_spec": "2024-01-01",
        "to_spec": "2024-03-01",
        "step": "1week",
        "repetitions": 3,
        "between": "keep",
        "host": "local",
        "config_hash": "c0ffee",
        "config_text": "[project]\nname = 'netstack'\n",
        "commands": {"build": ["make", "-j4"], "tests": {"iperf": "iperf3 -c {host.sink.addr}"}},
        "fingerprint": {"os": "Linux", "cores": 8, "tools": {"cc": "gcc 12"}},
        "started_at": T0,
        "quirks": (QuirkInfo("A", T0 - timedelta(days=30), "f00d", "toolchain rebuilt"),),
    }
    fields.update(changes)
    return NewSeries(**fields)


def older_series_row(**changes: Any) -> dict[str, Any]:
    """The columns of a ``series`` row that every schema version has (step 1), to
    insert into an older store behind the Store's back."""
    row: dict[str, Any] = {
        "name": "older",
        "project": "p",
        "repo": "/r",
        "from_spec": "",
        "to_spec": "HEAD",
        "step": "1day",
        "repetitions": 3,
        "between_mode": "keep",
        "host": "local",
        "state": "finished",
        "started_at": datetime(2024, 1, 1, tzinfo=UTC),
        "config_hash": "c",
        "config_text": "",
        "commands": {},
        "fingerprint": {},
        "kind": "walk",
    }
    row.update(changes)
    return row


def commit(n: int, project_day: int = 0) -> Commit:
    return Commit(
        id=f"{n:040x}",
        date=datetime(2024, 1, 1, 9, n % 60, tzinfo=CEST) + timedelta(days=project_day),
        author=f"Dev {n} <dev{n}@example.org>",
        subject=f"change {n}",
        body=f"body of change {n}\n",
        files=(f"src/file{n}.c", "Makefile"),
    )


def checkout(idx: int, commits: int = 2) -> Checkout:
    since = tuple(commit(idx * 100 + k, idx) for k in range(commits))
    return Checkout(
        index=idx,
        commit=since[-1].id if since else f"{idx:040x}",
        date=T0 + timedelta(days=idx),
        since=since,
        quirks=("A",) if idx == 0 else (),
    )


def result(test: str, *values: float, status: Status = Status.PASS) -> NewResult:
    return NewResult(
        test=test,
        status=status,
        message="" if status is Status.PASS else "no value found",
        duration=1.25,
        exit_code=0,
        command=f"run {test}",
        stdout=Log.of(f"{test} out\n".encode()),
        stderr=Log.of(b""),
        values=tuple(
            (Value(f"{test}.v{i}", v, "bits/sec"), Direction.HIGHER if i % 2 == 0 else "lower")
            for i, v in enumerate(values)
        ),
    )


def repetition(idx: int, *results: NewResult) -> NewRepetition:
    return NewRepetition(
        idx=idx,
        started_at=T0 + timedelta(minutes=idx),
        finished_at=T0 + timedelta(minutes=idx, seconds=30),
        results=results or (result("iperf", 940.0 + idx, 12.5), result("ping", 0.25 + idx)),
    )
