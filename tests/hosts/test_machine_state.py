"""The machine's state: a pure parser of the snapshot texts (golden cases), the state
between two snapshots, and the script read on this machine for real."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfwalk.hosts import FakeHost, LocalHost, Rule
from perfwalk.hosts.machine_state import (
    parse_snapshot,
    parse_stat_line,
    snapshot_command,
    state_between,
    take_snapshot,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "hosts" / "machine"
CASES = sorted(path.name for path in GOLDEN.iterdir() if path.is_dir())


def _state_of(case: Path) -> dict[str, object]:
    own_file = case / "own.json"
    own = json.loads(own_file.read_text()) if own_file.exists() else []
    first = parse_snapshot((case / "first.txt").read_text())
    last = parse_snapshot((case / "last.txt").read_text())
    return json.loads(json.dumps(dataclasses.asdict(state_between(first, last, own))))


@pytest.mark.parametrize("name", CASES)
def test_states_match_the_golden_states(name: str, regen_golden: bool) -> None:
    """first.txt and last.txt are two snapshots (vm: read on a VM without cpufreq,
    trimmed to a few processes; metal: with cpufreq, a marked process, the test's own
    tree, a reused pid, a name with parentheses; bsd: no /proc; lost: a connection
    that broke during the second); expected.json is their state (--regen-golden)."""
    case = GOLDEN / name
    actual = _state_of(case)
    expected_path = case / "expected.json"
    if regen_golden:
        expected_path.write_text(json.dumps(actual, indent=2) + "\n")
    assert actual == json.loads(expected_path.read_text())


def test_the_golden_cases_cover_what_they_claim() -> None:
    metal = _state_of(GOLDEN / "metal")
    # 70 % + 15 % (started since the first) + 5 % (a new process under a reused pid);
    # the marked process and the test's own tree (7000 and below) are left out
    assert metal["others_cpu"] == pytest.approx(0.9)
    assert metal["busy"] == [["web (content)) x", 70.0], ["cc1", 15.0], ["reused", 5.0]]
    assert metal["freq_mhz"] == pytest.approx(2000.0)
    assert (metal["governor"], metal["turbo"]) == ("performance,powersave", "off")
    assert metal["steal"] == pytest.approx(300 / 1000)
    # others in state R: 3 at first (init, web, old), 5 at last (+ cc1, idle)
    assert metal["runnable"] == pytest.approx(4.0)
    bsd = _state_of(GOLDEN / "bsd")
    assert bsd == {
        "seconds": None,
        "load1": None,
        "cores": 8,
        "others_cpu": None,
        "busy": [],
        "steal": None,
        "mem_available": None,
        "freq_mhz": None,
        "governor": "unknown",
        "turbo": "unknown",
        "runnable": None,
    }
    vm = _state_of(GOLDEN / "vm")
    assert (vm["freq_mhz"], vm["governor"], vm["turbo"]) == (None, "unknown", "unknown")


def test_stat_lines_with_odd_names_and_garbage() -> None:
    line = "12 (a) b (c)) S 1 12 12 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 555 0 0"
    process = parse_stat_line(line)
    assert process is not None
    assert (process.pid, process.ppid, process.name, process.ticks, process.start) == (
        12,
        1,
        "a) b (c)",
        10,
        555,
    )
    bad_pid = "x (a) S 1 12 12 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 5"
    for garbled in ("", "garbage", "12 (a) S 1 2", bad_pid):
        assert parse_stat_line(garbled) is None


def test_a_host_that_cannot_run_the_script_has_no_snapshot() -> None:
    host = FakeHost([Rule("perfwalk-machine", returncode=None, error="exec failed")])
    assert take_snapshot(host) is None
    empty = FakeHost([Rule("perfwalk-machine", stdout="")])
    snapshot = take_snapshot(empty)
    assert snapshot is not None
    assert state_between(snapshot, snapshot).others_cpu is None


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")
def test_this_machine_read_for_real_with_a_busy_process_and_a_marked_one(tmp_path: Path) -> None:
    host = LocalHost()
    for name in ("pwbusy", "pwmarked"):  # a process's name is the name it was run by
        (tmp_path / name).symlink_to(sys.executable)
    busy = subprocess.Popen([str(tmp_path / "pwbusy"), "-c", "while True: pass"])
    marked = subprocess.Popen(
        [str(tmp_path / "pwmarked"), "-c", "while True: pass"],
        env={**os.environ, "PERFWALK_WALK": "t0k3n"},
    )
    try:
        time.sleep(0.2)
        first = take_snapshot(host, "PERFWALK_WALK=t0k3n")
        time.sleep(1.0)
        last = take_snapshot(host, "PERFWALK_WALK=t0k3n")
    finally:
        for process in (busy, marked):
            process.kill()
            process.wait()
    assert first is not None
    assert last is not None
    assert marked.pid in last.marked
    assert busy.pid not in last.marked
    assert last.cores == os.cpu_count()
    assert last.processes[busy.pid].name == "pwbusy"
    assert last.processes[busy.pid].ticks > first.processes[busy.pid].ticks
    state = state_between(first, last)
    assert state.load1 is not None
    assert state.mem_available is not None
    assert state.seconds is not None
    assert state.seconds > 0
    assert state.steal is not None
    assert state.others_cpu is not None
    assert state.others_cpu > 0
    assert "pwmarked" not in {name for name, _ in state.busy}  # the walk's own
    # this process's tree (the busy loop is a child of it) is not "others" either
    ours = state_between(first, last, [os.getpid()])
    assert "pwbusy" not in {name for name, _ in ours.busy}
    assert ours.others_cpu is not None
    assert ours.others_cpu < state.others_cpu


def test_the_script_gets_the_marker_as_an_argument_never_in_its_text() -> None:
    argv = snapshot_command("PERFWALK_WALK=x'; rm -rf /")
    assert argv[:2] == ["sh", "-c"]
    assert argv[-1] == "PERFWALK_WALK=x'; rm -rf /"
    assert "rm -rf" not in argv[2]
