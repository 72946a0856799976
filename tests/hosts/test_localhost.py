"""LocalHost with real processes: exits, signals, streams, timeouts, process groups."""

from __future__ import annotations

import os
import resource
import signal
import stat
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfwalk.errors import HostError
from perfwalk.hosts import DEFAULT_OUTPUT_LIMIT, LocalHost
from perfwalk.hosts.capture import omitted_marker

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

HUNDRED_MB = 100_000_000


def _state(pid: int) -> str | None:
    """The /proc state letter of ``pid``; None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text.rsplit(")", 1)[1].split()[0]


def alive(pid: int) -> bool:
    """Running, sleeping or stopped; a zombie nobody reaped yet counts as dead."""
    return _state(pid) not in (None, "Z", "X")


def group_members(pgid: int) -> list[int]:
    """Live processes of process group ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


@pytest.fixture
def host() -> LocalHost:
    return LocalHost()


@pytest.fixture
def started() -> Iterator[list[int]]:
    """PIDs of sleepers a test started; killed at teardown if a test left them."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if alive(pid) and b"sleep" in Path(f"/proc/{pid}/cmdline").read_bytes():
            os.kill(pid, signal.SIGKILL)


def pids_of(stdout: bytes) -> list[int]:
    return [int(word) for word in stdout.split()]


# -- exit status, signals, streams -------------------------------------------------


def test_true_is_quick_and_clean(host: LocalHost) -> None:
    done = host.run(["true"])
    assert done.returncode == 0
    assert done.argv == ("true",)
    assert done.stdout.data == b""
    assert done.stderr.data == b""
    assert not done.timed_out
    assert done.error is None
    assert 0 < done.duration < 5
    assert done.started.tzinfo is not None


@pytest.mark.parametrize("code", [0, 1, 3, 255])
def test_exit_codes(host: LocalHost, code: int) -> None:
    assert host.run(["sh", "-c", f"exit {code}"]).returncode == code


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGSEGV])
def test_death_by_signal_is_negative(host: LocalHost, sig: signal.Signals) -> None:
    done = host.run(["sh", "-c", f"kill -{sig.name.removeprefix('SIG')} $$"])
    assert done.returncode == -sig
    assert not done.timed_out


def test_stdout_and_stderr_are_separate(host: LocalHost) -> None:
    done = host.run(["sh", "-c", "echo out1; echo err1 >&2; echo out2; echo err2 >&2"])
    assert done.stdout.data == b"out1\nout2\n"
    assert done.stderr.data == b"err1\nerr2\n"
    assert done.stdout.total == 10


def test_stdin_is_empty(host: LocalHost) -> None:
    done = host.run(["cat"], timeout=10)
    assert done.returncode == 0
    assert done.stdout.data == b""


def test_env_is_added_to_the_inherited_environment(
    host: LocalHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERFWALK_INHERITED", "kept")
    monkeypatch.setenv("PERFWALK_OVERRIDDEN", "old")
    script = 'printf "%s|%s|%s" "$PERFWALK_INHERITED" "$PERFWALK_OVERRIDDEN" "$PERFWALK_NEW"'
    done = host.run(
        ["sh", "-c", script], env={"PERFWALK_OVERRIDDEN": "new", "PERFWALK_NEW": "a b;$c"}
    )
    assert done.stdout.data == b"kept|new|a b;$c"
    assert host.run(["sh", "-c", script]).stdout.data == b"kept|old|"


def test_cwd(host: LocalHost, tmp_path: Path) -> None:
    done = host.run(["pwd", "-P"], cwd=str(tmp_path))
    assert done.stdout.text().strip() == str(tmp_path.resolve())


def test_own_process_group_and_session(host: LocalHost) -> None:
    done = host.run(["sh", "-c", "echo $$; ps -o pgid= -o sid= -p $$"])
    pid, pgid, sid = pids_of(done.stdout.data)
    assert pid == pgid == sid
    assert pgid != os.getpgrp()


# -- could not start ----------------------------------------------------------------


def test_missing_program_is_an_error_not_an_exception(host: LocalHost) -> None:
    done = host.run(["perfwalk-no-such-program", "--flag"])
    assert done.returncode is None
    assert done.error is not None
    assert "perfwalk-no-such-program" in done.error
    assert "No such file" in done.error
    assert not done.timed_out


def test_missing_path(host: LocalHost) -> None:
    done = host.run(["/nonexistent/dir/prog"])
    assert done.returncode is None
    assert done.error is not None
    assert "/nonexistent/dir/prog" in done.error


def test_not_executable(host: LocalHost, tmp_path: Path) -> None:
    script = tmp_path / "script.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(stat.S_IRUSR | stat.S_IWUSR)
    done = host.run([str(script)])
    assert done.returncode is None
    assert done.error is not None
    assert "Permission denied" in done.error


def test_missing_cwd(host: LocalHost, tmp_path: Path) -> None:
    missing = str(tmp_path / "gone")
    done = host.run(["true"], cwd=missing)
    assert done.returncode is None
    assert done.error is not None
    assert missing in done.error


@pytest.mark.parametrize("argv", [[], "echo hi", b"echo"])
def test_misuse_raises_host_error(host: LocalHost, argv: object) -> None:
    with pytest.raises(HostError, match="host local"):
        host.run(argv)  # type: ignore[arg-type]


def test_negative_output_limit_raises(host: LocalHost) -> None:
    with pytest.raises(HostError, match="output_limit"):
        host.run(["true"], output_limit=-1)


# -- timeouts and process groups ------------------------------------------------------


def test_timeout_kills_and_keeps_partial_output(host: LocalHost, started: list[int]) -> None:
    t0 = time.monotonic()
    done = host.run(["sh", "-c", "echo $$; echo before; exec sleep 60"], timeout=0.5)
    elapsed = time.monotonic() - t0
    pid = pids_of(done.stdout.data.split(b"\n")[0])[0]
    started.append(pid)
    assert done.timed_out
    assert done.returncode is None
    assert done.error is None
    assert done.stdout.data.endswith(b"before\n")
    assert 0.5 <= elapsed < 2.0
    assert 0.5 <= done.duration < 2.0
    assert group_members(pid) == []


def test_timeout_kills_background_children(host: LocalHost, started: list[int]) -> None:
    t0 = time.monotonic()
    done = host.run(["sh", "-c", "sleep 60 & echo $$ $!; wait"], timeout=0.5)
    elapsed = time.monotonic() - t0
    group, child = pids_of(done.stdout.data)
    started.append(child)
    assert done.timed_out
    assert elapsed < 2.0
    assert not alive(child)
    assert group_members(group) == []


def test_sigterm_ignored_escalates_to_sigkill(started: list[int]) -> None:
    host = LocalHost(kill_grace=0.3)
    t0 = time.monotonic()
    done = host.run(["sh", "-c", "trap '' TERM; sleep 60 & echo $$ $!; wait"], timeout=0.3)
    elapsed = time.monotonic() - t0
    group, child = pids_of(done.stdout.data)
    started.append(child)
    assert done.timed_out
    assert 0.6 <= elapsed < 2.0
    assert not alive(child)
    assert group_members(group) == []


def test_grandchild_holding_the_pipes_does_not_hang(host: LocalHost, started: list[int]) -> None:
    t0 = time.monotonic()
    done = host.run(["sh", "-c", "sleep 60 & echo $$ $!"], timeout=30)
    elapsed = time.monotonic() - t0
    group, child = pids_of(done.stdout.data)
    started.append(child)
    assert done.returncode == 0
    assert not done.timed_out
    assert elapsed < host.linger + 1.5
    assert not alive(child)
    assert group_members(group) == []


def test_background_server_with_redirected_output_is_left_alone(
    host: LocalHost, started: list[int]
) -> None:
    t0 = time.monotonic()
    done = host.run(["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"], timeout=30)
    elapsed = time.monotonic() - t0
    (child,) = pids_of(done.stdout.data)
    started.append(child)
    assert done.returncode == 0
    assert elapsed < host.linger  # no lingering: the pipes closed with the shell
    assert alive(child)  # stopping it is the caller's job (reset, by PID)


def test_escaped_process_holding_the_pipes_is_bounded(started: list[int]) -> None:
    host = LocalHost(linger=0.2, kill_grace=0.2)
    t0 = time.monotonic()
    done = host.run(["sh", "-c", "setsid sleep 60 & echo $!"], timeout=30)
    elapsed = time.monotonic() - t0
    (child,) = pids_of(done.stdout.data)
    started.append(child)
    assert done.returncode == 0
    assert elapsed < 2.0


def test_closed_pipes_but_running_still_times_out(host: LocalHost, started: list[int]) -> None:
    done = host.run(["sh", "-c", "echo $$; exec >&- 2>&-; exec sleep 60"], timeout=0.5)
    (pid,) = pids_of(done.stdout.data)
    started.append(pid)
    assert done.timed_out
    assert group_members(pid) == []


# -- bounded output -------------------------------------------------------------------


def test_head_and_tail_of_a_long_output(host: LocalHost) -> None:
    done = host.run(
        ["sh", "-c", "printf start; head -c 100000 /dev/zero; printf end"], output_limit=100
    )
    log = done.stdout
    assert log.total == 100_008
    assert log.truncated
    assert log.data.startswith(b"start")
    assert log.data.endswith(b"end")
    assert omitted_marker(100_008 - 200) in log.data
    assert len(log.data) == 200 + len(omitted_marker(100_008 - 200))


def test_hundred_megabytes_on_both_streams_stay_bounded(host: LocalHost) -> None:
    script = f"head -c {HUNDRED_MB} /dev/zero & head -c {HUNDRED_MB} /dev/urandom >&2; wait"
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kB on Linux
    tracemalloc.start()
    try:
        done = host.run(["sh", "-c", script], timeout=60)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    rss_growth_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    assert done.returncode == 0
    bound = 2 * DEFAULT_OUTPUT_LIMIT + len(omitted_marker(HUNDRED_MB))
    for log in (done.stdout, done.stderr):
        assert log.total == HUNDRED_MB
        assert log.truncated
        assert len(log.data) <= bound
    assert done.stdout.data.startswith(b"\0" * DEFAULT_OUTPUT_LIMIT)
    assert peak < 16 * 1024 * 1024, f"peak traced allocation {peak} bytes"
    assert rss_growth_mb < 40, f"peak RSS grew by {rss_growth_mb:.0f} MB"


# -- put / get ------------------------------------------------------------------------


def test_put_and_get_copy_files(host: LocalHost, tmp_path: Path) -> None:
    source = tmp_path / "tool.sh"
    source.write_bytes(b"#!/bin/sh\necho ok\n")
    source.chmod(0o755)
    host.put(source, str(tmp_path / "remote.sh"))
    assert (tmp_path / "remote.sh").read_bytes() == source.read_bytes()
    assert os.access(tmp_path / "remote.sh", os.X_OK)
    host.get(str(tmp_path / "remote.sh"), tmp_path / "back.sh")
    assert (tmp_path / "back.sh").read_bytes() == source.read_bytes()


def test_put_missing_file_names_it(host: LocalHost, tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    with pytest.raises(HostError, match=r"missing\.txt") as info:
        host.put(missing, str(tmp_path / "x"))
    assert info.value.hint


def test_get_into_missing_directory_names_it(host: LocalHost, tmp_path: Path) -> None:
    source = tmp_path / "data"
    source.write_bytes(b"1")
    target = tmp_path / "no" / "such" / "dir" / "data"
    with pytest.raises(HostError, match="no/such/dir"):
        host.get(str(source), target)


def test_close_is_harmless(host: LocalHost) -> None:
    host.close()
    assert host.name == "local"
    assert LocalHost("dut").name == "dut"
