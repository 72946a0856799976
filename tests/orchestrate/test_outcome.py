from datetime import UTC, datetime

from perfwalk.hosts.base import Completed
from perfwalk.model import Log, Status
from perfwalk.orchestrate.phases.outcome import judge
from perfwalk.parsers import get_parser

VALUE = get_parser("value")
TIME = get_parser("time-p")


def done(
    out: str = "",
    err: str = "",
    code: int | None = 0,
    timed_out: bool = False,
    error: str | None = None,
) -> Completed:
    return Completed(
        argv=("sh", "-c", "x"),
        returncode=code,
        stdout=Log.of(out.encode()),
        stderr=Log.of(err.encode()),
        started=datetime.now(UTC),
        duration=0.5,
        timed_out=timed_out,
        error=error,
    )


def test_pass_with_values() -> None:
    outcome = judge(done("VALUE 12.5 ms latency\n"), VALUE, 10)
    assert outcome.status is Status.PASS
    assert [(v.name, v.value, v.unit) for v in outcome.values] == [("latency", 12.5, "ms")]


def test_values_on_stderr_are_found() -> None:
    outcome = judge(done("program output\n", "real 1.50\nuser 1.00\nsys 0.20\n"), TIME, 10)
    assert outcome.status is Status.PASS
    assert {v.name for v in outcome.values} == {"real", "user", "sys"}


def test_no_value_is_fail_with_a_message() -> None:
    outcome = judge(done("nothing here\n"), VALUE, 10)
    assert outcome.status is Status.FAIL
    assert outcome.message


def test_status_order_norun_noterm_noexit() -> None:
    assert judge(done(error="cannot run", code=None), VALUE, 10).status is Status.NORUN
    timed = judge(done("VALUE 1 ms x\n", code=None, timed_out=True), VALUE, 3)
    assert timed.status is Status.NOTERM
    assert "3 s" in timed.message
    assert timed.values  # partial output is kept and parsed
    assert judge(done("VALUE 1 ms x\n", code=2), VALUE, 10).status is Status.NOEXIT
    assert "signal 9" in judge(done(code=-9), VALUE, 10).message
