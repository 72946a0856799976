"""The work directories that killed runs left: found by their owner, removed by the
next run that makes one on the host; a live run's and another machine's are kept.
Real processes, a real shell, the real /proc; a /proc of files for the rules alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perfwalk.hosts import LocalHost
from perfwalk.orchestrate.hosts import workdirs
from perfwalk.orchestrate.hosts.topology import Member, Topology
from perfwalk.orchestrate.hosts.workdirs import Owner

pytestmark = pytest.mark.skipif(
    workdirs.this_run() is None, reason="this machine's /proc does not tell a boot id"
)


def _topology() -> Topology:
    return Topology({"here": Member("here", LocalHost("here"), local=True)}, "here")


def _left_by(tmp: Path, owner: str) -> Path:
    folder = tmp / f"perfwalk.{len(list(tmp.iterdir())):06d}"
    folder.mkdir()
    (folder / ".owner").write_text(owner + "\n", encoding="ascii")
    (folder / "sink.log").write_text("a service's log\n", encoding="ascii")
    return folder


def test_a_killed_runs_directory_goes_and_a_live_or_foreign_one_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    me = workdirs.this_run()
    assert me is not None
    # a process that ran on this machine and was killed outright
    gone = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    owner = workdirs.process(Path("/proc"), gone.pid, me.boot)
    assert owner is not None
    gone.kill()
    gone.wait()
    killed = _left_by(tmp_path, owner.text())
    # one that still runs
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        running = workdirs.process(Path("/proc"), alive.pid, me.boot)
        assert running is not None
        live = _left_by(tmp_path, running.text())
        reused = _left_by(tmp_path, Owner(me.boot, alive.pid, running.started - 1).text())
        foreign = _left_by(tmp_path, Owner("another-boot", gone.pid, owner.started).text())
        unowned = _left_by(tmp_path, "not an owner")
        topology = _topology()
        made = Path(topology.workdir("here"))
        assert made.parent == tmp_path
        assert (made / ".owner").read_text(encoding="ascii").split() == me.text().split()
        assert not killed.exists()
        assert not reused.exists()  # its process id is another process's now
        assert live.exists()
        assert foreign.exists()
        assert unowned.exists()
        topology.close()
        assert not made.exists()
    finally:
        alive.kill()
        alive.wait()


def test_the_owner_of_a_process_is_read_from_its_stat(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    (proc / "sys/kernel/random").mkdir(parents=True)
    (proc / "sys/kernel/random/boot_id").write_text("b00t\n", encoding="ascii")
    (proc / "42").mkdir()
    fields = " ".join(["S", *map(str, range(4, 22)), "777", "0", "0"])
    (proc / "42" / "stat").write_text(f"42 (a (strange) name) {fields}\n", encoding="ascii")
    assert workdirs.process(proc, 42, workdirs.boot(proc)) == Owner("b00t", 42, 777)
    assert workdirs.process(proc, 43, "b00t") is None  # no such process
    me = Owner("b00t", 1, 5)
    others = [
        ("/tmp/perfwalk.AbC123", "b00t 42 777"),  # runs
        ("/tmp/perfwalk.dEf456", "b00t 43 778"),  # gone
        ("/tmp/perfwalk.gHi789", "other 43 778"),  # another boot or machine
        ("/tmp/../etc", "b00t 43 778"),  # not a work directory: never removed
        ("/tmp/perfwalk.jKl012", "b00t 1 5"),  # this very run
    ]
    assert workdirs.left_over(others, me, proc) == ["/tmp/perfwalk.dEf456"]


def test_what_the_command_prints_is_read_back() -> None:
    assert workdirs.made("/tmp/perfwalk.x\nOWNER /tmp/perfwalk.y b 1 2\nnoise\n") == (
        "/tmp/perfwalk.x",
        [("/tmp/perfwalk.y", "b 1 2")],
    )
    assert workdirs.made("") == ("", [])
