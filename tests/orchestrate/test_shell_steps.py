"""Build and between steps: the first failure stops the list and the log says why."""

from __future__ import annotations

from perfwalk.hosts.fake import FakeHost, Rule
from perfwalk.model import Status
from perfwalk.orchestrate.steps.shell_steps import run_steps


def _run(host: FakeHost) -> tuple[Status, bytes, str | None]:
    done = run_steps(
        host,
        ["make", "make install"],
        cwd="/w",
        timeout=5,
        env={},
        output_limit=1 << 10,
        failure=Status.NOEXIST,
    )
    return done.status, done.log.data, done.failed


def test_a_failing_step_stops_the_list_with_its_exit_status() -> None:
    host = FakeHost(
        [Rule("make install", returncode=0), Rule("make", returncode=2, stderr="cc: error\n")]
    )
    status, log, failed = _run(host)
    assert (status, failed) == (Status.NOEXIST, "make")
    assert b"[NOEXIST: exit 2: cc: error]" in log
    assert len(host.calls) == 1


def test_a_host_lost_during_a_step_is_said_so() -> None:
    status, log, failed = _run(FakeHost([Rule("make", host_lost=True)]))
    assert (status, failed) == (Status.NOEXIST, "make")
    assert b"the host was lost" in log
    assert b"exit None" not in log


def test_every_step_passing_is_pass() -> None:
    status, log, failed = _run(FakeHost([Rule("make", stdout="built\n")]))
    assert (status, failed) == (Status.PASS, None)
    assert log.count(b"built") == 2
