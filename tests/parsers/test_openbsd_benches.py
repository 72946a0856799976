"""tcpbench and udpbench, OpenBSD's benchmarks: they have no Debian package, so these
tests write their outputs in the tools' documented format (tcpbench(1) and its
source's report lines, udpbench(1)'s status lines) with numbers the test chooses,
and check what the parsers make of them."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from perfwalk.errors import ParseError
from perfwalk.parsers import get_parser

# tcpbench ---------------------------------------------------------------------


def tcpbench_output(
    rates_mbps: list[float], connections: int = 1, unit: str = "Mbps", summary: bool = True
) -> str:
    """A tcpbench client's report: a row per connection and a ``Conn:`` line per
    interval, then the summary of newer versions."""
    lines = [f"{'elapsed_ms':>12} {'bytes':>14} {'mbps':>12} {'bwidth':>8} "]
    peak = 0.0
    for index, rate in enumerate(rates_mbps, start=1):
        peak = max(peak, rate)
        for _ in range(connections):
            share = rate / connections
            row = f"{index * 1000:12d} {int(share * 125000):14d} {share:12.3f}"
            lines.append(f"{row} {100 / connections:7.2f}% ")
        lines.append(
            f"Conn: {connections:3d} {unit}: {rate:12.3f} Peak {unit}: {peak:12.3f} "
            f"Avg {unit}: {rate / connections:12.3f}"
        )
    if summary and rates_mbps:
        lines += [
            "--- 10.3.0.33 tcpbench statistics ---",
            f"{int(sum(rates_mbps) * 125000)} bytes sent over {len(rates_mbps):.3f} seconds",
            f"bandwidth min/avg/max/std-dev = {min(rates_mbps):.3f}/"
            f"{sum(rates_mbps) / len(rates_mbps):.3f}/{peak:.3f}/0.000 Mbps",
        ]
    return "\n".join(lines) + "\n"


def tcpbench(text: str) -> dict[str, float]:
    return {v.name: v.value for v in get_parser("tcpbench")(text) if v.unit == "bits/sec"}


#: a first interval that ramps up, steady ones, a last part of an interval
RATES = [300.0, 940.0, 941.0, 939.0, 942.0, 938.0, 940.0, 120.0]


@pytest.mark.parametrize("count", range(1, len(RATES) + 1))
def test_tcpbench_drops_the_first_and_last_interval_from_five_on(
    tmp_path: Path, count: int
) -> None:
    rates = RATES[:count]
    kept = rates[1:-1] if count >= 5 else rates
    path = tmp_path / "tcpbench.out"
    path.write_text(tcpbench_output(rates))
    found = tcpbench(path.read_text())
    print(f"{count} intervals: sender {found['sender']:.6g} bits/sec")
    assert found == {"sender": pytest.approx(math.fsum(kept) / len(kept) * 1e6)}


def test_tcpbench_reads_the_sum_of_the_connections_not_one_connection() -> None:
    found = tcpbench(tcpbench_output([900.0, 940.0, 960.0], connections=4))
    assert found == {"sender": pytest.approx(2800e6 / 3)}


@pytest.mark.parametrize(
    ("unit", "factor"), [("kbps", 1e3), ("Mbps", 1e6), ("Gbps", 1e9), ("Tbps", 1e12)]
)
def test_tcpbench_units_are_powers_of_1000(unit: str, factor: float) -> None:
    found = tcpbench(tcpbench_output([1.5, 2.5], unit=unit, summary=False))
    assert found == {"sender": pytest.approx(2.0 * factor)}


def test_tcpbench_udp_and_the_server_side() -> None:
    tx = "Elapsed:        1000 Mbps:      98.000 Peak Mbps:      98.000 Tx PPS:    8310\n"
    rx = "Elapsed:        1000 Mbps:      97.000 Peak Mbps:      97.000 Rx PPS:    8224\n"
    assert {v.name: v.value for v in get_parser("tcpbench")(tx)} == {"sender": 98e6}
    assert {v.name: v.value for v in get_parser("tcpbench")(rx)} == {"receiver": 97e6}
    server = tcpbench_output([500.0, 600.0], summary=False) + (
        "--- tcpbench server statistics ---\n1 bytes received over 2.000 seconds\n"
    )
    assert tcpbench(server) == {"receiver": pytest.approx(550e6)}


@pytest.mark.parametrize(
    "problem", ["tcpbench: connect: Connection refused", "tcpbench: Terminated by signal 15"]
)
def test_tcpbench_error_names_its_line(problem: str) -> None:
    text = tcpbench_output([900.0, 940.0], summary=False) + problem + "\n"
    with pytest.raises(ParseError) as caught:
        get_parser("tcpbench")(text)
    print(caught.value.message)
    assert caught.value.message == (f"tcpbench: line 6: tcpbench reported an error: {problem!r}")


def test_tcpbench_without_intervals() -> None:
    with pytest.raises(ParseError, match="no value found: looked for tcpbench's interval"):
        get_parser("tcpbench")(tcpbench_output([]))


# udpbench ---------------------------------------------------------------------


def status(side: str, packets: int, ether: int, begin: float, end: float) -> str:
    """A udpbench status line, as udpbench(1) documents it."""
    bits = packets * ether * 8 / (end - begin)
    return (
        f"{side}: syscalls {packets}, packets {packets}, frame 1, payload {ether - 48}, "
        f"ip {ether - 20}, ether {ether}, begin {begin:.6f}, end {end:.6f}, "
        f"duration {end - begin:.6f}, bit/s {bits:e}, start {begin - 1:.6f}, stop {end:.6f}"
    )


def udpbench(text: str) -> dict[str, float]:
    return {v.name: v.value for v in get_parser("udpbench")(text)}


def test_udpbench_one_process_each_side(tmp_path: Path) -> None:
    path = tmp_path / "udpbench.out"
    lines = [
        "sockname: 10.3.0.32 18743",
        status("send", 1_000_000, 84, 100.0, 110.0),
        status("recv", 990_000, 84, 100.001, 110.002),
    ]
    path.write_text("\n".join(lines) + "\n")
    found = udpbench(path.read_text())
    print(found)
    assert found == {
        "sender": pytest.approx(1_000_000 * 84 * 8 / 10.0, rel=1e-6),
        "receiver": pytest.approx(990_000 * 84 * 8 / 10.001, rel=1e-6),
        "lost_percent": pytest.approx(1.0),
    }


def test_udpbench_parallel_processes_are_one_rate_over_their_span() -> None:
    """Two processes a side (-N 2): their bits over the earliest begin to the latest end,
    as the lab's driver sums them into its sendall/recvall lines."""
    sends = [
        status("send", 2_000_000, 1538, 100.0, 110.0),
        status("send", 1_000_000, 1538, 101, 111),
    ]
    recvs = [status("recv", 1_990_000, 1538, 100, 110.5), status("recv", 1_000_000, 1538, 101, 111)]
    expected_send = 3_000_000 * 1538 * 8 / 11.0
    expected_recv = 2_990_000 * 1538 * 8 / 11.0
    alone = udpbench("\n".join([*sends, *recvs]))
    assert alone == {
        "sender": pytest.approx(expected_send),
        "receiver": pytest.approx(expected_recv),
        "lost_percent": pytest.approx(100 * 10_000 / 3_000_000),
    }
    driver = [
        f"sendall: etherlen {3_000_000 * 1538}, begin 100.0, end 111.0, duration 11.0, "
        f"bit/s {expected_send:g}",
        f"recvall: etherlen {2_990_000 * 1538}, begin 100.0, end 111.0, duration 11.0, "
        f"bit/s {expected_recv:g}",
    ]
    with_driver = udpbench("\n".join([*sends, *recvs, *driver]))
    print(alone, with_driver)
    assert with_driver["sender"] == float(f"{expected_send:g}")
    assert with_driver["sender"] == pytest.approx(alone["sender"], rel=1e-5)
    assert with_driver["receiver"] == pytest.approx(alone["receiver"], rel=1e-5)


@pytest.mark.parametrize(
    ("last", "reason"),
    [
        ("udpbench recv 1: recv 1: Interrupted system call", "udpbench reported an error"),
        ("udpbench: ssh failed: 256", "udpbench reported an error"),
        (
            "recv: syscalls 990000, packets 990000, frame 1, payload 36, ip 64, ether 84, be",
            "a status line without its 'bit/s': cut short?",
        ),
    ],
)
def test_udpbench_error_or_cut_line_is_named(last: str, reason: str) -> None:
    text = "sockname: 10.3.0.32 18743\n" + status("send", 1000, 84, 1.0, 2.0) + "\n" + last
    with pytest.raises(ParseError) as caught:
        get_parser("udpbench")(text)
    print(caught.value.message)
    assert caught.value.message == f"udpbench: line 3: {reason}: {last!r}"


def test_udpbench_parallel_lines_need_their_span() -> None:
    text = "send: packets 5, bit/s 10\nsend: packets 5, bit/s 20\n"
    with pytest.raises(ParseError, match="udpbench: line 1: one of several status lines"):
        get_parser("udpbench")(text)
