"""A stored result parsed again (perfwalk.orchestrate.phases.reparsing) as the walk
parsed it: from its stdout, else its stderr; its roles' run outputs by their parsers;
the instruments' values and notes kept; its status following as a walk would record
it; a result whose output was cut is not parsed again."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from perfwalk.config.derived import DerivedConfig
from perfwalk.config.model import MetricConfig, RoleConfig, TestConfig
from perfwalk.model import EMPTY_LOG, Direction, Log, Status
from perfwalk.orchestrate.phases.reparsing import ResultParsers, StoredLogs, reparse_result
from perfwalk.parsers import get_parser
from perfwalk.store import ResultRow, StoredValue
from perfwalk.store.reparses import StoredResult

REGEX = get_parser(
    "regex", {"pattern": r"(?m)^(?P<name>p\d+):? (?P<value>[0-9.]+) ms$", "unit": "ms"}
)
OLD = get_parser("regex", {"pattern": r"(?m)^(?P<name>p\d+) (?P<value>[0-9.]+) ms$", "unit": "ms"})
OUTPUT = b"p50 10 ms\np99: 130 ms\n"
TEST = TestConfig(name="latency", command="bench", parser="regex")


def _value(name: str, number: float, unit: str = "ms") -> StoredValue:
    return StoredValue(name=name, unit=unit, value=number, direction="lower")


def _stored(role_logs: Mapping[str, tuple[int, ...]] | None = None, **changes: Any) -> StoredResult:
    """A PASS of latency at checkout 2 with p50 and an instrument's value, changed by
    ``changes`` (of its :class:`ResultRow`)."""
    fields: dict[str, Any] = {
        "id": 7,
        "test": "latency",
        "status": Status.PASS,
        "message": "1 values in 0.500 s; rusage: could not read it",
        "duration": 0.5,
        "exit_code": 0,
        "command": "bench",
        "stdout_log_id": 1,
        "stderr_log_id": 2,
        "values": (_value("p50", 10.0), _value("rusage.max_rss", 2048.0, "KiB")),
    }
    fields.update(changes)
    return StoredResult(
        result=ResultRow(**fields),
        checkout_id=3,
        checkout_idx=2,
        quirks=(),
        repetition_idx=0,
        role_logs=role_logs or {},
    )


def _logs(stdout: Log, stderr: Log = EMPTY_LOG, **more: Log) -> StoredLogs:
    found = {1: stdout, 2: stderr}
    found.update({int(k.removeprefix("log")): v for k, v in more.items()})
    return StoredLogs(found, {})


def test_a_fixed_pattern_finds_the_lost_value_and_keeps_the_instruments() -> None:
    again = reparse_result(_stored(), ResultParsers(TEST, REGEX, {}), _logs(Log.of(OUTPUT)))
    assert again.changed
    assert again.status is Status.PASS
    assert [(v.name, v.value, v.unit) for v in again.values] == [
        ("p50", 10.0, "ms"),
        ("p99", 130.0, "ms"),
        ("rusage.max_rss", 2048.0, "KiB"),
    ]
    assert again.message == "2 values in 0.500 s; rusage: could not read it"
    same = reparse_result(_stored(), ResultParsers(TEST, OLD, {}), _logs(Log.of(OUTPUT)))
    assert not same.changed  # the old pattern finds what it found


def test_a_pass_whose_new_parse_finds_nothing_becomes_fail_and_a_fail_can_pass() -> None:
    nothing = reparse_result(
        _stored(), ResultParsers(TEST, REGEX, {}), _logs(Log.of(b"no numbers\n"))
    )
    assert nothing.status is Status.FAIL
    assert nothing.message.startswith("no value found")
    assert [v.name for v in nothing.values] == ["rusage.max_rss"]
    failed = _stored(status=Status.FAIL, message="no value found: …", values=())
    passes = reparse_result(failed, ResultParsers(TEST, REGEX, {}), _logs(Log.of(OUTPUT)))
    assert passes.status is Status.PASS
    assert passes.message == "2 values in 0.500 s"


def test_a_result_that_did_not_exit_well_keeps_its_status_and_gets_its_values() -> None:
    stored = _stored(status=Status.NOEXIT, message="exit 3", exit_code=3, values=())
    again = reparse_result(stored, ResultParsers(TEST, REGEX, {}), _logs(Log.of(OUTPUT)))
    assert (again.status, again.message) == (Status.NOEXIT, "exit 3")
    assert [v.name for v in again.values] == ["p50", "p99"]
    never = _stored(status=Status.NOEXIST, message="startup failed", duration=None, values=())
    assert not reparse_result(never, ResultParsers(TEST, REGEX, {}), _logs(Log.of(b""))).changed


def test_values_on_stderr_are_read_when_stdout_has_none() -> None:
    again = reparse_result(
        _stored(), ResultParsers(TEST, REGEX, {}), _logs(Log.of(b"x\n"), Log.of(OUTPUT))
    )
    assert [v.name for v in again.values] == ["p50", "p99", "rusage.max_rss"]


def test_a_cut_output_is_not_parsed_again_and_a_cut_stderr_only_when_read() -> None:
    cut = Log(data=b"p50 10 ms\n[... cut ...]\n", total=5_000_000, truncated=True)
    refused = reparse_result(_stored(), ResultParsers(TEST, REGEX, {}), _logs(cut))
    assert refused.refused == (
        "its output was cut to 24 bytes of 5000000 ([store] log_limit): its values are kept"
    )
    assert not refused.changed
    fine = reparse_result(_stored(), ResultParsers(TEST, REGEX, {}), _logs(Log.of(OUTPUT), cut))
    assert not fine.refused  # stdout gave values: stderr is not read
    needed = reparse_result(_stored(), ResultParsers(TEST, REGEX, {}), _logs(Log.of(b"x\n"), cut))
    assert needed.refused.startswith("its standard error was cut")
    gone = reparse_result(
        _stored(), ResultParsers(TEST, REGEX, {}), StoredLogs({}, {1: "log 1 is damaged"})
    )
    assert gone.refused == "its output cannot be read: log 1 is damaged"


def test_a_roles_parser_reads_its_run_output_and_a_role_without_value_fails_the_result() -> None:
    test = dataclasses.replace(TEST, roles={"sink": RoleConfig(run=("recv",), parser="value")})
    value = get_parser("value")
    stored = _stored(role_logs={"sink": (5, 6)}, message="1 values in 0.500 s")
    logs = _logs(Log.of(OUTPUT), log5=Log.of(b"noise\n"), log6=Log.of(b"VALUE 9.5 Gbit/s rx\n"))
    again = reparse_result(stored, ResultParsers(test, REGEX, {"sink": value}), logs)
    assert [(v.name, v.value) for v in again.values][-1] == ("sink.rx", 9.5)
    assert again.status is Status.PASS
    empty = _logs(Log.of(OUTPUT), log5=Log.of(b""), log6=Log.of(b"nothing\n"))
    failed = reparse_result(stored, ResultParsers(test, REGEX, {"sink": value}), empty)
    assert failed.status is Status.FAIL
    assert failed.message.startswith("2 values in 0.500 s; sink: no value found")
    assert not math.isnan(failed.values[0].value)


def test_values_are_stored_as_a_walk_stores_them_with_the_metrics_direction() -> None:
    """The parser's unit (a configured unit is applied when read, not stored), the
    direction of the test's [test.metrics.<name>]: the same parse changes nothing."""
    test = dataclasses.replace(
        TEST, metrics={"p99": MetricConfig(unit="s", direction=Direction.HIGHER)}
    )
    p99 = StoredValue(name="p99", unit="ms", value=130.0, direction="higher")
    stored = _stored(values=(_value("p50", 10.0), p99), message="2 values in 0.500 s")
    again = reparse_result(stored, ResultParsers(test, REGEX, {}), _logs(Log.of(OUTPUT)))
    assert [(v.name, v.unit, v.direction) for v in again.values] == [
        ("p50", "ms", "lower"),
        ("p99", "ms", "higher"),
    ]
    assert not again.changed


def test_derived_metrics_are_computed_again_from_the_new_values() -> None:
    """p99 / p50, derived: left out while the pattern missed p99 (the reason in the
    message), computed once it is found; the old reason goes."""
    test = dataclasses.replace(
        TEST, derived=(DerivedConfig(name="tail", expression="p99 / p50", unit="x"),)
    )
    stored = _stored(
        message="1 values in 0.500 s; derived tail left out: no value p99 at this repetition "
        "(its values: p50)"
    )
    again = reparse_result(stored, ResultParsers(test, REGEX, {}), _logs(Log.of(OUTPUT)))
    assert [(v.name, v.value, v.unit) for v in again.values][-1] == ("tail", 13.0, "x")
    assert again.message == "2 values in 0.500 s"
    still = reparse_result(stored, ResultParsers(test, OLD, {}), _logs(Log.of(OUTPUT)))
    assert "tail" not in [v.name for v in still.values]
    assert still.message == (
        "1 values in 0.500 s; derived tail left out: no value p99 at this repetition "
        "(its values: p50, rusage.max_rss)"
    )
