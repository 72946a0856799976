"""The hosts a walk leases: every host its tests run on, the [run] host among them
when it holds the role of a test (named like it), never none."""

from __future__ import annotations

import socket
from pathlib import Path

from perfwalk.config.load import load_config
from perfwalk.orchestrate.session.run_hosts import leased_hosts

ROLE_TEST = """\
[project]
repo = "."
[[test]]
name = "udp"
command = "true"
role = "dut"
parser = "value"
"""


def test_the_run_host_holding_the_role_of_every_test_is_leased(tmp_path: Path) -> None:
    """[hosts.local] holds the role of every test: it is the [run] host's name too, and
    was left out with it (a walk then took no lease, and crashed taking none)."""
    text = ROLE_TEST + '[hosts.local]\ntarget = "local"\nroles = ["dut"]\n'
    config = load_config(tmp_path / "perfwalk.toml", text)
    assert leased_hosts(config) == [f"local:{socket.gethostname()}"]


def test_a_run_host_that_runs_no_test_is_not_leased(tmp_path: Path) -> None:
    text = ROLE_TEST + '[hosts.dut]\ntarget = "dut.lab.example.org"\nroles = ["dut"]\n'
    config = load_config(tmp_path / "perfwalk.toml", text)
    assert leased_hosts(config) == ["dut.lab.example.org"]
