"""The rusage instrument's wrapper on real processes (exit status and signals passed
through, the child's usage written, none of the wrapper's), its file read back and
removed, and an instrument that cannot measure on a host: no metric (never a zero),
said once per test, host and walk."""

from __future__ import annotations

from pathlib import Path

from perfwalk.config.model import InstrumentConfig
from perfwalk.hosts import FakeHost, LocalHost, Rule
from perfwalk.orchestrate.hosts.topology import Member
from perfwalk.orchestrate.instruments.instruments import Instruments
from perfwalk.orchestrate.instruments.rusage import Rusage, parse_usage

RUSAGE = (InstrumentConfig("rusage"),)


def _measure(tmp_path: Path, command: str) -> tuple[int | None, dict[str, float], list[str]]:
    member = Member("local", LocalHost(), local=True)
    armed = Instruments({"rusage": Rusage()}).arm("t", RUSAGE, member, str(tmp_path / "run"))
    done = member.host.run([*armed.prefix, "sh", "-c", command], timeout=60)
    values, notes = armed.read(done)
    assert not (tmp_path / "run.rusage").exists()  # read back and removed
    return done.returncode, {v.name: v.value for v in values}, list(notes)


def test_the_child_s_usage_and_its_exit_status(tmp_path: Path) -> None:
    code, values, notes = _measure(
        tmp_path, "python3 -c 'x = bytearray(b\"y\") * (32 << 20); sum(range(10**6))'; exit 3"
    )
    print(code, values, notes)
    assert code == 3
    assert notes == []
    assert values["rusage.user_cpu"] > 0
    assert values["rusage.max_rss"] >= 32 * 1024
    assert values["rusage.minor_faults"] >= 32 * 256


def test_a_child_killed_by_a_signal_ends_the_run_by_the_same_signal(tmp_path: Path) -> None:
    code, values, _notes = _measure(tmp_path, "kill -TERM $$")
    assert code == -15
    assert len(values) == 7  # measured all the same (a killed test stores none: not PASS)


def test_a_broken_measurement_is_no_value() -> None:
    assert parse_usage("user_cpu 0.5\nsystem_cpu 0.1\n") == ()  # incomplete: nothing
    assert parse_usage("") == ()
    whole = "".join(
        f"{name} {n}\n"
        for n, name in enumerate(
            "user_cpu system_cpu max_rss voluntary_switches involuntary_switches "
            "minor_faults major_faults".split()
        )
    )
    assert len(parse_usage(whole)) == 7
    assert parse_usage(whole.replace("max_rss 2", "max_rss nan")) == ()
    assert parse_usage(whole.replace("max_rss 2", "max_rss -2")) == ()


def test_a_host_without_python3_has_no_rusage_and_says_so_once() -> None:
    host = FakeHost([Rule("os.wait4", returncode=127, stderr="sh: python3: not found")])
    member = Member("dut", host, local=False)
    instruments = Instruments({"rusage": Rusage()})
    first = instruments.arm("t", RUSAGE, member, "/tmp/x")
    again = instruments.arm("t", RUSAGE, member, "/tmp/y")
    other = instruments.arm("u", RUSAGE, member, "/tmp/z")
    assert first.prefix == again.prefix == ()
    assert not first.measuring
    assert len(first.notes) == 1
    assert first.notes[0].startswith("rusage: not measured on host dut: python3")
    assert "install python3 on that host" in first.notes[0]
    assert again.notes == ()  # once per test, host and walk
    assert len(other.notes) == 1  # another test's results say it too
    assert len([c for c in host.calls if "os.wait4" in " ".join(c.argv)]) == 1  # asked once
