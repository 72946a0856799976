"""The live view while a real walk runs: a walk (``perfwalk run`` in a subprocess) on two
hosts whose test prints a line, sleeps, prints ``panic: …`` (with an escape sequence)
and waits; ``status --follow`` (another subprocess), the published site's live page
and ``perfwalk serve``'s show, while the test still runs, the walk's checkout,
repetition and step on each host and the panic line, its control characters made
visible; once the walk ends, serve's page says so at the next request, the store
keeps no live row of it, and the host-use page lists both hosts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from perfwalk.errors import PerfwalkError
from perfwalk.store import Store
from perfwalk.store.live import LiveRow
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


def _env() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}


def _follow(cwd: Path, *more: str) -> str:
    done = perfwalk("status", "--follow", "--every", "0.5", *more, cwd=cwd, env=_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _live(walk_dir: Path) -> list[LiveRow]:
    with Store.open(f"sqlite:///{walk_dir / 'perfwalk.db'}", read_only=True) as store:
        return store.live.now()


@contextmanager
def _walking(walk_dir: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``perfwalk run`` in a subprocess, handed over once the store shows the panic
    line its test printed (the test still runs); the test is let end afterwards,
    and the walk must then finish."""
    walk = subprocess.Popen(
        [sys.executable, "-m", "perfwalk", "run"],
        cwd=walk_dir,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not any(PANIC in row.tail for row in _live_or_none(walk_dir)):
            assert walk.poll() is None, "the walk ended before its test printed the panic"
            assert time.monotonic() < deadline, "the panic line never reached the store"
            time.sleep(0.2)
        yield walk
    finally:
        (walk_dir / "release").touch()
        try:
            walk.wait(timeout=120)
        finally:
            if walk.poll() is None:
                walk.kill()
                walk.wait()
    assert walk.returncode == 0


def _live_or_none(walk_dir: Path) -> list[LiveRow]:
    """What the store shows (nothing before the walk made it)."""
    try:
        return _live(walk_dir)
    except PerfwalkError:
        return []


#: what the panic line is in the store, and as the terminal and the pages show it
PANIC = "panic: page fault in \x1b[31mkernel"
SHOWN = "panic: page fault in \\x1b[31mkernel\\x1b[0m at 0xdead"


def test_follow_shows_each_host_and_the_panic_line_while_the_test_runs(walk_dir: Path) -> None:
    with _walking(walk_dir) as walk:
        seen = _follow(walk_dir, "--count", "2")
        assert walk.poll() is None  # the test still runs
    print(seen)
    assert SHOWN in seen
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
    # the walk ended: nothing runs, the store keeps no live row of it
    assert "no walk runs now" in _follow(walk_dir, "--count", "1")
    assert _live(walk_dir) == []


def test_the_published_and_the_served_live_page_show_the_panic_line(walk_dir: Path) -> None:
    server = None
    try:
        with _walking(walk_dir):
            done = perfwalk("report", "--out", "site", cwd=walk_dir, env=_env(), timeout=300)
            assert done.returncode == 0, done.stderr
            published = (walk_dir / "site" / "now.html").read_text()
            server = subprocess.Popen(
                [sys.executable, "-m", "perfwalk", "serve", "--out", "served", "--port", "0"],
                cwd=walk_dir,
                env=_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            url = _served_url(server)
            served = _get(url + "now.html")
        assert SHOWN in published
        assert "when the site was published" in published
        assert '<meta http-equiv="refresh" content="60">' in published
        assert "host alpha" in published
        assert "host beta" in published
        assert "\x1b" not in published
        assert SHOWN in served
        assert "read from the store" in served
        assert '<meta http-equiv="refresh" content="5">' in served
        index = (walk_dir / "site" / "index.html").read_text()
        assert '<a href="now.html">now</a>' in index
        assert '<a href="hosts.html">host use</a>' in index
        # the walk ended: the served page says so at the next request, from the store
        assert "No walk runs now." in _get(url + "now.html")
        done = perfwalk("report", "--out", "site", cwd=walk_dir, env=_env(), timeout=300)
        assert done.returncode == 0, done.stderr
        hosts = (walk_dir / "site" / "hosts.html").read_text()
        for host in ("alpha", "beta", "local"):
            assert f"<h2>host {host}</h2>" in hosts
        assert '<a href="series-1.html">1: ' in hosts
        assert "No host is leased." in hosts  # the walk let its hosts go
    finally:
        if server is not None:
            server.send_signal(signal.SIGINT)
            try:
                server.communicate(timeout=60)
            finally:
                if server.poll() is None:
                    server.kill()
                    server.wait()


def _served_url(server: subprocess.Popen[str]) -> str:
    assert server.stdout is not None
    for line in server.stdout:
        if line.startswith("serving "):
            return line.split(" at ", 1)[1].split()[0]
    raise AssertionError("perfwalk serve ended without serving")


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=60) as answer:
        return str(answer.read().decode())


def test_follow_ends_at_ctrl_c_with_status_0(walk_dir: Path) -> None:
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
