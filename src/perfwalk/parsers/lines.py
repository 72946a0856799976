"""Reading a tool's text report line by line, and saying which line was wrong.

The text parsers (``iperf3-text``, ``tcpbench``, ``udpbench``, ``netperf``,
``fs_mark``) read numbered lines; when the output is not what they expect (the
tool's own error message, a table cut short) their ParseError names the parser,
the line number and the line, shortened and with its control characters escaped.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfwalk.errors import ParseError

SHOWN = 120
"""The characters of a line that a ParseError shows at most."""

SI = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
"""Decimal prefixes by their lower-case letter: network rates (``Mbits/sec``, ``Gbps``)."""

BINARY = {"": 1.0, "k": 2.0**10, "m": 2.0**20, "g": 2.0**30, "t": 2.0**40}
"""Binary prefixes by their lower-case letter: byte counts and byte rates (``MBytes``)."""


@dataclass(frozen=True)
class Line:
    number: int  # from 1
    text: str


def numbered(text: str) -> list[Line]:
    """The lines of ``text``, numbered from 1."""
    return [Line(number, line) for number, line in enumerate(text.splitlines(), start=1)]


def shown(line: str) -> str:
    """``line`` as a message quotes it: stripped, shortened, control characters escaped."""
    line = line.strip()
    if len(line) > SHOWN:
        line = line[: SHOWN - 1] + "…"
    return repr(line)


def line_error(parser: str, line: Line, reason: str) -> ParseError:
    """The ParseError of ``parser`` about ``line``: ``tcpbench: line 3: <reason>: '<line>'``."""
    return ParseError(f"{parser}: line {line.number}: {reason}: {shown(line.text)}")
