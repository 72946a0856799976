"""Conductor runs stored through the store's API, with known run-phase outputs (no
lab, no ssh): what `conduct` would have stored had it played them; and runs really
played on this machine (every player at a loopback address is local)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from perfwalk.model import Log, Status
from perfwalk.services.conduct import ConductOptions, ConductResult, conduct, make_parser
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


#: what the local player's run phase writes: a value whose name is hostile text, and
#: hostile text on its standard error
HOSTILE_NAME = "<script>window.pwned=1</script>"
LOCAL_PLAYER = f"""\
[Master]
player: 127.0.0.1
conductor: 127.0.0.1
cmdport: 6970
resultsport: 6971
[Startup]
step1: echo started
[Run]
step1: echo 'VALUE 941.5 Mbit/s rate'; echo 'VALUE 7 <b>u {HOSTILE_NAME}'; \
echo '<script>window.pwned=2</script>' >&2
step2: sh -c 'exit 3'
[Collect]
step1: echo collected
[Reset]
step1: true
"""


def play_local(folder: Path, *, trials: int = 2, parser: str | None = None) -> ConductResult:
    """Play a Conductor set of one local player in ``folder`` (stored in its
    perfwalk.db): each trial's run phase gives two values and fails a step (exit 3)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "master.cfg").write_text("[Test]\ntrials: 1\n[Clients]\nsource: source.cfg\n")
    (folder / "source.cfg").write_text(LOCAL_PLAYER)
    options = ConductOptions(
        mapping={},
        trials=trials,
        parser=None if parser is None else make_parser(parser, []),
    )
    return conduct(folder / "master.cfg", options)
