"""Walks over the lab: a 3-host iperf3 test, a host lost mid-test, a test that hangs,
two runs that want the same hosts, and reboots between repetitions. Real sshd, real
iperf3, real namespaces (root; skipped with the reason elsewhere)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.errors import HostError
from perfwalk.lab import LabPlan
from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import RunResult, run_series
from perfwalk.store import Store
from tests.lab.conftest import LabConfig
from tests.lab.fixtures import ns_processes

IPERF = """
[run]
step = "commit"
repetitions = 3

[[test]]
name = "tcp"
role = "source"
command = "iperf3 -c {host.sink.addr} -p 5201 -t 1 -J"
parser = "iperf3"
timeout = 30

[[test.service]]
role = "sink"
command = "iperf3 -s -p 5201"
ready_port = 5201

[test.roles.dut]
startup = ["sysctl -n net.ipv4.ip_forward"]
run = ["cat /proc/net/dev"]
collect = ["cat /proc/net/snmp"]
fetch = ["/proc/sys/net/ipv4/ip_forward"]

[[test]]
name = "udp"
role = "source"
command = "iperf3 -c {host.sink.addr} -p 5202 -u -b 200M -w 4M -t 1 -J"
parser = "iperf3"
timeout = 30

[[test.service]]
role = "sink"
command = "iperf3 -s -p 5202 --forceflush"
ready_text = "Server listening"
"""


def _store(config_path: Path) -> Store:
    return Store.open(f"sqlite:///{config_path.parent / 'perfwalk.db'}")


def test_a_three_host_iperf3_test_stores_values_per_role(
    lab: LabPlan, lab_config: LabConfig
) -> None:
    config = lab_config(IPERF)
    result = run_series(config, RunOptions())
    assert (result.checkouts, result.repetitions, result.worst) == (2, 3, Status.PASS)
    with _store(config.path) as store:
        checkouts = store.checkouts(result.series_id)
        assert len(checkouts) == 2
        for checkout in checkouts:
            reps = store.repetitions(checkout.id)
            assert [r.idx for r in reps] == [0, 1, 2]
            for rep in reps:
                by_test = {r.test: r for r in rep.results}
                assert by_test["tcp"].status is Status.PASS, by_test["tcp"].message
                assert (by_test["tcp"].role, by_test["tcp"].host) == ("source", "src")
                names = {v.name for v in by_test["tcp"].values}
                assert {"sender", "receiver"} <= names
                assert by_test["udp"].status is Status.PASS, by_test["udp"].message
                steps = store.steps(rep.id)
                assert {(s.phase, s.role, s.host) for s in steps} >= {
                    ("startup", "sink", "sink"),
                    ("startup", "dut", "dut"),
                    ("run", "dut", "dut"),
                    ("collect", "dut", "dut"),
                    ("reset", "sink", "sink"),
                }
                logs = {
                    (a.test, a.name): store.log(a.stdout_log_id) for a in store.artifacts(rep.id)
                }
                assert logs["tcp", "/proc/sys/net/ipv4/ip_forward"].data == b"1\n"
                assert b"Server listening" in logs["udp", "service 0 log"].data
                assert b"Accepted connection" in logs["tcp", "service 0 log"].data
        series = store.series(result.series_id)
        assert series.fingerprint["hostname"] == "vm" or series.fingerprint["sink.hostname"]
        assert series.fingerprint["sink.hostname"] == lab.namespace("sink")
    for host in ("src", "dut", "sink"):  # services stopped, commands done: nothing left
        left = [p for p in ns_processes(lab.namespace(host)) if "iperf3" in p]
        assert left == [], left


@pytest.mark.parametrize("powered", [False, True], ids=["no power command", "power_cycle"])
def test_a_host_lost_mid_test_is_recorded_reset_runs_on_the_others_and_the_run_goes_on(
    lab: LabPlan, lab_config: LabConfig, powered: bool
) -> None:
    """Without a power command, what the lost sink owes next is NORUN; with one (the
    lab's power switch), it is power-cycled and the next repetition runs on it."""
    config = lab_config(
        """
[run]
step = "commit"
to = "HEAD~1"
repetitions = 2

[[test]]
name = "lost"
role = "source"
command = "sleep 2; echo VALUE 1 s took"
parser = "value"
timeout = 30

[test.roles.sink]
run = ["if [ {repetition} = 0 ]; then sleep 4246; fi"]

[test.roles.dut]
reset = ["echo reset-dut"]

[test.roles.source]
reset = ["echo reset-source"]
"""
    )
    sink = lab.namespace("sink")
    if not powered:
        cycle = f"power_cycle = {json.dumps(lab.power_command(sink, 'cycle'))}\n"
        config.path.write_text(config.path.read_text().replace(cycle, ""))
        config = load_config(config.path)
    killer = threading.Thread(target=_kill_when_running, args=(sink, "sleep 4246"))
    killer.start()
    try:
        started = time.monotonic()
        result = run_series(config, RunOptions())
        assert time.monotonic() - started < 90
        killer.join(timeout=30)
        # without power, the second repetition finds the sink gone
        assert result.worst is (Status.NOTERM if powered else Status.NORUN)
        with _store(config.path) as store:
            assert store.series(result.series_id).state == "finished"
            (checkout,) = store.checkouts(result.series_id)
            first, second = store.repetitions(checkout.id)
            (lost,) = first.results
            assert lost.status is Status.NOTERM
            assert "then sleep 4246; fi: the host was lost while it ran" in lost.message
            assert ("host sink hung: power-cycled after" in lost.message) is powered
            assert [v.value for v in lost.values] == [1.0]  # the source kept measuring
            resets = {(s.role, s.status) for s in store.steps(first.id) if s.phase == "reset"}
            assert resets == {("dut", Status.PASS), ("source", Status.PASS)}
            (again,) = second.results
            sink_steps = [s.status for s in store.steps(second.id) if s.role == "sink"]
            if powered:  # power-cycled: the next repetition runs on it
                assert again.status is Status.PASS, again.message
                assert sink_steps == [Status.PASS]
            else:  # the next repetition ran: the sink owes NORUN
                assert again.status is Status.NORUN
                assert sink_steps == [Status.NORUN]
    finally:
        killer.join(timeout=30)
        subprocess.run(["sh", str(lab.power_script), sink, "on"], check=True)
        _wait_answering(lab, "sink")


def test_a_test_that_hangs_remotely_is_noterm_and_its_process_group_is_gone(
    lab: LabPlan, lab_config: LabConfig
) -> None:
    config = lab_config(
        """
[run]
step = "commit"
to = "HEAD~1"
repetitions = 1

[[test]]
name = "hang"
role = "dut"
command = "echo VALUE 5 ms before; sleep 4247 & sleep 4248"
parser = "value"
timeout = 1.5
"""
    )
    started = time.monotonic()
    result = run_series(config, RunOptions())
    assert time.monotonic() - started < 30
    assert result.worst is Status.NOTERM
    with _store(config.path) as store:
        (checkout,) = store.checkouts(result.series_id)
        ((hung,),) = [rep.results for rep in store.repetitions(checkout.id)]
        assert hung.status is Status.NOTERM
        assert hung.message == "timed out after 1.5 s"
        assert [v.value for v in hung.values] == [5.0]  # partial output kept
    assert not [p for p in ns_processes(lab.namespace("dut")) if "sleep 424" in p]


def test_two_runs_wanting_the_same_hosts_do_not_interleave(
    lab: LabPlan, lab_config: LabConfig
) -> None:
    body = """
[run]
step = "commit"
to = "HEAD~1"
repetitions = {reps}
lease_wait = {wait}

[[test]]
name = "slow"
role = "dut"
command = "sleep 0.6; echo VALUE 1 s x"
parser = "value"
"""
    first = lab_config(body.format(reps=4, wait=0), name="first.toml")
    refused = lab_config(body.format(reps=1, wait=0), name="refused.toml")
    waiting = lab_config(body.format(reps=1, wait=60), name="waiting.toml")
    holder = subprocess.Popen(
        [sys.executable, "-m", "perfwalk", "run", "-c", str(first.path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for_lease(first.path, lab.namespace("dut"))
        with pytest.raises(HostError, match="host leased by another run") as info:
            run_series(refused, RunOptions())
        assert "held by" in info.value.message
        assert f"pid {holder.pid}" in info.value.message
        assert info.value.hint is not None
        assert "perfwalk hosts --break" in info.value.hint
        second: RunResult = run_series(waiting, RunOptions())
    finally:
        out, err = holder.communicate(timeout=120)
    assert holder.returncode == 0, err
    assert b"finished" in out
    with _store(first.path) as store:
        spans = []
        for series_id in (1, second.series_id):
            for checkout in store.checkouts(series_id):
                for rep in store.repetitions(checkout.id):
                    spans.append((rep.started_at, rep.finished_at, series_id))
        spans.sort()
        held = [s for s in spans if s[2] == 1]
        after = [s for s in spans if s[2] == second.series_id]
        assert len(held) == 4
        assert len(after) == 1
        assert max(end for _start, end, _id in held) <= after[0][0]
        assert store.leases.list() == []


def test_reboots_between_repetitions_are_waited_for_and_timed(
    lab: LabPlan, lab_config: LabConfig
) -> None:
    config = lab_config(
        """
[run]
step = "commit"
to = "HEAD~1"
repetitions = 3
between = "reboot"

[[test]]
name = "uptime"
role = "dut"
command = "echo VALUE 1 s up; hostname"
parser = "value"

[test.roles.source]
startup = ["hostname"]

[test.roles.sink]
startup = ["hostname"]
"""
    )
    result = run_series(config, RunOptions())
    assert result.worst is Status.PASS
    with _store(config.path) as store:
        (checkout,) = store.checkouts(result.series_id)
        reps = store.repetitions(checkout.id)
        assert [r.between_status for r in reps] == [None, Status.PASS, Status.PASS]
        for rep in reps[1:]:
            assert rep.between_log_id is not None
            text = store.log(rep.between_log_id).text()
            assert text.count("rebooted: down after") == 3, text
            reboots = [s for s in store.steps(rep.id) if s.kind == "reboot"]
            assert sorted(s.host for s in reboots) == ["dut", "sink", "src"]
            for step in reboots:
                assert step.status is Status.PASS
                took = (step.finished_at - step.started_at).total_seconds()
                assert 0.3 < took < 30  # the lab's namespaces stay down 0.5 s
            consoles = {s.host: s for s in store.steps(rep.id) if s.kind == "console"}
            assert sorted(consoles) == ["dut", "sink", "src"]  # each host's console.log
            for host, console in consoles.items():
                tail = store.log(console.stdout_log_id).text().splitlines()
                assert tail[-1].endswith(f"boot: {lab.namespace(host)} starts its sshd")
            assert rep.results[0].status is Status.PASS


def _kill_when_running(namespace: str, marker: str) -> None:
    """Stop every process of ``namespace`` (its sshd too) once ``marker`` runs in it."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if any(marker in p for p in ns_processes(namespace)):
            pids = subprocess.run(
                ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=True
            ).stdout.split()
            subprocess.run(["kill", "-KILL", *pids], check=False)
            return
        time.sleep(0.05)


def _wait_answering(lab: LabPlan, host: str) -> None:
    deadline = time.monotonic() + 15
    argv = ["ssh", "-F", str(lab.ssh_config), lab.namespace(host), "true"]
    while subprocess.run(argv, capture_output=True, check=False).returncode != 0:
        assert time.monotonic() < deadline, f"{host} does not answer"
        time.sleep(0.1)


def _wait_for_lease(config_path: Path, lease: str) -> None:
    deadline = time.monotonic() + 30
    db = config_path.parent / "perfwalk.db"
    while time.monotonic() < deadline:
        if db.exists():
            with Store.open(f"sqlite:///{db}") as store:
                if any(row.host == lease for row in store.leases.list()):
                    return
        time.sleep(0.05)
    raise AssertionError("the first run never took its lease")


def test_ctrl_c_runs_the_reset_on_every_host_and_leaves_nothing_running(
    lab: LabPlan, lab_config: LabConfig
) -> None:
    config = lab_config(
        """
[run]
step = "commit"
to = "HEAD~1"
repetitions = 1

[[test]]
name = "long"
role = "source"
command = "sleep 4249"
parser = "value"
timeout = 120

[[test.service]]
role = "sink"
command = "echo up; exec sleep 4250"
ready_text = "up"

[test.roles.dut]
run = ["sleep 4251"]
reset = ["touch /tmp/pw-reset-ran"]
"""
    )
    dut = lab.namespace("dut")
    marker = lab.ns_dir(dut) / "tmp" / "pw-reset-ran"
    marker.unlink(missing_ok=True)
    walk = subprocess.Popen(
        [sys.executable, "-m", "perfwalk", "run", "-c", str(config.path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not any("sleep 4251" in p for p in ns_processes(dut)):
        assert time.monotonic() < deadline, walk.stderr.read() if walk.poll() is not None else ""
        time.sleep(0.05)
    walk.send_signal(signal.SIGINT)
    _out, err = walk.communicate(timeout=60)
    assert walk.returncode == 130, err
    assert b"interrupted" in err
    assert marker.exists()  # the reset phase ran on the dut
    for host in ("src", "dut", "sink"):
        assert not [p for p in ns_processes(lab.namespace(host)) if "sleep 42" in p]
    with _store(config.path) as store:
        assert store.series(1).state == "interrupted"
        assert store.leases.list() == []


def test_each_checkout_is_installed_on_its_role_host(lab: LabPlan, lab_config: LabConfig) -> None:
    config = lab_config(
        """
[run]
step = "commit"
repetitions = 1

[install.dut]
files = ["a.txt"]
steps = ["cp a.txt installed.txt"]

[[test]]
name = "installed"
role = "dut"
command = "echo VALUE $(cat {hostdir}/installed.txt) n version"
parser = "value"
"""
    )
    result = run_series(config, RunOptions())
    assert result.worst is Status.PASS
    with _store(config.path) as store:
        values = [v.value for v in store.values(result.series_id)]
        assert values == [1.0, 2.0]  # a.txt of each commit, installed on the dut
        builds = [store.log(c.build_log_id or 0).text() for c in store.checkouts(result.series_id)]
        assert all("== install on dut (dut) ==" in text for text in builds)
