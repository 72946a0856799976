"""Host fingerprints: one round-trip, a pure parser, every key present."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from perfwalk.errors import HostError
from perfwalk.hosts import FINGERPRINT_KEYS, FakeHost, LocalHost, Rule
from perfwalk.hosts.fingerprint import (
    BOOT_LINES,
    HARDWARE_KEYS,
    NIC_PREFIX,
    NOT_FOUND,
    UNKNOWN,
    fingerprint,
    fingerprint_command,
    parse_fingerprint,
)

SAMPLE = """\
hostname=dut1
os="Debian GNU/Linux 12 (bookworm)"
kernel=Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 x86_64
cpu=Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz
cores=28
memory=131915428 kB
tool.gcc=gcc (Debian 12.2.0-14) 12.2.0
tool.iperf3=iperf 3.12 (cJSON 1.7.15)
tool.cc=a=b=c
tool.ministat=not found
stray line without a separator
"""


def test_parse_fixed_text() -> None:
    tools = ("gcc", "iperf3", "cc", "ministat")
    assert parse_fingerprint(SAMPLE, tools) == {
        "hostname": "dut1",
        "os": "Debian GNU/Linux 12 (bookworm)",
        "kernel": "Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 x86_64",
        "cpu": "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz",
        "cores": "28",
        "memory": "131915428 kB",
        "tool.gcc": "gcc (Debian 12.2.0-14) 12.2.0",
        "tool.iperf3": "iperf 3.12 (cJSON 1.7.15)",
        "tool.cc": "a=b=c",
        "tool.ministat": NOT_FOUND,
    }


def test_parse_fills_gaps_with_unknown() -> None:
    result = parse_fingerprint("hostname=\nos=''\ncores=4\n", ["make"])
    assert list(result) == [*FINGERPRINT_KEYS, "tool.make"]
    assert result["hostname"] == UNKNOWN
    assert result["os"] == UNKNOWN
    assert result["cores"] == "4"
    assert result["tool.make"] == UNKNOWN
    assert parse_fingerprint("") == dict.fromkeys(FINGERPRINT_KEYS, UNKNOWN)


def test_parse_bsd_flavour() -> None:
    text = "os=OpenBSD 7.5\nmemory=17079504896\nos=ignored second value\n"
    result = parse_fingerprint(text)
    assert result["os"] == "OpenBSD 7.5"
    assert result["memory"] == "16679204 kB"


def test_one_round_trip_through_the_host() -> None:
    host = FakeHost([Rule(lambda argv: argv[:2] == ("sh", "-c"), stdout=SAMPLE)], strict=True)
    result = fingerprint(host, ["gcc"])
    assert result["hostname"] == "dut1"
    assert result["tool.gcc"].startswith("gcc ")
    assert len(host.calls) == 1
    assert host.calls[0].argv[-1] == "gcc"  # tools travel as arguments, not in the script
    assert host.calls[0].timeout is not None


def test_host_that_cannot_run_raises() -> None:
    host = FakeHost([Rule("sh", returncode=None, error="ssh: connect to host dut: refused")])
    with pytest.raises(HostError, match="dut: refused"):
        fingerprint(host)


@pytest.mark.parametrize("tool", ["", "a=b", "x\ny"])
def test_bad_tool_names_are_refused(tool: str) -> None:
    with pytest.raises(HostError, match="bad tool name"):
        fingerprint_command([tool])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux facts")
def test_local_fingerprint_has_every_key() -> None:
    tools = [sys.executable, "perfwalk-no-such-tool", "odd name; rm -rf /"]
    result = fingerprint(LocalHost(), tools)
    hardware = [k for k in result if k in HARDWARE_KEYS or k.startswith(NIC_PREFIX)]
    assert list(result) == [*FINGERPRINT_KEYS, *hardware, *(f"tool.{tool}" for tool in tools)]
    for key in FINGERPRINT_KEYS:
        assert result[key] != UNKNOWN, key
    assert result["hostname"] == os.uname().nodename
    assert result["kernel"].startswith(f"{os.uname().sysname} {os.uname().release}")
    assert int(result["cores"]) >= 1
    assert result["memory"].endswith(" kB")
    assert result[f"tool.{sys.executable}"].startswith("Python 3.")
    assert result["tool.perfwalk-no-such-tool"] == NOT_FOUND
    assert result["tool.odd name; rm -rf /"] == NOT_FOUND


def _script(path: Path, body: str) -> str:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_a_tool_whose_version_option_fails_is_recorded_as_such(tmp_path: Path) -> None:
    refuses = _script(tmp_path / "refuses", 'echo "refuses: 0: Illegal option --" >&2; exit 2')
    silent = _script(tmp_path / "silent", "exit 0")
    talks = _script(tmp_path / "talks", 'printf "\\n  \\ntalks 1.2 (built today)\\nmore\\n"')
    result = fingerprint(LocalHost(), [refuses, silent, talks])
    assert result[f"tool.{refuses}"] == (
        f"{refuses} (version unknown: --version failed with exit 2)"
    )
    assert result[f"tool.{silent}"] == f"{silent} (version unknown: --version printed nothing)"
    assert result[f"tool.{talks}"] == "talks 1.2 (built today)"


def test_a_warning_on_standard_error_is_not_taken_for_the_version(tmp_path: Path) -> None:
    """``perl --version`` on a host that lacks the locale ssh passed it warns on its
    standard error first: the version is still the first line of its output."""
    warns = _script(
        tmp_path / "warns",
        'echo "warns: warning: Setting locale failed." >&2; echo "warns 5.36.0"',
    )
    on_stderr = _script(tmp_path / "old", 'echo "old 2.7.18" >&2')
    shell = _script(tmp_path / "shell", 'echo "shell: 0: Illegal option --" >&2; exit 2')
    result = fingerprint(LocalHost(), [warns, on_stderr, shell, "sh"])
    assert result[f"tool.{warns}"] == "warns 5.36.0"
    assert result[f"tool.{on_stderr}"] == "old 2.7.18"  # python2 printed it there
    assert result[f"tool.{shell}"] == f"{shell} (version unknown: --version failed with exit 2)"
    assert "Illegal option" not in result["tool.sh"]


def test_the_hardware_is_parsed_where_the_host_printed_it() -> None:
    text = (
        "hostname=dut\nsmt=off\nmicrocode=0xb4\nbios=\nnic.ix0=driver ixgbe; pci 0x8086 0x10fb\n"
        "boot_log=[0.0] Linux version 6.1\\n[0.1] a \\\\n literal\\n[0.2] end\n"
    )
    result = parse_fingerprint(text)
    assert result["smt"] == "off"
    assert result["microcode"] == "0xb4"
    assert "bios" not in result  # printed empty: not readable there
    assert "system" not in result  # not printed at all
    assert result["nic.ix0"] == "driver ixgbe; pci 0x8086 0x10fb"
    assert result["boot_log"].splitlines() == [
        "[0.0] Linux version 6.1",
        "[0.1] a \\n literal",
        "[0.2] end",
    ]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux facts")
def test_the_local_hardware_is_what_this_machine_shows() -> None:
    """Each hardware key holds what Linux shows of this machine, read here apart; a
    key whose source this machine does not have is left out."""
    result = fingerprint(LocalHost())
    smt = Path("/sys/devices/system/cpu/smt/control")
    assert result.get("smt") == (smt.read_text().strip() if smt.exists() else None)
    cpuinfo = Path("/proc/cpuinfo").read_text()
    microcode = re.search(r"^microcode\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
    assert result.get("microcode") == (microcode.group(1).strip() if microcode else None)
    assert result["kernel_cmdline"] == Path("/proc/cmdline").read_text().strip()
    nics = [n for n in Path("/sys/class/net").iterdir() if (n / "device").exists()]
    assert sorted(k for k in result if k.startswith(NIC_PREFIX)) == sorted(
        f"{NIC_PREFIX}{n.name}" for n in nics
    )
    for nic in nics:
        driver = Path(os.readlink(nic / "device" / "driver")).name
        assert result[f"{NIC_PREFIX}{nic.name}"].startswith(f"driver {driver}")
    dmesg = subprocess.run(["dmesg"], capture_output=True, text=True, check=False)
    if dmesg.returncode == 0 and dmesg.stdout:
        assert result["boot_log"].splitlines() == dmesg.stdout.splitlines()[:BOOT_LINES]
    else:
        assert "boot_log" not in result
