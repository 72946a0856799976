"""SshHost against a real sshd in a lab namespace: one multiplexed connection, exit
status and output, timeouts that end the remote process group, a host that
vanishes, host keys, files both ways, nothing left behind; the output tap in place
told a remote command's output as it comes."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import cast

import pytest

from perfwalk.errors import HostError
from perfwalk.hosts import SshHost, SshTarget
from perfwalk.hosts.output_tap import tapping
from perfwalk.lab import LabPlan
from perfwalk.model import Status
from perfwalk.orchestrate.phases.outcome import judge
from perfwalk.parsers import get_parser
from tests.lab.fixtures import ns_processes


@pytest.fixture
def control(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ctl")


def _target(lab: LabPlan, host: str = "dut", known_hosts: Path | None = None) -> SshTarget:
    return SshTarget(
        lab.namespace(host),
        ssh_config=lab.ssh_config,
        known_hosts=known_hosts or lab.known_hosts,
        connect_timeout=5,
    )


@pytest.fixture
def dut(host_lab: LabPlan, control: Path) -> Iterator[SshHost]:
    host = SshHost("dut", _target(host_lab), control, kill_grace=1.0)
    yield host
    host.close()


def test_commands_share_one_master_connection(dut: SshHost, host_lab: LabPlan) -> None:
    first = dut.run(["sh", "-c", "echo $PPID"])
    master = dut.master_pid
    assert master is not None
    for _ in range(10):
        assert dut.run(["true"]).returncode == 0
    assert dut.master_pid == master
    sshd_sessions = [p for p in ns_processes(host_lab.namespace("dut")) if "sshd: root" in p]
    assert len(sshd_sessions) <= 2  # one connection (and its privilege-separated child)
    assert first.returncode == 0


def test_output_exit_status_environment_and_directory(dut: SshHost) -> None:
    done = dut.run(
        ["sh", "-c", 'echo "$PW_X"; pwd; echo oops >&2; exit 3'],
        env={"PW_X": "it's $here"},
        cwd="/tmp",
    )
    assert done.returncode == 3
    assert done.stdout.text() == "it's $here\n/tmp\n"
    assert done.stderr.text() == "oops\n"
    assert not done.timed_out
    assert done.error is None
    assert not done.host_lost


def test_the_markers_of_this_machines_processes_stay_here(dut: SshHost) -> None:
    """A host that is this machine under another name (here a namespace) must not have
    its processes taken for this machine's test leftovers, and killed."""
    env = {"PW_X": "kept", "PERFWALK_WALK": "w" * 32, "PERFWALK_RUN_ID": "r" * 16}
    done = dut.run(["sh", "-c", "env"], env=env)
    assert done.returncode == 0
    assert "PW_X=kept" in done.stdout.text()
    assert "PERFWALK_" not in done.stdout.text()


def test_each_namespace_is_its_own_host(host_lab: LabPlan, control: Path) -> None:
    names = set()
    for name in ("src", "dut", "sink"):
        host = SshHost(name, _target(host_lab, name), control)
        try:
            names.add(host.run(["hostname"]).stdout.text().strip())
            assert host.run(["sh", "-c", "ls -A /root"]).stdout.text() == ""
        finally:
            host.close()
    assert names == {host_lab.namespace(n) for n in ("src", "dut", "sink")}


def test_a_missing_program_could_not_start(dut: SshHost) -> None:
    done = dut.run(["no-such-program-pw"])
    assert done.returncode is None
    assert done.error is not None
    assert "command not found" in done.error
    assert judge(done, get_parser("value"), 10).status is Status.NORUN


def test_timeout_kills_the_remote_process_group_and_keeps_output(
    dut: SshHost, host_lab: LabPlan
) -> None:
    started = time.monotonic()
    done = dut.run(["sh", "-c", "echo partial; sleep 4242 & sleep 4243"], timeout=1)
    assert time.monotonic() - started < 6
    assert done.timed_out
    assert done.returncode is None
    assert done.stdout.text() == "partial\n"
    assert judge(done, get_parser("value"), 1).status is Status.NOTERM
    deadline = time.monotonic() + 5
    while any("sleep 424" in p for p in ns_processes(host_lab.namespace("dut"))):
        assert time.monotonic() < deadline, ns_processes(host_lab.namespace("dut"))
        time.sleep(0.05)


def test_files_go_and_come_back(dut: SshHost, tmp_path: Path) -> None:
    source = tmp_path / "out.bin"
    source.write_bytes(bytes(range(256)) * 100)
    dut.put(source, "/tmp/pw-file.bin")
    back = tmp_path / "back.bin"
    dut.get("/tmp/pw-file.bin", back)
    assert back.read_bytes() == source.read_bytes()
    with pytest.raises(HostError, match="get /no/such/file failed"):
        dut.get("/no/such/file", tmp_path / "x")


def test_an_unknown_host_key_is_refused_with_a_remedy(
    host_lab: LabPlan, control: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    host = SshHost("dut", _target(host_lab, known_hosts=empty), control)
    with pytest.raises(HostError, match="cannot connect") as info:
        host.connect()
    assert info.value.hint is not None
    assert "known_hosts" in info.value.hint
    done = host.run(["true"])
    assert done.error is not None
    assert done.host_lost
    host.close()


def test_a_host_that_vanishes_mid_command_is_reported_lost(
    host_lab: LabPlan, control: Path
) -> None:
    sink = SshHost("sink", _target(host_lab, "sink"), control)
    namespace = host_lab.namespace("sink")
    try:
        assert sink.run(["true"]).returncode == 0
        killer = subprocess.Popen(
            [
                "sh",
                "-c",
                f"sleep 0.5; for p in $(ip netns pids {namespace}); do kill -9 $p; done",
            ]
        )
        done = sink.run(["sh", "-c", "echo before; sleep 30"], timeout=20)
        killer.wait(timeout=10)
        assert done.host_lost
        assert done.error is None
        assert not done.timed_out
        assert done.stdout.text() == "before\n"
        assert judge(done, get_parser("value"), 20).status is Status.NOTERM
        started = time.monotonic()
        again = sink.run(["true"])  # the sshd is gone: NORUN at once, no hang
        assert again.error is not None
        assert again.host_lost
        assert time.monotonic() - started < 10
    finally:
        sink.close()
        subprocess.run(["sh", str(host_lab.start_script(namespace))], check=True)
        _wait_listening(namespace)


def test_closing_leaves_no_ssh_process(host_lab: LabPlan, control: Path) -> None:
    host = SshHost("src", _target(host_lab, "src"), control)
    host.run(["true"])
    master = host.master_pid
    assert master is not None
    host.close()
    deadline = time.monotonic() + 5
    while _alive(master):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert not host.control_path.exists()
    with pytest.raises(HostError, match="used after close"):
        host.connect()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _wait_listening(namespace: str) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        done = subprocess.run(
            ["ip", "netns", "exec", namespace, "ss", "-Hltn", "sport = :22"],
            capture_output=True,
            check=False,
        )
        if done.stdout.strip():
            return
        time.sleep(0.05)
    raise AssertionError(f"sshd of {namespace} did not come back")


def test_ctrl_c_stops_a_remote_command_at_once(dut: SshHost, host_lab: LabPlan) -> None:
    import threading

    cancel = threading.Event()
    timer = threading.Timer(0.5, cancel.set)
    timer.start()
    started = time.monotonic()
    done = dut.run(["sleep", "4244"], timeout=60, cancel=cancel)
    assert time.monotonic() - started < 6
    assert done.error == "interrupted"
    deadline = time.monotonic() + 5
    while any("sleep 4244" in p for p in ns_processes(host_lab.namespace("dut"))):
        assert time.monotonic() < deadline
        time.sleep(0.05)


class _Taken:
    """An output tap that notes what it is told, with when."""

    def __init__(self) -> None:
        self.told: list[tuple[float, str, str, object]] = []

    def begin(self, host: str, argv: Sequence[str]) -> None:
        self.told.append((time.monotonic(), "begin", host, tuple(argv)))

    def output(self, host: str, chunk: bytes) -> None:
        self.told.append((time.monotonic(), "output", host, chunk))

    def end(self, host: str) -> None:
        self.told.append((time.monotonic(), "end", host, None))


def test_the_output_tap_sees_the_remote_output_as_it_comes(dut: SshHost) -> None:
    taken = _Taken()
    command = ["sh", "-c", "echo first; sleep 1.5; echo second"]
    with tapping(taken):
        done = dut.run(command, timeout=60)
    assert done.returncode == 0
    kinds = [(kind, host) for _at, kind, host, _what in taken.told]
    assert kinds[0] == ("begin", "dut")
    assert kinds[-1] == ("end", "dut")
    assert taken.told[0][3] == tuple(command)  # the command, not the ssh client's words
    chunks = [(at, what) for at, kind, _host, what in taken.told if kind == "output"]
    first = next(at for at, what in chunks if b"first" in cast(bytes, what))
    second = next(at for at, what in chunks if b"second" in cast(bytes, what))
    assert second - first >= 1.0  # told as it came, not at the end
    dut.run(["true"])  # without a tap in place: nothing told
    assert len(taken.told) == len(kinds)
