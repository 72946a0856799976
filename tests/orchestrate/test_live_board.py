"""A walk's live board on a real host and a real store: a command's output is in the
store while the command still runs (within the board's interval), bounded however
much it prints (on SQLite and on PostgreSQL); commands of a step nest their output
under ``$ command`` lines; the commands run aside (a host's facts) and outside every
step are not shown; a step's command that runs in another thread (a multi-host
test's) is shown too."""

from __future__ import annotations

import contextvars
import threading
import time
from pathlib import Path

from perfwalk.hosts.local import LocalHost
from perfwalk.model import Checkout
from perfwalk.orchestrate.hosts.together import run_together
from perfwalk.orchestrate.steps.live import LiveBoard
from perfwalk.store import Store
from perfwalk.store.live import TAIL_BYTES, TAIL_LINES
from tests.report.history import T0, _series
from tests.store.conftest import pg_admin, store_url

__all__ = ["pg_admin", "store_url"]  # fixtures: store_url runs a test on both back-ends

CHECKOUT = Checkout(index=4, commit="ab" * 20, date=T0)


def _store(url: str) -> tuple[Store, int]:
    store = Store.open(url)
    return store, store.create_series(_series("live", "1day", None, ()))


def test_output_is_in_the_store_while_the_command_runs(tmp_path: Path, store_url: str) -> None:
    store, sid = _store(store_url)
    release = tmp_path / "release"
    host = LocalHost("box")
    board = LiveBoard(store, sid, every=0.1)
    try:
        with board.step("test slow", CHECKOUT, 2):
            host.run(["sh", "-c", "echo built"], timeout=30)
            runner = threading.Thread(  # in this context: the step's tap follows
                target=contextvars.copy_context().run,
                args=(
                    host.run,
                    [
                        "sh",
                        "-c",
                        f"echo 'panic: oops'; while [ ! -e {release} ]; do sleep 0.05; done",
                    ],
                ),
                kwargs={"timeout": 60},
            )
            runner.start()
            deadline = time.monotonic() + 30
            while not any("panic: oops" in row.tail for row in store.live.now()):
                assert time.monotonic() < deadline, "the output never reached the store"
                time.sleep(0.05)
            (row,) = store.live.now()
            assert runner.is_alive()
            assert row.running
            assert (row.host, row.checkout, row.commit, row.repetition, row.step) == (
                "box",
                4,
                "ab" * 20,
                2,
                "test slow",
            )
            assert row.tail.startswith("$ echo built\nbuilt\n$ echo 'panic: oops';")
            release.touch()
            runner.join()
        (row,) = store.live.now()
        assert not row.running  # ended, told when the step ended
    finally:
        release.touch()
        store.close()


def test_what_is_kept_is_bounded_and_facts_are_aside(store_url: str) -> None:
    store, sid = _store(store_url)
    host = LocalHost("box")
    board = LiveBoard(store, sid)
    try:
        host.run(["sh", "-c", "echo outside"], timeout=30)  # no step: not shown
        assert store.live.now() == []
        with board.step("build", CHECKOUT, None):
            host.run(["sh", "-c", "seq 1 200000"], timeout=60)
            with board.aside():
                host.run(["sh", "-c", "echo kernel=facts"], timeout=30)
        (row,) = store.live.now()
        lines = row.tail.split("\n")
        assert len(lines) <= TAIL_LINES
        assert len(row.tail) <= TAIL_BYTES
        assert lines[-2:] == ["200000", ""]
        assert "kernel=facts" not in row.tail
        assert row.repetition is None
    finally:
        store.close()


def test_a_step_on_two_hosts_at_once_shows_both(tmp_path: Path) -> None:
    store, sid = _store(f"sqlite:///{tmp_path / 'store.db'}")
    board = LiveBoard(store, sid)
    try:
        with board.step("test pair", CHECKOUT, 0):
            run_together(
                [
                    lambda cancel, name=name: LocalHost(name).run(
                        ["sh", "-c", f"echo I am {name}"], timeout=30, cancel=cancel
                    )
                    for name in ("src", "sink")
                ]
            )
        rows = store.live.now()
        assert [(r.host, r.step, r.tail.splitlines()[-1]) for r in rows] == [
            ("sink", "test pair", "I am sink"),
            ("src", "test pair", "I am src"),
        ]
    finally:
        store.close()
