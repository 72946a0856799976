"""GNU time: ``/usr/bin/time -v`` and its default one-line format.

Values: ``real`` (from "Elapsed (wall clock) time", ``h:mm:ss`` or ``m:ss.ss``),
``user``, ``sys`` in ``s``; ``max_rss`` in ``KiB`` (GNU time's "kbytes" are KiB).
When the output holds several reports, the LAST one is used.
"""

from __future__ import annotations

import math
import re

from perfwalk.model import Value
from perfwalk.parsers.values import finite, require

_N = r"\d+(?:\.\d+)?"
_CLOCK = r"(?:\d+:)?\d+:\d+(?:\.\d+)?"
_VERBOSE = re.compile(
    rf"User time \(seconds\): (?P<user>{_N})[ \t\r]*\n"
    rf"[ \t]*System time \(seconds\): (?P<sys>{_N})[ \t\r]*\n"
    r"(?:[^\n]*\n){0,2}?"
    rf"[ \t]*Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?P<real>{_CLOCK})[ \t\r]*\n"
    r"(?:[^\n]*\n){0,8}?"
    r"[ \t]*Maximum resident set size \(kbytes\): (?P<rss>\d+)"
)
_DEFAULT = re.compile(
    rf"(?P<user>{_N})user (?P<sys>{_N})system (?P<real>{_CLOCK})elapsed \S*CPU"
    r" \(\d+avgtext\+\d+avgdata (?P<rss>\d+)maxresident\)k"
)


def clock_seconds(clock: str) -> float | None:
    """``h:mm:ss``, ``m:ss.ss`` or ``ss`` (digits only) as seconds; None if not finite."""
    seconds = 0.0
    for part in clock.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds if math.isfinite(seconds) else None


def parse(text: str) -> tuple[Value, ...]:
    matches = [*_VERBOSE.finditer(text), *_DEFAULT.finditer(text)]
    last = max(matches, key=lambda match: match.start(), default=None)
    values = []
    if last is not None:
        fields = (
            ("real", clock_seconds(last["real"]), "s"),
            ("user", finite(last["user"]), "s"),
            ("sys", finite(last["sys"]), "s"),
            ("max_rss", finite(last["rss"]), "KiB"),
        )
        values = [Value(name, number, unit) for name, number, unit in fields if number is not None]
    return require(
        values,
        "a GNU time report: the lines of /usr/bin/time -v (User time, System time, Elapsed"
        " (wall clock) time, Maximum resident set size) or its default"
        " '<u>user <s>system <clock>elapsed ... <kb>maxresident)k' line",
    )
