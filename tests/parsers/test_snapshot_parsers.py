"""The snapshot parsers on the forms they read, and on what they must survive."""

from __future__ import annotations

import contextlib
import random

import pytest

from perfwalk.errors import ParseError
from perfwalk.parsers.snapshots import parse_counters, parse_interrupts


def test_name_value_and_value_name_lines() -> None:
    text = "#kernel\nIpInReceives   12   0.0\n  8061716 K total memory\nTCPHPHits: 5\n"
    assert parse_counters(text) == {
        "IpInReceives": 12,
        "K total memory": 8061716,
        "TCPHPHits": 5,
    }


def test_netstat_sections_and_a_number_inside_a_name() -> None:
    text = (
        "Udp:\n    3 packets sent\n    Quick ack mode was activated 7 times\n"
        "    ICMP input histogram:\n        echo requests: 2\n    InErrors: 1\nUdpLite:\n"
    )
    assert parse_counters(text) == {
        "Udp: packets sent": 3,
        "Udp: Quick ack mode was activated N times": 7,
        "Udp: ICMP input histogram: echo requests": 2,
        "Udp: InErrors": 1,
    }


def test_proc_net_snmp_tables_name_counters_as_nstat_does() -> None:
    text = "Udp: InDatagrams OutDatagrams\nUdp: 4 18446744073709551615\nTcp: MaxConn\nTcp: -1\n"
    assert parse_counters(text) == {
        "UdpInDatagrams": 4,
        "UdpOutDatagrams": 18446744073709551615,  # a 64-bit counter, exact
        "TcpMaxConn": -1,
    }


def test_a_name_met_twice_keeps_both_values() -> None:
    assert parse_counters("a 1\na 2\na 3\n") == {"a": 1, "a (2)": 2, "a (3)": 3}


def test_floats_stay_floats() -> None:
    assert parse_counters("load 0.25\n") == {"load": 0.25}


@pytest.mark.parametrize("text", ["", "\n\n", "no numbers here\n", "\x00\xff garbage", "# 1 2\n"])
def test_no_counter_is_a_parse_error(text: str) -> None:
    with pytest.raises(ParseError, match="no counter"):
        parse_counters(text)


def test_interrupts_are_summed_over_the_cpus() -> None:
    text = (
        "           CPU0       CPU1\n"
        " 24:          1          2  IO-APIC   5-edge      ACPI:Ged\n"
        "LOC:        100        200   Local timer interrupts\n"
        "ERR:          0\n"
    )
    assert parse_interrupts(text) == {
        "24 IO-APIC 5-edge ACPI:Ged": 3,
        "LOC Local timer interrupts": 300,
        "ERR": 0,
    }


@pytest.mark.parametrize("text", ["", "24: 1 2\n", "CPU0\nnothing\n"])
def test_interrupts_without_table_is_a_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_interrupts(text)


@pytest.mark.parametrize("seed", range(30))
def test_garbage_raises_only_parse_errors(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = "ab:CPU0 12-\n\t#.e+"
    text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(200)))
    for parse in (parse_counters, parse_interrupts):
        with contextlib.suppress(ParseError):
            parse(text)
