"""iperf3's text report (without ``--json``): TCP or UDP, ``-R``, ``-P N``, ``--bidir``.

The values have the names and units of the ``iperf3`` (JSON) parser, so a test can
switch between the two without its metrics changing:

- ``sender``, ``receiver`` (``bits/sec``): the summary lines, after the last
  ``- - -`` separator, that end in ``sender`` and ``receiver`` (with ``-P N`` the
  ``[SUM]`` lines, never one stream's; with ``--bidir`` the client's sending
  direction, ``[TX-C]``, as the JSON parser's ``sum_sent``);
- ``retransmits`` (``retransmits``): TCP, the sender line's ``Retr`` column, when
  the OS reports it;
- ``jitter`` (``ms``) and ``lost_percent`` (``percent``): UDP, as the receiver saw
  them; the percent is computed from the ``lost/total`` datagrams, not the rounded
  ``(x%)``.

A rate is read in its unit (``Kbits/sec`` ... ``Tbits/sec`` are powers of 1000,
``KBytes/sec`` ... of 1024, as ``-f K`` writes them). iperf3 rounds to three
digits: ``--json`` and the ``iperf3`` parser give the exact numbers. iperf3 3.0
and 3.1 write one UDP summary line without ``sender``/``receiver``: it gives both.

Lines with a time stamp in front (``--timestamps``) are read as well; the
``Server output:`` of ``--get-server-output`` and what follows are not. A line
``iperf3: error - ...`` or ``iperf3: interrupt - ...`` anywhere is a ParseError
naming it, and so is a report that ends without its summary (a run cut short).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfwalk.model import Value
from perfwalk.parsers.lines import BINARY, SI, Line, line_error, numbered
from perfwalk.parsers.values import NUMBER, finite, require

NAME = "iperf3-text"

_REPORT = re.compile(
    r"\[ *(?P<stream>\d+|SUM)\](?:\[(?P<role>[A-Z]{2}-[A-Z])\])? +"
    r"\d+(?:\.\d+)?- *\d+(?:\.\d+)? +sec +[\d.]+ +[KMGT]?Bytes +"
    rf"(?P<rate>{NUMBER}) +(?P<prefix>[KMGT]?)(?P<kind>bits|Bytes)/sec(?P<rest>.*)$"
)
_LABEL = re.compile(r"\s(?P<label>sender|receiver)\s*$")
_RETRANSMITS = re.compile(r"^\s*(?P<retransmits>\d+)\s+sender\s*$")
_UDP = re.compile(rf"^\s*(?P<jitter>{NUMBER}) ms +(?P<lost>-?\d+|Unknown)/(?P<total>\d+)(?:\s|$)")
_PROBLEM = re.compile(r"\biperf3: (?P<kind>error|interrupt) - ")
_SEPARATOR = "- - - - - - - - - -"
_SERVER_OUTPUT = "Server output:"


@dataclass(frozen=True)
class _Report:
    """One report line: an interval, or a summary when it has a label."""

    line: Line
    stream: str  # "5", or "SUM" for the sum over the streams
    role: str  # --bidir: "TX-C" or "RX-C"; else ""
    bits_per_second: float
    label: str  # "sender", "receiver", or "" (an interval; iperf3 3.1's UDP summary)
    retransmits: float | None
    jitter: float | None  # UDP receiver: ms
    lost_percent: float | None  # UDP receiver


def _report(line: Line) -> _Report | None:
    match = _REPORT.search(line.text)
    if match is None:
        return None
    rate = finite(match["rate"])
    if rate is None:
        return None
    prefix = match["prefix"].lower()
    factor = SI[prefix] if match["kind"] == "bits" else BINARY[prefix] * 8
    rest = match["rest"]
    label = _LABEL.search(rest)
    retransmits = _RETRANSMITS.match(rest)
    udp = _UDP.match(rest)
    lost, total = (finite(udp["lost"]), finite(udp["total"])) if udp else (None, None)
    lost_percent = 100.0 * lost / total if lost is not None and total else None
    return _Report(
        line=line,
        stream=match["stream"],
        role=match["role"] or "",
        bits_per_second=rate * factor,
        label=label["label"] if label else "",
        retransmits=finite(retransmits["retransmits"]) if retransmits else None,
        jitter=finite(udp["jitter"]) if udp else None,
        lost_percent=lost_percent,
    )


def _read(text: str) -> tuple[list[_Report], int, Line | None]:
    """The report lines, the index of the first after the last separator, the last line."""
    reports: list[_Report] = []
    after_separator = 0
    last = None
    for line in numbered(text):
        if line.text.rstrip().endswith(_SERVER_OUTPUT):
            break
        problem = _PROBLEM.search(line.text)
        if problem is not None:
            reason = "iperf3 reported an error"
            raise line_error(NAME, line, reason if problem["kind"] == "error" else "interrupted")
        if _SEPARATOR in line.text:
            after_separator = len(reports)
        report = _report(line)
        if report is not None:
            reports.append(report)
        if line.text.strip():
            last = line
    return reports, after_separator, last


def _summary(text: str) -> tuple[_Report | None, _Report | None]:
    """The sender and the receiver line of the summary (one may be missing)."""
    reports, after_separator, last = _read(text)
    summary = [report for report in reports if report.label]
    if not summary:
        # iperf3 3.0 and 3.1: one UDP summary line, no label, after the separator
        old = [r for r in reports[after_separator:] if r.jitter is not None]
        if after_separator and old:
            return old[-1], old[-1]
        if reports and last is not None:
            raise line_error(
                NAME,
                last,
                "the output ends without iperf3's summary (the lines ending in 'sender' "
                "and 'receiver'): a run cut short? Its last line",
            )
        return None, None
    chosen = [report for report in summary if report.stream == "SUM"] or summary
    roles = list(dict.fromkeys(report.role for report in chosen))
    role = "TX-C" if "TX-C" in roles else roles[0]
    chosen = [report for report in chosen if report.role == role]
    if len({report.stream for report in chosen}) > 1:
        raise line_error(
            NAME,
            chosen[-1].line,
            "several streams' summaries and no [SUM] lines: a run cut short? The last",
        )
    sender = [report for report in chosen if report.label == "sender"]
    receiver = [report for report in chosen if report.label == "receiver"]
    return (sender[-1] if sender else None), (receiver[-1] if receiver else None)


def parse(text: str) -> tuple[Value, ...]:
    sender, receiver = _summary(text)
    values = []
    if sender is not None:
        values.append(Value("sender", sender.bits_per_second, "bits/sec"))
    if receiver is not None:
        values.append(Value("receiver", receiver.bits_per_second, "bits/sec"))
    if receiver is not None and receiver.jitter is not None:
        values.append(Value("jitter", receiver.jitter, "ms"))
        if receiver.lost_percent is not None:
            values.append(Value("lost_percent", receiver.lost_percent, "percent"))
    elif sender is not None and sender.retransmits is not None:
        values.append(Value("retransmits", sender.retransmits, "retransmits"))
    return require(
        values,
        "iperf3's summary lines: '[  5]   0.00-10.00  sec  1.10 GBytes   943 Mbits/sec  "
        "... sender' and '... receiver'",
    )
