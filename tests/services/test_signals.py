"""A walk stopped by a signal or killed: what it leaves, what `status` says, and what
`run --resume` finds and stops before it measures. Real perfwalk processes."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from perfwalk.store import Store
from tests.services.conftest import MakeConfig
from tests.services.walks import finished, lines, perfwalk, pids, wait_for, walk_process_alive

#: A test that records its PID and a daemon's (``setsid … &``: outside its process
#: group), then measures; slow while ``<marks>/slow`` exists.
SLOW_TEST = (
    "echo $$ >> {m}/pids; setsid sleep 1000 >/dev/null 2>&1 & echo $! >> {m}/pids; "
    "echo started $PERFWALK_CHECKOUT >> {m}/events; "
    "if [ -e {m}/slow ] && [ $PERFWALK_CHECKOUT -ge {slow_from} ]; then sleep 60; fi; "
    "sh bench.sh"
)

#: A role on this machine whose reset phase leaves a mark.
RESET_ROLE = """
[test.roles.dut]
reset = ["echo reset >> {m}/resets"]

[hosts.here]
target = "local"
roles = ["dut"]
"""


def _marks(tmp_path: Path) -> Path:
    marks = tmp_path / "marks"
    marks.mkdir()
    (marks / "slow").touch()
    return marks


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "words"),
    [
        (signal.SIGTERM, "stopped by SIGTERM"),
        (signal.SIGHUP, "stopped by SIGHUP"),
        (signal.SIGINT, "interrupted"),
    ],
)
def test_a_signal_stops_the_walk_like_ctrl_c_and_leaves_no_process(
    make_config: MakeConfig, tmp_path: Path, sig: signal.Signals, words: str
) -> None:
    marks = _marks(tmp_path)
    config = make_config(
        command=SLOW_TEST.format(m=marks, slow_from=1), extra=RESET_ROLE.format(m=marks)
    )
    walk = perfwalk("run", "-c", str(config.path))
    wait_for(lambda: "started 1" in lines(marks / "events"), "the slow test")
    wait_for(lambda: len(pids(marks / "pids")) >= 2 * len(lines(marks / "events")), "its pids")
    resets_before = len(lines(marks / "resets"))
    walk.send_signal(sig)
    _out, err = walk.communicate(timeout=60)
    assert walk.returncode == 128 + sig, err
    assert f"perfwalk: {words}; `perfwalk run --resume` continues the walk" in err.decode()
    assert "Traceback" not in err.decode()
    # the test's process group and its daemon are gone, the reset phase ran
    assert [pid for pid in pids(marks / "pids") if walk_process_alive(pid)] == []
    assert len(lines(marks / "resets")) == resets_before + 1
    with Store.open(config.store.url) as store:
        assert store.series(1).state == "interrupted"


@pytest.mark.slow
def test_a_killed_walk_is_told_apart_and_its_processes_are_stopped_before_the_resume_measures(
    make_config: MakeConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marks = _marks(tmp_path)
    work = tmp_path / "tmp"  # where the walks make their work directories
    work.mkdir()
    monkeypatch.setenv("TMPDIR", str(work))
    # the test also notes any process of the killed walk that still runs while it measures
    seen = (
        f"for p in $(cat {marks}/orphans 2>/dev/null); do "
        f"grep -qa PERFWALK_WALK /proc/$p/environ 2>/dev/null && echo $p >> {marks}/seen; done; "
    )
    config = make_config(command=seen + SLOW_TEST.format(m=marks, slow_from=1))
    cfg = str(config.path)
    walk = perfwalk("run", "-c", cfg, capture=False)
    wait_for(lambda: "started 1" in lines(marks / "events"), "the slow test")
    wait_for(lambda: len(pids(marks / "pids")) >= 2 * len(lines(marks / "events")), "its pids")

    code, out, _err = finished("status", "-c", cfg)
    assert code == 0
    assert f"series 1 'project 1day': running (pid {walk.pid} on" in out, out
    walk.kill()
    assert walk.wait(timeout=30) == -signal.SIGKILL
    # a kill -9 leaves its work directory and the one of its ssh control sockets
    assert sorted(p.name[:7] for p in work.iterdir()) == ["perfwal", "pw-ssh-"]

    code, out, _err = finished("status", "-c", cfg)
    assert f"series 1 'project 1day': interrupted: its walk (pid {walk.pid} on " in out, out
    assert "is gone; `perfwalk run --resume` continues it" in out
    assert "repetitions 2 of 22" in out  # 2 of 11 planned checkouts × 2 (not 2/4: reached × 2)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("COLUMNS", "200")  # the table in one block, each row whole
        code, out, _err = finished("list", "-c", cfg)
    (row,) = [line.split() for line in out.splitlines() if line.split()[:1] == ["1"]]
    assert row[:5] == ["1", "walk", "project", "1day", "interrupted"], out

    orphans = [pid for pid in pids(marks / "pids") if walk_process_alive(pid)]
    assert len(orphans) == 2, "the test's shell and its daemon outlive a kill -9"
    (marks / "orphans").write_text("".join(f"{pid}\n" for pid in orphans))
    (marks / "slow").unlink()
    code, out, err = finished("run", "-c", cfg, "--resume")
    assert code == 1, err  # 1: the broken build
    # the test's shell, its daemon, and the shell's `sleep 60`
    assert "stopped 3 processes left running by the walk of series 1 that is gone" in out
    assert all(f"pid {pid} " in out for pid in orphans)
    assert lines(marks / "seen") == [], "a process of the killed walk ran while it measured"
    assert [pid for pid in pids(marks / "pids") if walk_process_alive(pid)] == []
    code, out, _err = finished("status", "-c", cfg)
    assert "series 1 'project 1day': finished" in out
    assert "repetitions 20 of 22 (2 not run: build failed)" in out
    assert list(work.iterdir()) == []  # the resume removed the killed walk's, then its own


@pytest.mark.slow
def test_status_counts_the_planned_repetitions_of_an_interrupted_walk(
    make_config: MakeConfig, tmp_path: Path
) -> None:
    marks = _marks(tmp_path)
    config = make_config(command=SLOW_TEST.format(m=marks, slow_from=5))
    walk = perfwalk("run", "-c", str(config.path), "-n", "3", capture=False)
    wait_for(lambda: "started 5" in lines(marks / "events"), "the slow checkout")
    walk.send_signal(signal.SIGTERM)
    assert walk.wait(timeout=60) == 128 + signal.SIGTERM
    with Store.open(config.store.url) as store:
        done = len(store.done_repetitions(1))
        reached = len(store.checkouts(1))
    assert reached == 6  # checkouts 0..4 measured, 5 stopped at its first repetition
    assert done == 5 * 3 - 3  # one of 0..4 did not build
    code, out, _err = finished("status", "-c", str(config.path))
    assert code == 0
    assert "series 1 'project 1day': interrupted\n" in out
    assert "checkouts 6 of 11 planned (built 5, build failed 1)" in out
    assert f"repetitions {done} of 33 (3 not run: build failed)" in out  # not 12/18


def test_a_test_that_leaves_a_daemon_is_reported_and_the_daemon_stopped(
    make_config: MakeConfig, tmp_path: Path
) -> None:
    from perfwalk.orchestrate.walk.plan import RunOptions
    from perfwalk.services.run import run_series

    marks = tmp_path / "marks"
    marks.mkdir()
    config = make_config(
        command=f"setsid sleep 1000 >/dev/null 2>&1 & echo $! >> {marks}/pids; sh bench.sh"
    )
    result = run_series(config, RunOptions(from_="2024-01-08", repetitions=1))
    daemons = pids(marks / "pids")
    assert len(daemons) == result.checkouts >= 2
    assert [pid for pid in daemons if walk_process_alive(pid)] == []
    with Store.open(config.store.url) as store:
        checkouts = store.checkouts(result.series_id)
        for checkout, daemon in zip(checkouts, daemons, strict=True):
            (rep,) = store.repetitions(checkout.id)
            (outcome,) = rep.results
            assert outcome.status.name == "PASS"  # the values stand: the cleanup failed
            # (caught as `setsid sleep 1000` when it had not run sleep yet)
            left = rf"1 process left running after the test, killed: pid {daemon} \((setsid )?sleep"
            assert re.search(left, outcome.message), outcome.message
            (step,) = [s for s in store.steps(rep.id) if s.kind == "leftover"]
            assert (step.phase, step.status.name) == ("reset", "NOCLEAN")
            assert f"pid {daemon} (" in step.message


@pytest.mark.root
def test_a_daemon_that_empties_its_environment_is_caught_in_the_tests_cgroup(
    make_config: MakeConfig, tmp_path: Path
) -> None:
    from perfwalk.hosts.leftovers import new_cgroup
    from perfwalk.orchestrate.walk.plan import RunOptions
    from perfwalk.services.run import run_series

    probe, why = new_cgroup(f"perfwalk-probe-{os.getpid()}")
    if probe is None:
        pytest.skip(f"no cgroup here: {why} (CI runs as root with cgroup v2)")
    probe.end()
    marks = tmp_path / "marks"
    marks.mkdir()
    # no marker can find it once it runs sleep: only the cgroup holds it
    daemon = (
        f"setsid env -i sleep 1000 >/dev/null 2>&1 & p=$!; echo $p >> {marks}/pids; "
        "for i in $(seq 500); do grep -qa ^sleep /proc/$p/cmdline && break; sleep 0.01; done"
    )
    config = make_config(command=f"{daemon}; sh bench.sh")
    result = run_series(config, RunOptions(from_="2024-01-10", repetitions=1))
    daemons = pids(marks / "pids")
    assert len(daemons) == result.checkouts
    for pid in daemons:  # gone (a PID reused since would not run `sleep 1000`)
        cmdline = Path(f"/proc/{pid}/cmdline")
        assert not cmdline.exists() or b"1000" not in cmdline.read_bytes()
    with Store.open(config.store.url) as store:
        for checkout, pid in zip(store.checkouts(result.series_id), daemons, strict=True):
            (rep,) = store.repetitions(checkout.id)
            assert f"killed: pid {pid} (sleep 1000)" in rep.results[0].message
            (step,) = [s for s in store.steps(rep.id) if s.kind == "leftover"]
            assert step.command.endswith(" and in its cgroup")


@pytest.mark.root
def test_a_store_lost_in_the_middle_of_a_walk_is_the_error_shown(
    make_config: MakeConfig, tmp_path: Path
) -> None:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare (a private tmpfs for the store); CI runs as root")
    storage = tmp_path / "storage"
    storage.mkdir()
    # the store on a small file system of its own, which the test fills at checkout 2
    fill = f"dd if=/dev/zero of={storage}/fill bs=64k count=1000 2>/dev/null"
    config = make_config(
        command=f"if [ $PERFWALK_CHECKOUT -ge 2 ]; then {fill}; fi; sh bench.sh",
        extra=f'[store]\nurl = "sqlite:///{storage}/results.db"\n',
    )
    mount = 'mount -t tmpfs -o size=4m tmpfs "$0" && exec "$@"'
    in_private_mount = ["unshare", "-m", "sh", "-c", mount, str(storage)]
    walk = subprocess.run(
        [*in_private_mount, sys.executable, "-m", "perfwalk", "run", "-c", str(config.path)],
        capture_output=True,
        timeout=120,
        check=False,
    )
    err = walk.stderr.decode()
    assert walk.returncode == 2, err
    progress, said = [], []  # the lines of the checkouts measured, then the rest
    for line in err.strip().splitlines():
        (said if said or not line.startswith("checkout ") else progress).append(line)
    assert len(progress) == 2, err  # checkouts 0 and 1 (a log file: a line each)
    first, *rest = said
    # the error that stopped the walk, then the one about its state as a note
    assert first.startswith(f"perfwalk: error: result store sqlite:///{storage}/results.db: ")
    assert "cannot store repetition 0 of checkout " in first, err
    assert "full" in first
    assert rest[0].startswith("note: series 1 could not be marked interrupted: result store ")
    assert "cannot set the state of series 1" in rest[0]
    assert "Traceback" not in err
