"""``perfwalk status --follow`` while a real walk runs: a walk (``perfwalk run`` in a
subprocess) whose test prints a line, sleeps, prints ``panic: …`` and sleeps again;
``status --follow`` (another subprocess) shows, while the test still runs, the
walk's checkout, repetition and step on each of its two hosts and the panic line,
its control characters made visible; the live rows are gone once the walk ends."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfwalk.store import Store
from tests.fixtures.commands import perfwalk
from tests.fixtures.synthetic_repo import numbered_repo

#: the test's command on host alpha: a line, a pause, the panic (with an escape
#: sequence in it, as a console may print), a long pause, then its value
SLOW = """\
echo "booting {n}"
sleep 1
printf 'panic: page fault in \\033[31mkernel\\033[0m at 0xdead\\n'
while [ ! -e "{release}" ]; do sleep 0.2; done
echo "VALUE 1.5 ms latency"
"""
#: what the sink role runs meanwhile on host beta
SINK = """\
echo "sink listening"
while [ ! -e "{release}" ]; do sleep 0.2; done
"""

CONFIG = """\
[project]
repo = "{repo}"
[build]
steps = ["true"]
[run]
repetitions = 1
step = "commit"
[[test]]
name = "slow"
role = "dut"
command = "sh {slow}"
parser = "value"
[test.roles.sink]
run = ["sh {sink}"]
[hosts.alpha]
target = "local"
roles = ["dut"]
[hosts.beta]
target = "local"
roles = ["sink"]
"""


@pytest.fixture
def walk_dir(tmp_path: Path) -> Path:
    numbered_repo(tmp_path / "repo", 2)
    release = tmp_path / "release"
    (tmp_path / "slow.sh").write_text(SLOW.format(n="$PERFWALK_REPETITION", release=release))
    (tmp_path / "sink.sh").write_text(SINK.format(release=release))
    (tmp_path / "perfwalk.toml").write_text(
        CONFIG.format(repo=tmp_path / "repo", slow=tmp_path / "slow.sh", sink=tmp_path / "sink.sh")
    )
    return tmp_path


def _follow(cwd: Path, *more: str) -> str:
    done = perfwalk("status", "--follow", "--every", "0.5", *more, cwd=cwd, env=_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _env() -> dict[str, str]:
    import os

    return {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}


def test_follow_shows_each_host_and_the_panic_line_while_the_test_runs(walk_dir: Path) -> None:
    walk = subprocess.Popen(
        [sys.executable, "-m", "perfwalk", "run"],
        cwd=walk_dir,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        seen = ""
        deadline = time.monotonic() + 120
        while "panic: page fault" not in seen and time.monotonic() < deadline:
            assert walk.poll() is None, "the walk ended before its test printed the panic"
            seen = _follow(walk_dir, "--count", "2")
        print(seen)
        assert "panic: page fault in \\x1b[31mkernel\\x1b[0m at 0xdead" in seen
        assert "\x1b" not in seen  # neutralised, never sent to the terminal
        views = seen.split("\n\n")
        assert len(views) == 2
        assert all(v.startswith("perfwalk now, ") for v in views)
        last = views[-1]
        alpha = next(line for line in last.splitlines() if line.startswith("host alpha:"))
        beta = next(line for line in last.splitlines() if line.startswith("host beta:"))
        for line in (alpha, beta):
            assert "series 1 " in line
            assert "checkout 1 (" in line
            assert "repetition 1, test slow" in line
        assert "runs for" in last
        assert "sink listening" in last
        assert "| booting 0" in last
        assert all(len(line) <= 100 for line in last.splitlines())
    finally:
        (walk_dir / "release").touch()
        try:
            walk.wait(timeout=120)
        finally:
            if walk.poll() is None:
                walk.kill()
                walk.wait()
    assert walk.returncode == 0
    assert "no walk runs now" in _follow(walk_dir, "--count", "1")
    store = Store.open(f"sqlite:///{walk_dir / 'perfwalk.db'}", read_only=True)
    try:
        assert store.live.now() == []
    finally:
        store.close()


def test_follow_ends_at_ctrl_c_with_status_0(walk_dir: Path) -> None:
    import signal

    follower = subprocess.Popen(
        [sys.executable, "-m", "perfwalk", "status", "--follow", "--every", "0.2"],
        cwd=walk_dir,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert follower.stdout is not None
        first, said = follower.stdout.readline(), follower.stdout.readline()
        assert first.startswith("perfwalk now, "), first
        assert said == "no walk runs now\n"
        follower.send_signal(signal.SIGINT)
        _out, err = follower.communicate(timeout=60)
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()
    assert follower.returncode == 0, err
    assert "Traceback" not in err
