"""The script every ssh command runs under, run here with sh: quoting, exit status,
environment, directory, its own errors, and the end-of-file that ends the group."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfwalk.hosts.remote_scripts import SCRIPT_FAILED, remote_command, script_error
from tests.hosts.test_localhost import group_members

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _finish(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Read to the end with stdin kept open (closing it is the controller's timeout)."""
    assert proc.stdout is not None
    assert proc.stderr is not None
    with proc:
        out = proc.stdout.read()
        err = proc.stderr.read()
        proc.wait(timeout=10)
    return out, err


def _start(command: str) -> subprocess.Popen[bytes]:
    """What sshd does with the command: a login shell in a session of its own."""
    return subprocess.Popen(
        ["sh", "-c", command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def test_words_arrive_unchanged_whatever_they_hold(tmp_path: Path) -> None:
    hostile = "a b'c\"d$(touch pwned)`x`;e\n|f"
    command = remote_command(
        ["printf", "%s|", hostile, "$HOME", "*"],
        grace=1,
        cwd=str(tmp_path),
        env={"PW_VALUE": hostile},
    )
    proc = _start(command)
    out, err = _finish(proc)
    assert proc.returncode == 0, err
    assert out.decode() == f"{hostile}|$HOME|*|"
    assert not (tmp_path / "pwned").exists()


def test_exit_status_environment_and_directory(tmp_path: Path) -> None:
    command = remote_command(
        ["sh", "-c", 'echo "$PW_A"; pwd; exit 7'], grace=1, cwd=str(tmp_path), env={"PW_A": "x"}
    )
    proc = _start(command)
    out, _err = _finish(proc)
    assert proc.returncode == 7
    assert out.decode().splitlines() == ["x", str(tmp_path)]


@pytest.mark.parametrize(
    ("argv", "cwd", "said"),
    [
        (["no-such-program-pw"], None, "cannot run no-such-program-pw: command not found"),
        (["true"], "/no/such/dir", "cannot run true in directory /no/such/dir"),
    ],
)
def test_its_own_errors_are_told_apart(argv: list[str], cwd: str | None, said: str) -> None:
    proc = _start(remote_command(argv, grace=1, cwd=cwd, env=None))
    _out, err = _finish(proc)
    assert proc.returncode == SCRIPT_FAILED
    found = script_error(proc.returncode, err.decode())
    assert found is not None
    assert said in found
    assert script_error(SCRIPT_FAILED, "some program's own message") is None


def test_end_of_input_ends_the_whole_group_at_once() -> None:
    proc = _start(
        remote_command(["sh", "-c", "sleep 300 & sleep 300"], grace=1, cwd=None, env=None)
    )
    deadline = time.monotonic() + 10
    while len(group_members(proc.pid)) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(group_members(proc.pid)) >= 4  # script, watcher, sh, sleeps
    started = time.monotonic()
    assert proc.stdin is not None
    proc.stdin.close()  # what the controller does at the timeout
    _finish(proc)
    assert time.monotonic() - started < 2
    deadline = time.monotonic() + 5
    while group_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert group_members(proc.pid) == []


def test_a_command_that_ignores_sigterm_is_killed_after_the_grace() -> None:
    proc = _start(
        remote_command(["sh", "-c", "trap '' TERM; sleep 300"], grace=0.5, cwd=None, env=None)
    )
    time.sleep(0.3)
    assert proc.stdin is not None
    proc.stdin.close()
    _finish(proc)
    deadline = time.monotonic() + 5
    while group_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert group_members(proc.pid) == []


def test_what_the_command_leaves_in_its_group_is_ended_when_it_exits() -> None:
    proc = _start(
        remote_command(["sh", "-c", "sleep 300 & echo started"], grace=1, cwd=None, env=None)
    )
    out, _err = _finish(proc)
    assert out == b"started\n"
    assert proc.returncode == 0
    deadline = time.monotonic() + 5
    while group_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert group_members(proc.pid) == []
