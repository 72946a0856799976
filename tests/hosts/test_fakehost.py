"""FakeHost: scripted answers, recorded calls, a small file store."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwalk.errors import HostError
from perfwalk.hosts import FakeHost, Rule
from perfwalk.hosts.fake import Call


def test_exact_argv_rule() -> None:
    host = FakeHost([Rule(("git", "rev-parse", "HEAD"), stdout="abc\n")])
    done = host.run(["git", "rev-parse", "HEAD"])
    assert done.returncode == 0
    assert done.stdout.data == b"abc\n"
    assert done.stdout.total == 4
    assert done.argv == ("git", "rev-parse", "HEAD")
    assert host.run(["git", "rev-parse", "HEAD~1"]).returncode == 127


def test_list_matcher_is_exact_too() -> None:
    host = FakeHost([Rule(["make", "-j2"])])
    assert host.run(("make", "-j2")).returncode == 0
    assert host.run(("make",)).returncode == 127


def test_substring_rule_matches_joined_words() -> None:
    host = FakeHost([Rule("iperf3 -c", stdout=b"42 Mbit/s", stderr="warn", returncode=0)])
    done = host.run(["ip", "netns", "exec", "src", "iperf3", "-c", "10.0.0.2"])
    assert done.stdout.data == b"42 Mbit/s"
    assert done.stderr.data == b"warn"


def test_predicate_rule() -> None:
    host = FakeHost([Rule(lambda argv: argv[0] == "make", returncode=2, duration=3.5)])
    done = host.run(["make", "all"])
    assert done.returncode == 2
    assert done.duration == 3.5


def test_first_matching_rule_wins_and_times_script_a_sequence() -> None:
    host = FakeHost(
        [
            Rule("bench", stdout="1", times=1),
            Rule("bench", stdout="2", times=2),
            Rule("bench", returncode=1),
        ]
    )
    outputs = [host.run(["bench"]) for _ in range(5)]
    assert [o.stdout.data for o in outputs] == [b"1", b"2", b"2", b"", b""]
    assert [o.returncode for o in outputs] == [0, 0, 0, 1, 1]
    assert [rule.used for rule in host.rules] == [1, 2, 2]


def test_every_call_is_recorded() -> None:
    host = FakeHost([Rule("x")])
    host.run(["x", "1"], timeout=5.0, env={"A": "b"}, cwd="/tmp/w", output_limit=10)
    host.run(["unknown"])
    assert host.calls == [
        Call(argv=("x", "1"), timeout=5.0, env={"A": "b"}, cwd="/tmp/w", output_limit=10),
        Call(argv=("unknown",), timeout=None, env=None, cwd=None),
    ]
    assert host.commands == [("x", "1"), ("unknown",)]


def test_unknown_command_is_127_with_an_error() -> None:
    done = FakeHost(name="dut").run(["frobnicate", "--now"])
    assert done.returncode == 127
    assert done.error is not None
    assert "frobnicate --now" in done.error
    assert b"no rule" in done.stderr.data


def test_strict_mode_raises_on_unknown_commands() -> None:
    host = FakeHost([Rule(("known",))], strict=True)
    assert host.run(["known"]).returncode == 0
    with pytest.raises(AssertionError, match="no rule matches command: unknown") as info:
        host.run(["unknown"])
    assert "('known',)" in str(info.value)


def test_duration_beyond_timeout_times_out() -> None:
    host = FakeHost([Rule("slow", duration=10.0, stdout="partial")])
    done = host.run(["slow"], timeout=2.0)
    assert done.timed_out
    assert done.returncode is None
    assert done.duration == 2.0
    assert done.stdout.data == b"partial"
    assert not host.run(["slow"], timeout=20.0).timed_out


def test_scripted_failures() -> None:
    host = FakeHost(
        [
            Rule("hang", timed_out=True, returncode=None, duration=5.0),
            Rule("gone", returncode=None, error="cannot run 'gone': No such file or directory"),
        ]
    )
    assert host.run(["hang"]).timed_out
    done = host.run(["gone"])
    assert done.returncode is None
    assert done.error is not None


def test_output_limit_is_honoured() -> None:
    host = FakeHost([Rule("big", stdout=b"a" * 10 + b"b" * 10)])
    log = host.run(["big"], output_limit=3).stdout
    assert log.truncated
    assert log.total == 20
    assert log.data.startswith(b"aaa")
    assert log.data.endswith(b"bbb")


def test_files_put_and_get(tmp_path: Path) -> None:
    host = FakeHost(files={"/etc/motd": b"hello"})
    local = tmp_path / "script"
    local.write_bytes(b"#!/bin/sh\n")
    host.put(local, "/tmp/script")
    assert host.files["/tmp/script"] == b"#!/bin/sh\n"
    host.get("/etc/motd", tmp_path / "motd")
    assert (tmp_path / "motd").read_bytes() == b"hello"


def test_file_errors_name_the_path(tmp_path: Path) -> None:
    host = FakeHost(name="sink")
    with pytest.raises(HostError, match=r"sink.*/no/such/file"):
        host.get("/no/such/file", tmp_path / "x")
    with pytest.raises(HostError, match="missing"):
        host.put(tmp_path / "missing", "/tmp/x")


def test_misuse_and_use_after_close() -> None:
    host = FakeHost()
    with pytest.raises(HostError):
        host.run([])
    with pytest.raises(HostError):
        host.run("echo hi")
    host.close()
    assert host.closed
    with pytest.raises(HostError, match="after close"):
        host.run(["true"])


def test_add_appends_rules() -> None:
    host = FakeHost().add(Rule("a", stdout="A")).add(Rule("b", stdout="B"))
    assert host.run(["b"]).stdout.data == b"B"
    assert host.name == "fake"
    assert "2 rules" in repr(host)
