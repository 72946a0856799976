"""The four phases of a multi-host test, on scripted hosts: order, statuses, lost
hosts, services, reset that always runs."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from perfwalk.config.model import RoleConfig, ServiceConfig, TestConfig
from perfwalk.errors import ConfigError
from perfwalk.hosts import FakeHost, Rule
from perfwalk.model import Status
from perfwalk.orchestrate.hosts.topology import Member, Topology
from perfwalk.orchestrate.phases.phases import (
    TestContext,
    TestOutcome,
    check_placeholders,
    run_test,
)
from perfwalk.parsers import get_parser

WORKDIR = "/tmp/perfwalk.test"


def _host(name: str, *rules: Rule) -> FakeHost:
    """A scripted host that knows the work directory and the service scripts."""
    return FakeHost(
        [
            *rules,
            Rule(lambda argv: "mktemp -d" in " ".join(argv), stdout=f"{WORKDIR}\n"),
            Rule(lambda argv: "pw-start" in argv, stdout="4242\n"),
            Rule(lambda argv: "pw-ready" in argv),
            Rule(lambda argv: "pw-stop" in argv, stdout="stopped (SIGTERM)\n"),
            Rule(lambda argv: argv[:2] == ("cat", "--"), stdout="file bytes"),
            Rule(lambda _argv: True),
        ],
        name=name,
    )


def _topology(**hosts: FakeHost) -> Topology:
    roles = {"src": ("source",), "dut": ("dut",), "sink": ("sink",)}
    members = {
        name: Member(name, host, local=False, roles=roles[name], vars={"addr": f"10.9.9.{n}"})
        for n, (name, host) in enumerate(hosts.items(), start=1)
    }
    return Topology(members, next(iter(members)))


def _test(**fields: Any) -> TestConfig:
    base: dict[str, Any] = {
        "name": "tcp",
        "command": "measure {host.sink.addr}",
        "parser": "value",
        "role": "source",
        "timeout": 10,
        "phase_timeout": 5,
    }
    base.update(fields)
    if "roles" in base:
        base["roles"] = MappingProxyType(base["roles"])
    return TestConfig(**base)


def _run(test: TestConfig, topology: Topology, **role_parsers: str) -> TestOutcome:
    context = TestContext(
        topology=topology,
        worktree=Path("/nonexistent"),
        values={"commit": "abc", "repetition": "0", "checkout": "0", "test": test.name},
        env={"PERFWALK_COMMIT": "abc"},
        output_limit=1 << 16,
        artifact_limit=1 << 16,
    )
    parsers = {role: get_parser(name) for role, name in role_parsers.items()}
    return run_test(test, get_parser(test.parser), parsers, context)


def _shell(host: FakeHost) -> list[str]:
    """The shell steps a host ran, in order."""
    return [
        call.argv[2]
        for call in host.calls
        if len(call.argv) == 3 and call.argv[:2] == ("sh", "-c") and "mktemp" not in call.argv[2]
    ]


def test_phases_run_in_order_on_their_hosts_and_every_step_is_kept() -> None:
    src = _host("src", Rule(("sh", "-c", "measure 10.9.9.3"), stdout="VALUE 42 ms lat\n"))
    dut, sink = _host("dut"), _host("sink")
    test = _test(
        services=(ServiceConfig(role="sink", command="serve", ready_port=5201),),
        roles={
            "dut": RoleConfig(
                startup=("up",),
                run=("watch",),
                collect=("count",),
                fetch=("/log",),
                reset=("down",),
            ),
            "sink": RoleConfig(reset=("clean",)),
        },
    )
    outcome = _run(test, _topology(src=src, dut=dut, sink=sink))
    result = outcome.result
    assert result.status is Status.PASS, result.message
    assert [v.value for v, _direction in result.values] == [42.0]
    assert (result.role, result.host, result.command) == ("source", "src", "measure 10.9.9.3")
    assert _shell(dut) == ["up", "watch", "count", "down"]
    assert _shell(sink) == ["clean"]
    phases = [(s.phase, s.role, s.kind, s.status) for s in outcome.steps]
    assert phases == [
        ("startup", "dut", "command", Status.PASS),
        ("startup", "sink", "service", Status.PASS),
        ("startup", "sink", "ready", Status.PASS),
        ("run", "dut", "command", Status.PASS),
        ("collect", "dut", "command", Status.PASS),
        ("collect", "dut", "fetch", Status.PASS),
        ("reset", "sink", "service", Status.PASS),
        ("reset", "sink", "fetch", Status.PASS),
        ("reset", "dut", "command", Status.PASS),
        ("reset", "sink", "command", Status.PASS),
    ]
    fetched = next(s for s in outcome.steps if s.kind == "fetch" and s.name == "/log")
    assert fetched.stdout.data == b"file bytes"
    stop = next(c.argv for c in sink.calls if "pw-stop" in c.argv)
    assert stop[-2] == "4242"  # stopped by its process group id, never by name


def test_a_failed_startup_skips_the_run_but_not_collect_and_reset() -> None:
    dut = _host("dut", Rule(("sh", "-c", "up"), returncode=1, stderr="no such module\n"))
    src, sink = _host("src"), _host("sink")
    test = _test(roles={"dut": RoleConfig(startup=("up", "never"), collect=("c",), reset=("r",))})
    outcome = _run(test, _topology(src=src, dut=dut, sink=sink))
    assert outcome.result.status is Status.NOEXIST
    assert "startup failed on dut (dut): up: exit 1: no such module" in outcome.result.message
    assert _shell(dut) == ["up", "c", "r"]
    assert not any("measure" in " ".join(c.argv) for c in src.calls)


def test_a_service_that_never_gets_ready_is_still_stopped() -> None:
    sink = _host("sink", Rule(lambda argv: "pw-ready" in argv, duration=99, timed_out=True))
    test = _test(services=(ServiceConfig(role="sink", command="serve", ready_text="listening"),))
    outcome = _run(test, _topology(src=_host("src"), dut=_host("dut"), sink=sink))
    assert outcome.result.status is Status.NOEXIST
    assert "not ready after 30 s (output contains 'listening')" in outcome.result.message
    assert any("pw-stop" in c.argv for c in sink.calls)


def test_a_host_lost_owes_norun_and_gets_one_reset_attempt() -> None:
    dut = FakeHost([Rule(lambda _argv: True, error="host dut: cannot connect", host_lost=True)])
    src = _host("src", Rule(("sh", "-c", "measure 10.9.9.3"), stdout="VALUE 1 ms lat\n"))
    test = _test(roles={"dut": RoleConfig(startup=("up",), collect=("c",), reset=("r1", "r2"))})
    outcome = _run(test, _topology(src=src, dut=dut, sink=_host("sink")))
    assert outcome.result.status is Status.NORUN
    assert "host dut (dut) lost" in outcome.result.message
    # its work directory could not be made, then one probe in reset; nothing else is tried
    made, probe = dut.calls
    assert 'mktemp -d "${TMPDIR:-/tmp}/perfwalk.XXXXXX"' in " ".join(made.argv)
    assert probe.argv[-1] == "true"
    norun = [s.name for s in outcome.steps if s.status is Status.NORUN]
    assert norun == ["up", "c", "r1", "r2"]


def test_a_host_lost_mid_run_is_noterm_and_the_others_are_reset() -> None:
    src = _host(
        "src", Rule(("sh", "-c", "measure 10.9.9.3"), stdout="VALUE 5 ms lat\n", host_lost=True)
    )
    sink = _host("sink")
    test = _test(roles={"sink": RoleConfig(reset=("clean",))})
    outcome = _run(test, _topology(src=src, dut=_host("dut"), sink=sink))
    assert outcome.result.status is Status.NOTERM
    assert "lost while the command ran" in outcome.result.message
    assert [v.value for v, _d in outcome.result.values] == [5.0]  # partial output kept
    assert _shell(sink) == ["clean"]


def test_reset_and_fetch_failures_are_noclean_and_nolog_values_kept() -> None:
    src = _host("src", Rule(("sh", "-c", "measure 10.9.9.3"), stdout="VALUE 7 ms lat\n"))
    dut = _host(
        "dut",
        Rule(("sh", "-c", "down"), returncode=2),
        Rule(("cat", "--", "/missing"), returncode=1, stderr="No such file\n"),
    )
    test = _test(roles={"dut": RoleConfig(fetch=("/missing",), reset=("down", "after"))})
    outcome = _run(test, _topology(src=src, dut=dut, sink=_host("sink")))
    assert outcome.result.status is Status.NOCLEAN
    assert "fetch /missing from dut: NOLOG" in outcome.result.message
    assert "reset on dut: down: exit 2" in outcome.result.message
    assert _shell(dut) == ["down", "after"]  # every reset step runs
    assert [v.value for v, _d in outcome.result.values] == [7.0]


def test_run_commands_of_other_roles_start_together_and_can_be_parsed() -> None:
    src = _host(
        "src", Rule(("sh", "-c", "measure 10.9.9.3"), stdout="VALUE 3 ms lat\n", duration=0.2)
    )
    dut = _host("dut", Rule(("sh", "-c", "load"), stdout="VALUE 0.75 % load\n"))
    test = _test(roles={"dut": RoleConfig(run=("load",), parser="value")})
    outcome = _run(test, _topology(src=src, dut=dut, sink=_host("sink")), dut="value")
    names = [v.name for v, _d in outcome.result.values]
    assert names == ["lat", "dut.load"]
    assert outcome.result.status is Status.PASS


def test_a_run_command_that_fails_makes_the_test_fail() -> None:
    src = _host("src", Rule(("sh", "-c", "measure 10.9.9.3"), stdout="VALUE 3 ms lat\n"))
    dut = _host("dut", Rule(("sh", "-c", "load"), returncode=1))
    test = _test(roles={"dut": RoleConfig(run=("load",))})
    outcome = _run(test, _topology(src=src, dut=dut, sink=_host("sink")))
    assert outcome.result.status is Status.NOEXIT
    assert "run on dut: load: exit 1" in outcome.result.message


def test_ctrl_c_runs_the_reset_and_is_raised_again() -> None:
    def interrupt(argv: tuple[str, ...]) -> bool:
        if argv == ("sh", "-c", "measure 10.9.9.3"):
            raise KeyboardInterrupt
        return False

    src, dut = _host("src", Rule(interrupt)), _host("dut")
    test = _test(roles={"dut": RoleConfig(reset=("down",))})
    with pytest.raises(KeyboardInterrupt):
        _run(test, _topology(src=src, dut=dut, sink=_host("sink")))
    assert _shell(dut) == ["down"]


def test_placeholders_of_hosts_are_quoted_words() -> None:
    src = _host("src")
    topology = _topology(src=src, dut=_host("dut"), sink=_host("sink"))
    sink = topology.members["sink"]
    topology.members["sink"] = Member(
        "sink", sink.host, local=False, roles=("sink",), vars={"addr": "a b; rm -rf /"}
    )
    _run(_test(), Topology(topology.members, "src"))
    assert ("sh", "-c", "measure 'a b; rm -rf /'") in src.commands


def test_unknown_placeholders_are_found_before_anything_runs() -> None:
    topology = _topology(src=_host("src"), dut=_host("dut"), sink=_host("sink"))
    check_placeholders([_test()], {}, topology)
    bad = _test(roles={"dut": RoleConfig(reset=("ip link set {host.dut.ifname} down",))})
    with pytest.raises(ConfigError, match=r"test\.tcp\.roles\.dut\.reset") as info:
        check_placeholders([bad], {}, topology)
    assert info.value.hint is not None
    assert "{host.sink.addr}" in info.value.hint
