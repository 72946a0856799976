"""Hosts by role, their placeholders, their work directories."""

from __future__ import annotations

import pytest

from perfwalk.errors import ConfigError
from perfwalk.hosts import FakeHost, Rule
from perfwalk.orchestrate.hosts.topology import Member, Topology


def _topology() -> Topology:
    dut = FakeHost([Rule("mktemp", stdout="/tmp/perfwalk.abc\n")], name="dut")
    return Topology(
        {
            "ctl": Member("ctl", FakeHost(name="ctl"), local=True),
            "dut": Member(
                "dut", dut, local=False, roles=("dut", "router"), vars={"addr": "1.2.3.4"}
            ),
        },
        "ctl",
    )


def test_roles_name_their_host_and_no_role_is_the_default_host() -> None:
    topology = _topology()
    assert topology.member("router").name == "dut"
    assert topology.member("").name == "ctl"
    with pytest.raises(ConfigError, match="no host plays the role 'sink'") as info:
        topology.member("sink")
    assert info.value.hint is not None
    assert "dut, router" in info.value.hint


def test_placeholders_come_from_the_variables_of_each_role_host() -> None:
    assert _topology().placeholders() == {"host.dut.addr": "1.2.3.4", "host.router.addr": "1.2.3.4"}


def test_a_work_directory_is_made_once_and_removed_at_the_end() -> None:
    topology = _topology()
    assert topology.workdir("dut") == "/tmp/perfwalk.abc"
    assert topology.workdir("dut") == "/tmp/perfwalk.abc"
    dut = topology.members["dut"].host
    assert isinstance(dut, FakeHost)
    assert len(dut.calls) == 1
    topology.close()
    assert dut.commands[-1] == ("sh", "-c", "rm -rf /tmp/perfwalk.abc")
    assert dut.closed
