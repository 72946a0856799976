"""The snapshot parsers on outputs captured from the real commands on this machine
(``tests/golden/snapshots/capture.sh``: nstat -az, netstat -s, vmstat -s,
/proc/net/snmp, /proc/net/netstat, /proc/net/snmp6, /proc/vmstat, /proc/interrupts).

``pytest tests/parsers --regen-golden`` rewrites the expected ``<case>.json`` from
the current parse instead of comparing; review the diff before committing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfwalk.errors import ParseError
from perfwalk.parsers.snapshots import SNAPSHOT_PARSER_NAMES, SNAPSHOT_PARSERS

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "snapshots"
CASES = sorted(GOLDEN.glob("*/*.out"))


def _actual(out: Path) -> object:
    text = out.read_bytes().decode("utf-8", errors="replace")
    try:
        return SNAPSHOT_PARSERS[out.parent.name](text)
    except ParseError as error:
        return {"error": error.message}


@pytest.mark.parametrize("out", CASES, ids=lambda out: f"{out.parent.name}/{out.stem}")
def test_golden(out: Path, regen_golden: bool) -> None:
    expected = out.with_suffix(".json")
    actual = _actual(out)
    if regen_golden:
        expected.write_text(json.dumps(actual, indent=1, ensure_ascii=False) + "\n")
        return
    assert expected.exists(), f"{expected} is missing: run pytest tests/parsers --regen-golden"
    assert actual == json.loads(expected.read_text())


def test_every_snapshot_parser_has_golden_cases() -> None:
    assert {out.parent.name for out in CASES} == set(SNAPSHOT_PARSER_NAMES)


def test_the_real_outputs_hold_the_counters_a_person_looks_for() -> None:
    """Not only what was recorded: the names a netstat/nstat reader expects."""
    by_case = {f"{out.parent.name}/{out.stem}": _actual(out) for out in CASES}
    assert isinstance(by_case["counters/nstat-az"], dict)
    assert "UdpOutDatagrams" in by_case["counters/nstat-az"]
    assert "UdpOutDatagrams" in by_case["counters/proc-net-snmp"]  # named as nstat names it
    assert by_case["counters/proc-net-snmp"]["TcpMaxConn"] == -1
    assert "TcpExtTCPTimeouts" in by_case["counters/proc-net-netstat"]
    if "counters/netstat-s" in by_case:
        assert "Udp: packets sent" in by_case["counters/netstat-s"]
    if "counters/vmstat-s" in by_case:
        assert "K total memory" in by_case["counters/vmstat-s"]
    interrupts = by_case["proc-interrupts/proc-interrupts"]
    assert isinstance(interrupts, dict)
    assert any(name.startswith("LOC ") for name in interrupts)
