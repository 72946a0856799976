"""Processes found by a marker in their environment or in a cgroup, and stopped by PID:
real processes, real /proc, a real cgroup v2 where this machine has one."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfwalk.hosts.leftovers import (
    RUN_MARKER,
    Cgroup,
    command_line,
    marked,
    new_cgroup,
    signal_same,
    stale_cgroups,
    start_time,
    stop,
)
from perfwalk.hosts.local import LocalHost


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (not a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts; any still running at the end is killed and reaped."""
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def _sleeper(procs: list[subprocess.Popen[bytes]], env: dict[str, str]) -> int:
    """A ``sleep`` with ``env``, once it runs: until the child has exec'd, /proc shows
    the forked parent's command line and environment, not its own."""
    proc = subprocess.Popen(["sleep", "1000"], env={**os.environ, **env}, start_new_session=True)
    procs.append(proc)
    cmdline = Path(f"/proc/{proc.pid}/cmdline")
    deadline = time.monotonic() + 30
    while cmdline.read_bytes() != b"sleep\x001000\x00":
        assert time.monotonic() < deadline, "sleep did not start"
        time.sleep(0.01)
    return proc.pid


def _wait_reaped(proc: subprocess.Popen[bytes]) -> int:
    return proc.wait(timeout=10)


def test_marked_finds_the_processes_that_carry_the_value_and_only_them(
    started: list[subprocess.Popen[bytes]],
) -> None:
    mine, other = secrets.token_hex(8), secrets.token_hex(8)
    carrier = _sleeper(started, {RUN_MARKER: mine})
    bystander = _sleeper(started, {RUN_MARKER: other})
    unmarked = _sleeper(started, {})
    found = marked(RUN_MARKER, [mine])
    assert [p.pid for p in found] == [carrier]
    assert found[0].marker == mine
    assert found[0].command == "sleep 1000"
    assert bystander not in {p.pid for p in marked(RUN_MARKER, [mine])}
    assert unmarked not in {p.pid for p in marked(RUN_MARKER, [mine, other])}
    assert marked(RUN_MARKER, []) == []


def test_stop_kills_what_carries_the_marker_and_never_another_process(
    started: list[subprocess.Popen[bytes]],
) -> None:
    mine = secrets.token_hex(8)
    carrier = _sleeper(started, {RUN_MARKER: mine})
    found = marked(RUN_MARKER, [mine])
    # the same PID list, but a process that does not carry the marker is left alone:
    # what stop() does to a PID that was reused by another process in between
    bystander = _sleeper(started, {})
    impostor = [*found, type(found[0])(bystander, "sleep 1000", mine)]
    killed = stop(impostor, RUN_MARKER, [mine])
    assert [p.pid for p in killed] == [carrier]
    assert _wait_reaped(started[0]) == -9
    assert _alive(bystander)


def test_command_lines_are_short_and_printable(started: list[subprocess.Popen[bytes]]) -> None:
    # (a shell that does not exec its last command, so its command line stays)
    proc = subprocess.Popen(["sh", "-c", "sleep 1000; :", "\x1b[31mred", "x" * 300])
    started.append(proc)
    deadline = time.monotonic() + 10
    while not command_line(proc.pid).startswith("sh -c") and time.monotonic() < deadline:
        time.sleep(0.001)  # forked, not yet exec'd: still this process's command line
    text = command_line(proc.pid)
    assert text.startswith("sh -c sleep 1000; : ?[31mred xxx")
    assert len(text) <= 120
    assert text.endswith("…")
    assert "\x1b" not in text
    assert command_line(2**22 + 12345) == "?"  # beyond pid_max: no such process


def _cgroup_or_skip() -> Cgroup:
    cgroup, why = new_cgroup(f"perfwalk-test-{secrets.token_hex(6)}")
    if cgroup is None:
        pytest.skip(f"no cgroup for this test: {why} (CI runs as root with cgroup v2)")
    return cgroup


def test_a_cgroup_holds_what_escapes_the_group_and_the_marker_and_kills_it(
    tmp_path: Path,
) -> None:
    cgroup = _cgroup_or_skip()
    host = LocalHost()
    host.cgroup = str(cgroup.procs)
    pidfile = tmp_path / "daemon.pid"
    # a daemon that leaves the process group and empties its environment
    script = f"setsid env -i sleep 1000 >/dev/null 2>&1 & echo $! > {pidfile}"
    try:
        done = host.run(["sh", "-c", script], timeout=30)
        assert done.returncode == 0, done.stderr.text()
        daemon = int(pidfile.read_text())
        assert _alive(daemon)
        assert [p.pid for p in cgroup.members()] == [daemon]
    finally:
        cgroup.end()
    deadline = time.monotonic() + 5
    while _alive(daemon) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _alive(daemon)
    assert not cgroup.path.exists()


def test_stale_cgroups_are_found_by_their_prefix() -> None:
    cgroup = _cgroup_or_skip()
    try:
        prefix = cgroup.path.name[:-4]
        assert cgroup.path in [c.path for c in stale_cgroups(prefix)]
        assert stale_cgroups(f"perfwalk-none-{secrets.token_hex(8)}") == []
    finally:
        cgroup.end()
    assert not cgroup.path.exists()


def test_a_host_without_cgroup_runs_the_command_all_the_same(tmp_path: Path) -> None:
    host = LocalHost()
    host.cgroup = str(tmp_path / "no-such-cgroup" / "cgroup.procs")
    done = host.run(["sh", "-c", "echo ran; exit 3"], timeout=30)
    assert (done.returncode, done.stdout.text(), done.stderr.text()) == (3, "ran\n", "")
    assert done.argv == ("sh", "-c", "echo ran; exit 3")


def test_a_forked_worker_ends_with_its_parent_even_killed() -> None:
    """A pool's worker whose parent is killed (kill -9) does not wait for ever."""
    script = (
        "import os, sys, time\n"
        "from perfwalk.hosts.leftovers import end_with\n"
        "parent = os.getpid()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    end_with(parent, poll=0.05)\n"
        "    time.sleep(1000)  # a worker blocked on its work\n"
        "    os._exit(0)\n"
        "print(pid, flush=True)\n"
        "time.sleep(1000)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    with parent:
        try:
            assert parent.stdout is not None
            worker = int(parent.stdout.readline())
            assert _alive(worker)
        finally:
            parent.kill()
            parent.wait(timeout=10)
    deadline = time.monotonic() + 30
    while _alive(worker) and command_line(worker).startswith(sys.executable):
        assert time.monotonic() < deadline, "the worker outlived its parent"
        time.sleep(0.01)


def test_a_process_is_signalled_by_pid_only_while_it_is_the_one_recorded(
    started: list[subprocess.Popen[bytes]],
) -> None:
    """A PID recorded earlier (an ssh master's) may belong to another process by now:
    its start time tells them apart, and the other process is never signalled."""
    first = _sleeper(started, {})
    when = start_time(first)
    assert when not in ("", "?")
    other_start = str(int(when) + 1)  # what a process that reused the PID would show
    assert not signal_same(first, other_start, signal.SIGKILL)
    assert _alive(first)
    assert signal_same(first, when, signal.SIGKILL)
    assert _wait_reaped(started[0]) == -9
    assert start_time(first) != when  # gone (or its PID reused by another process)
    assert not signal_same(first, when, signal.SIGKILL)
