"""Conductor runs stored through the store's API, with known run-phase outputs (no
lab, no ssh): what `conduct` would have stored had it played them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from perfwalk.model import Log, Status
from perfwalk.store import NewStep, Store
from perfwalk.store.conduct import NewConductRun

T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)


def store_run(store: Store, outputs: Sequence[dict[str, str]], name: str = "master.cfg") -> int:
    """A finished run of ``len(outputs)`` trials; each trial's run phase has a
    command step per ``PLAYER.STEP: output`` item, plus a spawned service and a
    collect step whose outputs are not the parser's."""
    conduct_id = store.conduct.create(
        NewConductRun(
            name=name,
            master=f"/lab/{name}",
            config_text="[Test]\ntrials: 1\n",
            players={"source": {"address": "10.0.0.2", "target": "local", "file": "s.cfg"}},
            trials=len(outputs),
            started_at=T0,
        )
    )
    for trial, items in enumerate(outputs, start=1):
        at = T0 + timedelta(minutes=trial)
        steps = [
            NewStep(
                phase="run",
                role=key.partition(".")[0],
                host="local",
                kind="command",
                name=key.partition(".")[2],
                command="iperf3 -c sink",
                status=Status.PASS,
                started_at=at,
                finished_at=at,
                exit_code=0,
                stdout=Log.of(text.encode()),
            )
            for key, text in items.items()
        ]
        steps += [
            NewStep(
                phase="run",
                role="sink",
                host="local",
                kind="service",
                name="spawn1",
                command="iperf3 -s",
                status=Status.PASS,
                started_at=at,
                finished_at=at,
                stdout=Log.of(b"VALUE 1 s ignored\n"),
            ),
            NewStep(
                phase="collect",
                role="source",
                host="local",
                kind="command",
                name="step1",
                command="netstat -s",
                status=Status.PASS,
                started_at=at,
                finished_at=at,
                stdout=Log.of(b"VALUE 2 s ignored\n"),
            ),
        ]
        store.conduct.add_trial(conduct_id, trial, steps)
    store.conduct.finish(conduct_id, "finished", T0 + timedelta(hours=1))
    return conduct_id
