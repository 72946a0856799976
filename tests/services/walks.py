"""Helpers for tests that walk a project: the configuration of a walk commit by
commit, and real ``perfwalk`` processes started and stopped."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from perfwalk.hosts.leftovers import WALK_MARKER
from perfwalk.store import Store
from perfwalk.store.records import PassedValue

#: (checkout index, commit, repetition, test, status, values): what must survive a fault
Row = tuple[int, str, int, str, str, tuple[tuple[str, float], ...]]


def walk_config(
    repo: Path,
    command: str,
    *,
    test: str = "latency",
    repetitions: int = 3,
    run: str = "",
    timeout: float | None = 30,
    extra: str = "",
) -> str:
    """The text of a perfwalk.toml that walks ``repo`` commit by commit (nothing to
    build), ``repetitions`` of one test ``test`` that runs ``command`` and parses it
    with the ``value`` parser (``timeout``: its timeout, None for the default); ``run``
    adds lines to [run], ``extra`` tables after the test."""
    limit = "" if timeout is None else f"timeout = {timeout}\n"
    return f"""\
[project]
repo = {json.dumps(str(repo))}

[build]
steps = ["true"]

[run]
step = "commit"
repetitions = {repetitions}
{run}
[[test]]
name = {json.dumps(test)}
command = {json.dumps(command)}
parser = "value"
{limit}{extra}"""


def values_by_metric(rows: list[PassedValue]) -> dict[str, list[PassedValue]]:
    """The rows of ``Store.passed_values`` by the name of their metric."""
    found: dict[str, list[PassedValue]] = {}
    for row in rows:
        found.setdefault(row[3], []).append(row)
    return found


def perfwalk(*args: str, capture: bool = True) -> subprocess.Popen[bytes]:
    """``perfwalk ARGS`` as its own process (``python -m perfwalk``)."""
    stream = subprocess.PIPE if capture else subprocess.DEVNULL
    return subprocess.Popen([sys.executable, "-m", "perfwalk", *args], stdout=stream, stderr=stream)


def finished(*args: str, timeout: float = 120) -> tuple[int, str, str]:
    """Run ``perfwalk ARGS`` to its end: exit status, stdout, stderr."""
    proc = perfwalk(*args)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out.decode(), err.decode()


def rows(db: Path, series_id: int) -> list[Row]:
    """Every stored result of a series, as a comparable row."""
    store = Store.open(f"sqlite:///{db}")
    try:
        found: list[Row] = []
        for checkout in store.checkouts(series_id):
            for rep in store.repetitions(checkout.id):
                for result in rep.results:
                    values = tuple((v.name, v.value) for v in result.values)
                    found.append(
                        (
                            checkout.idx,
                            checkout.sha,
                            rep.idx,
                            result.test,
                            result.status.name,
                            values,
                        )
                    )
        return found
    finally:
        store.close()


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def lines(path: Path) -> list[str]:
    """The lines of a file that commands append to (none while it does not exist)."""
    try:
        return path.read_text().splitlines()
    except FileNotFoundError:
        return []


def walk_process_alive(pid: int) -> bool:
    """True while ``pid`` runs and is a process some walk started (it carries a walk's
    marker): a PID reused by an unrelated process since does not count."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False
    return stat[0] not in (b"Z", b"X") and f"{WALK_MARKER}=".encode() in environ


def pids(path: Path) -> list[int]:
    """The PIDs commands wrote into ``path``, one a line."""
    return [int(line.split()[-1]) for line in lines(path) if line.strip()]


def wait_gone(pids: list[int], timeout: float = 10) -> list[int]:
    """Wait (bounded) until none of ``pids`` runs as a walk's process; those that do."""
    deadline = time.monotonic() + timeout
    while True:
        left = [pid for pid in pids if walk_process_alive(pid)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.01)


def walk(config: Path, *extra: str, capture: bool = True) -> subprocess.Popen[bytes]:
    """``perfwalk run -c CONFIG EXTRA`` as its own process."""
    return perfwalk("run", "-c", str(config), *extra, capture=capture)


def stored_repetitions(db: Path) -> int:
    """How many repetitions the SQLite store ``db`` holds (0 before it exists)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as connection:
            return int(connection.execute("select count(*) from repetition").fetchone()[0])
    except sqlite3.OperationalError:  # not migrated yet
        return 0


def kill_walk_once_stored(
    config: Path, db: Path, target: int, *, late: float = 0.0, args: Sequence[str] = ()
) -> None:
    """Start ``perfwalk run -c CONFIG ARGS`` and ``kill -9`` it ``late`` seconds after
    the SQLite store ``db`` holds ``target`` repetitions (or after 60 s)."""
    victim = walk(config, *args, capture=False)
    deadline = time.monotonic() + 60
    while stored_repetitions(db) < target and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(late)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(timeout=10)
    assert victim.returncode == -signal.SIGKILL
