"""``udpbench`` (OpenBSD's UDP benchmark): its ``send:`` and ``recv:`` status lines.

Each udpbench process writes one line before it exits::

    send: syscalls 812635, packets 812635, frame 1, payload 1452, ip 1500, ether 1538,
    begin 1706272739.464771, end 1706272749.464692, duration 9.999921, bit/s 9.99874e+08,
    start 1706272738.464447, stop 1706272749.464716

(one line), and with ``-r host`` the line of the peer it started over ssh follows.
Values, in ``bits/sec``: ``sender`` from the ``send:`` line's ``bit/s`` (the
Ethernet frames' bits over the duration), ``receiver`` from the ``recv:`` line's.

Several lines of one side (``-N`` processes in parallel) are one rate: their
packets' Ethernet bits over the time from the earliest ``begin`` to the latest
``end``. The lab's parallel driver writes that as ``sendall: ... bit/s X`` and
``recvall: ... bit/s X``: when those lines are there, they are the values.

``lost_percent`` (``percent``): with both sides' lines, the share of the packets
sent that were not received. A line ``udpbench: ...`` (also ``udpbench recv 1:
...``, a process of ``-N``) is the tool's error, and a status line without its
``bit/s`` was cut short: both are a ParseError naming the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfwalk.model import Value
from perfwalk.parsers.lines import Line, line_error, numbered
from perfwalk.parsers.values import finite, require

NAME = "udpbench"
SIDES = {"send": "sender", "recv": "receiver"}

_STATUS = re.compile(r"^(?P<side>send|recv)(?P<all>all)?: (?P<fields>.*)$")
_PROBLEM = re.compile(r"^udpbench(?: (?:send|recv))?(?: \d+)?: ")
_AGGREGATED = ("packets", "ether", "begin", "end")


@dataclass(frozen=True)
class _Status:
    line: Line
    side: str  # "send" or "recv"
    fields: dict[str, float]  # "bit/s", "packets", "ether", "begin", "end", ...
    total: bool  # the parallel driver's sendall/recvall line


def _status(line: Line) -> _Status | None:
    """The status line's side and numbers."""
    match = _STATUS.match(line.text)
    if match is None:
        return None
    fields = {}
    for pair in match["fields"].split(", "):
        key, _, number_text = pair.strip().rpartition(" ")
        number = finite(number_text)
        if key and number is not None:
            fields[key] = number
    if "bit/s" not in fields:
        raise line_error(NAME, line, "a status line without its 'bit/s': cut short?")
    return _Status(line, match["side"], fields, total=bool(match["all"]))


def _rate(statuses: list[_Status]) -> float:
    """The bits/sec of one side: one process's, or all processes' over their span."""
    if len(statuses) == 1:
        return statuses[0].fields["bit/s"]
    for status in statuses:
        if not all(key in status.fields for key in _AGGREGATED):
            reason = "one of several status lines of a side, without " + ", ".join(_AGGREGATED)
            raise line_error(NAME, status.line, reason)
    bits = sum(s.fields["packets"] * s.fields["ether"] * 8 for s in statuses)
    span = max(s.fields["end"] for s in statuses) - min(s.fields["begin"] for s in statuses)
    if span <= 0:
        raise line_error(NAME, statuses[-1].line, "the status lines span no time (end <= begin)")
    return bits / span


def _packets(statuses: list[_Status]) -> float | None:
    if not statuses or any("packets" not in s.fields for s in statuses):
        return None
    return sum(s.fields["packets"] for s in statuses)


def parse(text: str) -> tuple[Value, ...]:
    processes: dict[str, list[_Status]] = {"send": [], "recv": []}
    totals: dict[str, _Status] = {}
    for line in numbered(text):
        if _PROBLEM.match(line.text):
            raise line_error(NAME, line, "udpbench reported an error")
        status = _status(line)
        if status is not None and status.total:
            totals[status.side] = status
        elif status is not None:
            processes[status.side].append(status)
    values = []
    for side, name in SIDES.items():
        if side in totals:
            values.append(Value(name, totals[side].fields["bit/s"], "bits/sec"))
        elif processes[side]:
            values.append(Value(name, _rate(processes[side]), "bits/sec"))
    sent, received = _packets(processes["send"]), _packets(processes["recv"])
    if sent and received is not None:
        values.append(Value("lost_percent", 100.0 * (sent - received) / sent, "percent"))
    return require(values, "udpbench's status lines: 'send: ..., bit/s 9.99874e+08, ...'")
