"""The iperf3-text parser on the real iperf3, on loopback: each test starts a one-off
server (``iperf3 -s -1``) on a free port and stops it by its PID.

The text report gives the values the JSON one gives, under the same names, so a test
can drop ``--json`` without its metrics changing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from perfwalk.errors import ParseError
from perfwalk.model import Value
from perfwalk.parsers import get_parser
from tests.fixtures.receivers import free_port

TIMEOUT = 60.0


@contextmanager
def one_off_server(folder: Path) -> Iterator[int]:
    """An ``iperf3 -s -1`` on 127.0.0.1 (it serves one test and exits): its port."""
    port = free_port()
    log = folder / f"server-{port}.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            ["iperf3", "-s", "-1", "--forceflush", "-B", "127.0.0.1", "-p", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + TIMEOUT
        while "Server listening" not in log.read_text():
            assert server.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the iperf3 server did not start"
            time.sleep(0.05)
        yield port
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
        server.wait(TIMEOUT)


def client(port: int, *options: str) -> str:
    """The output of an iperf3 client run (stdout and stderr joined)."""
    done = subprocess.run(
        ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", "1", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    return done.stdout


def measured(tmp_path: Path, *options: str) -> tuple[tuple[Value, ...], tuple[Value, ...]]:
    """One run's text report and another's JSON, each parsed by its parser."""
    with one_off_server(tmp_path) as port:
        text = client(port, *options)
    with one_off_server(tmp_path) as port:
        json_text = client(port, *options, "--json")
    return get_parser("iperf3-text")(text), get_parser("iperf3")(json_text)


UDP_10M = ("-u", "-b", "10M")


@pytest.mark.parametrize(
    "options",
    [(), ("-R",), ("-P", "2"), UDP_10M, (*UDP_10M, "-R"), (*UDP_10M, "-P", "2")],
    ids=["tcp", "tcp-reverse", "tcp-parallel2", "udp", "udp-reverse", "udp-parallel2"],
)
def test_the_text_gives_the_names_and_units_of_the_json(
    tmp_path: Path, options: tuple[str, ...]
) -> None:
    text, json = measured(tmp_path, *options)
    print(text)
    assert [(v.name, v.unit) for v in text] == [(v.name, v.unit) for v in json]
    found = {v.name: v.value for v in text}
    assert found["sender"] > 0
    assert found["receiver"] > 0
    if "-u" in options:
        assert found["jitter"] >= 0
        assert 0 <= found["lost_percent"] <= 100
    elif "retransmits" in found:
        assert found["retransmits"] >= 0


@pytest.mark.parametrize("unit", ["m", "k", "K", "M"])
def test_a_rate_in_any_unit_is_read_in_bits_per_second(tmp_path: Path, unit: str) -> None:
    """UDP paced at 10 Mbit/s: whatever unit -f writes, the sender sent about 10^7 bits/s
    (KBytes and MBytes are powers of 1024, Kbits and Mbits of 1000)."""
    with one_off_server(tmp_path) as port:
        text = client(port, *UDP_10M, "-f", unit)
    sender = {v.name: v.value for v in get_parser("iperf3-text")(text)}["sender"]
    print(f"-f {unit}: sender {sender:.4g} bits/sec")
    assert 8e6 < sender < 12e6, text


def test_no_server_is_the_error_iperf3_wrote(tmp_path: Path) -> None:
    text = client(free_port())
    with pytest.raises(ParseError) as caught:
        get_parser("iperf3-text")(text)
    print(caught.value.message)
    assert caught.value.message == (
        "iperf3-text: line 1: iperf3 reported an error: "
        "'iperf3: error - unable to connect to server: Connection refused'"
    )


def test_an_interrupted_client_is_no_measurement(tmp_path: Path) -> None:
    """Ctrl-C on the client: iperf3 still writes a summary (its receiver at 0 bits/sec),
    and a line saying it was interrupted, which the parser reports."""
    command = ["iperf3", "-c", "127.0.0.1", "-t", "30", "--forceflush"]
    with (
        one_off_server(tmp_path) as port,
        subprocess.Popen(
            [*command, "-p", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        ) as run,
    ):
        try:
            assert run.stdout is not None
            text = ""
            while " sec " not in text:  # up to the first interval's report
                assert run.poll() is None, text
                text += run.stdout.readline()
            run.send_signal(signal.SIGINT)
            text += run.stdout.read()
        finally:
            if run.poll() is None:
                run.kill()
            run.wait(TIMEOUT)
    with pytest.raises(ParseError) as caught:
        get_parser("iperf3-text")(text)
    print(caught.value.message)
    assert "iperf3-text: line " in caught.value.message
    assert "interrupted: 'iperf3: interrupt - the client has terminated'" in caught.value.message


def test_a_report_cut_before_its_summary_names_its_last_line(tmp_path: Path) -> None:
    with one_off_server(tmp_path) as port:
        text = client(port)
    assert get_parser("iperf3-text")(text)
    cut = text[: text.index("- - - -")]
    last = cut.rstrip("\n").split("\n")
    with pytest.raises(ParseError) as caught:
        get_parser("iperf3-text")(cut)
    print(caught.value.message)
    assert caught.value.message.startswith(f"iperf3-text: line {len(last)}: the output ends ")
    assert repr(last[-1].strip()) in caught.value.message


# What these runs do not show: older iperf3 versions, partial summaries ------------

SEPARATOR = "- - - - - - - - - - - - - - - - - - - - - - - - -"


def parsed(*lines: str) -> dict[str, float]:
    return {v.name: v.value for v in get_parser("iperf3-text")("\n".join(lines) + "\n")}


def test_iperf3_3_1_udp_summary_without_sender_and_receiver() -> None:
    """iperf3 3.0 and 3.1 write one UDP summary line, as the JSON's end.sum."""
    found = parsed(
        "[ ID] Interval           Transfer     Bandwidth       Total Datagrams",
        "[  4]   0.00-1.00   sec   128 KBytes  1.05 Mbits/sec  16  ",
        SEPARATOR,
        "[ ID] Interval           Transfer     Bandwidth       Jitter    Lost/Total Datagrams",
        "[  4]   0.00-10.00  sec  1.25 MBytes  1.05 Mbits/sec  0.034 ms  2/160 (1.2%)  ",
        "[  4] Sent 160 datagrams",
    )
    assert found == {"sender": 1.05e6, "receiver": 1.05e6, "jitter": 0.034, "lost_percent": 1.25}


def test_unknown_loss_and_a_missing_receiver() -> None:
    unknown = (
        "[  5]   0.00-10.00  sec  1.25 MBytes  1.05 Mbits/sec  0.050 ms  Unknown/160  receiver"
    )
    assert parsed(SEPARATOR, unknown) == {"receiver": 1.05e6, "jitter": 0.05}
    found = parsed(
        SEPARATOR,
        "[  5]   0.00-10.00  sec  1.10 GBytes   943 Mbits/sec   12             sender",
        "[  5] (receiver statistics not available)",
    )
    assert found == {"sender": 943e6, "retransmits": 12}


def test_streams_without_their_sum_are_a_run_cut_short() -> None:
    with pytest.raises(ParseError) as caught:
        parsed(
            SEPARATOR,
            "[  5]   0.00-10.00  sec  1.10 GBytes   943 Mbits/sec   12             sender",
            "[  5]   0.00-10.00  sec  1.10 GBytes   941 Mbits/sec                  receiver",
            "[  7]   0.00-10.00  sec  1.10 GBytes   943 Mbits/sec   12             sender",
        )
    assert caught.value.message.startswith(
        "iperf3-text: line 4: several streams' summaries and no [SUM] lines"
    )


@pytest.mark.parametrize(
    "line",
    [
        "[  5]   0.00-1.00  sec  1 MBytes  1 Mbits/sec  0.1 ms  {n}/160 (1%)  receiver",
        "[  5]   0.00-1.00  sec  1 MBytes  1 Mbits/sec  0.1 ms  1/{n} (1%)  receiver",
        "[  5]   0.00-1.00  sec  1 MBytes  1 Mbits/sec  {n}             sender",
    ],
    ids=["lost", "total", "retransmits"],
)
def test_a_count_past_the_int_limit_is_no_crash(line: str) -> None:
    """4301 digits: Python's int() refuses them (ValueError); the parse goes on."""
    found = parsed(SEPARATOR, line.format(n="9" * 4301))
    print(found)
    assert found["sender" if "sender" in line else "receiver"] == 1e6
