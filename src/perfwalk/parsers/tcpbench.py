"""OpenBSD's ``tcpbench`` (TCP, or UDP with ``-u``): the mean of its interval rates.

Every report interval (``-r``, 1 s by default) tcpbench writes the rate of all its
connections, on a line ``Conn:   1 Mbps:  939.523 Peak Mbps: ...`` (TCP) or
``Elapsed:  1000 Mbps:  939.523 Peak Mbps: ... Tx PPS: ...`` (UDP). The value is
computed as the kernel lab that perfwalk succeeds computed it:

- every interval's rate, the first ``<k|m|g|t>bps:`` number of its line (powers of
  1000: ``Mbps`` x 10^6);
- with 5 intervals or more, the first and the last are dropped (the connection
  ramps up in the first, the last is a part of an interval);
- the mean of the others.

The value is ``sender`` (``bits/sec``), or ``receiver`` for the output of the
server (``tcpbench -s``: its ``--- tcpbench server statistics ---``, or UDP's
``Rx``). The summary that newer tcpbench versions write at the end (``bandwidth
min/avg/max/std-dev = ...``) is not used: its mean keeps the first and the last
interval.
A line ``tcpbench: ...`` (the tool's error, or ``Terminated by signal``: a run cut
short) is a ParseError naming it.
"""

from __future__ import annotations

import math
import re

from perfwalk.model import Value
from perfwalk.parsers.lines import SI, line_error, numbered
from perfwalk.parsers.values import NUMBER, finite, require

NAME = "tcpbench"
TRIMMED_FROM = 5
"""From this many intervals on, the first and the last are dropped."""

_INTERVAL = re.compile(rf"^(?:Conn|Elapsed):.*? (?P<prefix>[kmgt]?)bps: +(?P<rate>{NUMBER}) ", re.I)
_PROBLEM = re.compile(r"^tcpbench: ")
_SERVER = re.compile(r"^--- tcpbench server statistics ---|^Elapsed:.* Rx PPS:")


def trimmed_mean(rates: list[float]) -> float:
    """The mean of ``rates``, without the first and the last from 5 rates on."""
    kept = rates[1:-1] if len(rates) >= TRIMMED_FROM else rates
    return math.fsum(rate / len(kept) for rate in kept)


def parse(text: str) -> tuple[Value, ...]:
    rates = []
    server = False
    for line in numbered(text):
        if _PROBLEM.match(line.text):
            raise line_error(NAME, line, "tcpbench reported an error")
        server = server or _SERVER.match(line.text) is not None
        match = _INTERVAL.match(line.text)
        rate = finite(match["rate"]) if match else None
        if match and rate is not None:
            rates.append(rate * SI[match["prefix"].lower()])
    values = []
    if rates:
        values.append(Value("receiver" if server else "sender", trimmed_mean(rates), "bits/sec"))
    return require(
        values,
        "tcpbench's interval lines: 'Conn:   1 Mbps:  939.523 Peak Mbps: ...' (TCP) or "
        "'Elapsed:  1000 Mbps:  939.523 ...' (UDP)",
    )
