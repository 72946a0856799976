"""The kernel and compiler a checkout ran with, read in one command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from perfwalk.hosts import FakeHost, LocalHost, Rule
from perfwalk.hosts.build_facts import BuildFacts, facts_command, parse_facts, read_facts


def test_parse() -> None:
    text = "kernel=OpenBSD 7.5 (GENERIC.MP) #82: Wed Mar 20 2024 deraadt@amd64 \ncompiler=x=y\n"
    assert parse_facts(text) == BuildFacts(
        "OpenBSD 7.5 (GENERIC.MP) #82: Wed Mar 20 2024 deraadt@amd64", "x=y"
    )
    assert parse_facts("") == BuildFacts("unknown", "unknown")


def test_the_compiler_travels_as_an_argument() -> None:
    argv = facts_command("odd; name")
    assert argv[-1] == "odd; name"
    assert "odd" not in argv[2]


def test_a_host_that_cannot_run_says_why() -> None:
    host = FakeHost([Rule("sh", returncode=None, error="ssh: connect to host dut: refused")])
    facts = read_facts(host)
    assert "refused" in facts.kernel
    assert "refused" in facts.compiler


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux facts")
def test_local_facts_are_what_uname_and_the_compiler_print(tmp_path: Path) -> None:
    uname = subprocess.run(["uname", "-srv"], capture_output=True, text=True, check=True)
    facts = read_facts(LocalHost(), sys.executable)
    assert facts.kernel == uname.stdout.strip()
    assert facts.compiler.startswith("Python 3.")
    assert os.uname().release in facts.kernel
    assert read_facts(LocalHost(), "perfwalk-no-such-cc").compiler == "not found"
