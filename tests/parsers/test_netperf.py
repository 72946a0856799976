"""netperf: its Debian package is in non-free, which these machines do not use, so the
tests write its classic report in the documented layout (the banner, the table
header of each test, the result rows) with numbers the test chooses."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwalk.errors import ParseError
from perfwalk.parsers import get_parser

BANNER = "MIGRATED {} TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port 0 AF_INET"


def stream(rate: float, unit: str = "10^6bits", cpu: bool = False) -> str:
    """A TCP_STREAM report (with -c -C: the CPU columns after the throughput)."""
    lines = [BANNER.format("TCP STREAM") + " : demo"]
    if cpu:
        lines += [
            "Recv   Send    Send                          Utilization       Service Demand",
            "Socket Socket  Message  Elapsed              Send     Recv     Send    Recv",
            "Size   Size    Size     Time     Throughput  local    remote   local   remote",
            f"bytes  bytes   bytes    secs.    {unit:<8.8}/s  % S      % S      us/KB   us/KB",
            "",
            f"131072  16384  16384    10.00     {rate:7.2f}   12.50    13.10    0.356   0.372  ",
        ]
    else:
        lines += [
            "Recv   Send    Send                          ",
            "Socket Socket  Message  Elapsed              ",
            "Size   Size    Size     Time     Throughput  ",
            f"bytes  bytes   bytes    secs.    {unit}/sec  ",
            "",
            f"131072  16384  16384    10.00    {rate:7.2f}   ",
        ]
    return "\n".join(lines) + "\n"


def udp_stream(sent: int, received: int, size: int = 1472) -> str:
    """A UDP_STREAM report: the local sends' row, the remote receives' row."""
    rates = [messages * size * 8 / 10.0 / 1e6 for messages in (sent, received)]
    return "\n".join(
        [
            BANNER.format("UDP STREAM") + " : demo",
            "Socket  Message  Elapsed      Messages                ",
            "Size    Size     Time         Okay Errors   Throughput",
            "bytes   bytes    secs            #      #   10^6bits/sec",
            "",
            f"212992  {size:6d}   10.00     {sent:7d}      0    {rates[0]:7.2f}",
            f"212992           10.00     {received:7d}           {rates[1]:7.2f}",
            "",
            "",
        ]
    )


def request_response(rate: float) -> str:
    return "\n".join(
        [
            BANNER.format("TCP REQUEST/RESPONSE") + " : demo : first burst 0",
            "Local /Remote",
            "Socket Size   Request  Resp.   Elapsed  Trans.",
            "Send   Recv   Size     Size    Time     Rate         ",
            "bytes  Bytes  bytes    bytes   secs.    per sec   ",
            "",
            f"16384  131072 1        1       10.00    {rate:7.2f}   ",
            "16384  131072",
            "",
        ]
    )


def netperf(text: str) -> dict[str, tuple[float, str]]:
    return {v.name: (v.value, v.unit) for v in get_parser("netperf")(text)}


@pytest.mark.parametrize(
    ("unit", "factor"),
    [
        ("10^0bits", 1.0),
        ("10^3bits", 1e3),
        ("10^6bits", 1e6),
        ("10^9bits", 1e9),
        ("Bytes", 8.0),
        ("KBytes", 8 * 1024.0),
        ("MBytes", 8 * 1024.0**2),
        ("GBytes", 8 * 1024.0**3),
    ],
)
@pytest.mark.parametrize("cpu", [False, True], ids=["plain", "cpu"])
def test_a_stream_throughput_in_any_unit(
    tmp_path: Path, unit: str, factor: float, cpu: bool
) -> None:
    path = tmp_path / "netperf.out"
    path.write_text(stream(123.45, unit, cpu))
    assert netperf(path.read_text()) == {"throughput": (pytest.approx(123.45 * factor), "bits/sec")}


def test_udp_stream_sender_receiver_and_loss() -> None:
    found = netperf(udp_stream(2_000_000, 1_950_000))
    print(found)
    assert found == {
        "sender": (pytest.approx(2_000_000 * 1472 * 8 / 10, rel=1e-5), "bits/sec"),
        "receiver": (pytest.approx(1_950_000 * 1472 * 8 / 10, rel=1e-5), "bits/sec"),
        "lost_percent": (pytest.approx(2.5), "percent"),
    }


def test_request_response_is_a_transaction_rate() -> None:
    assert netperf(request_response(48127.33)) == {"transaction_rate": (48127.33, "trans/sec")}


def test_several_tables_give_the_mean() -> None:
    text = stream(100.0) + "\n" + stream(300.0)
    assert netperf(text) == {"throughput": (pytest.approx(200e6), "bits/sec")}


def test_no_netserver_names_the_line() -> None:
    text = (
        "establish control: are you sure there is a netserver listening on 127.0.0.1 at "
        "port 12865?\nestablish_control could not establish the control connection\n"
    )
    with pytest.raises(ParseError) as caught:
        get_parser("netperf")(text)
    print(caught.value.message)
    assert caught.value.message.startswith(
        "netperf: line 1: netperf reported an error: 'establish control: are you sure"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "\n".join(stream(1.0).split("\n")[:6]),
            "netperf: line 5: the table ends before its result row 1: 'bytes  bytes   bytes",
        ),
        (
            "\n".join(udp_stream(10, 9).split("\n")[:6]),
            "netperf: line 6: the table ends before its result row 2: '212992    1472",
        ),
        (
            stream(1.0).replace("131072  16384  16384    10.00", "131072  16384"),
            "netperf: line 7: a result row with no column 5: '131072  16384",
        ),
    ],
    ids=["no-row", "udp-no-second-row", "short-row"],
)
def test_a_table_cut_short_names_its_line(text: str, message: str) -> None:
    with pytest.raises(ParseError) as caught:
        get_parser("netperf")(text)
    print(caught.value.message)
    assert caught.value.message.startswith(message)


def test_the_output_without_headers_is_not_read() -> None:
    """-P 0 -v 0: a number alone, which could be anything."""
    with pytest.raises(ParseError, match="no value found: looked for netperf's result table"):
        get_parser("netperf")("  9423.31\n")


def test_a_unit_power_past_the_int_limit_is_no_crash() -> None:
    """10^<4301 digits>bits: no unit netperf writes, and no int() ValueError either."""
    text = stream(1.0, unit="10^" + "9" * 4301 + "bits")
    with pytest.raises(ParseError) as caught:
        get_parser("netperf")(text)
    assert caught.value.message.startswith("netperf: line 5: no rate unit")
