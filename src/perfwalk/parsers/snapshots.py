"""Snapshot outputs: the text of a counter-printing command in, its counters out.

A ``[[snapshot]]`` command runs before and after each test; its two outputs are
read here into ``{counter name: number}`` (integers stay integers, however large;
a number with a fraction or an exponent is a float), and their difference is what
the checkout page shows (:mod:`perfwalk.analysis.counters`). Pure functions: no
I/O, no clock.

``counters`` reads, line by line, the forms that ``nstat -az``, ``netstat -s``,
``vmstat -s``, ``/proc/net/snmp``, ``/proc/net/netstat``, ``/proc/net/snmp6``,
``/proc/vmstat`` and ``ethtool -S`` print:

- a table of two lines with the same prefix, names then values
  (``Udp: InDatagrams NoPorts …`` / ``Udp: 12 0 …``): ``UdpInDatagrams``, as nstat
  names them;
- a section heading (``Udp:`` alone on its line, as netstat -s prints them), which
  prefixes the names of the lines under it: ``Udp: packets received``;
- ``name: value`` and ``name value …`` (the first number after a name: nstat's rate
  column is not a counter): ``TCPHPHits``, ``IpInReceives``;
- ``value name`` (``12 packets received``, ``8061716 K total memory``);
- a name with one number inside (``Quick ack mode was activated 5 times``):
  the number is the value, ``N`` stands for it in the name.

Lines starting with ``#`` and lines without a number are skipped. A name met
twice keeps both values, the second as ``name (2)``.

``proc-interrupts`` reads ``/proc/interrupts``: a header of CPU columns, then one
line per interrupt (``24: 1 0 IO-APIC 5-edge ACPI:Ged``), whose per-CPU counts
are summed: ``24 IO-APIC 5-edge ACPI:Ged``, ``LOC Local timer interrupts``,
``ERR``.

An output in which no counter is found is a :class:`~perfwalk.errors.ParseError`
saying what was looked for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from perfwalk.errors import ParseError

#: A counter's value: an integer as printed, or a float.
Number = int | float
Counters = dict[str, Number]
SnapshotParser = Callable[[str], Counters]

_INTEGER = re.compile(r"[-+]?\d+")
_FLOAT = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_PREFIX = re.compile(r"([A-Za-z][A-Za-z0-9_-]*):")
_HEADING = re.compile(r"([A-Za-z][A-Za-z0-9 _-]*):")
_NAMED = re.compile(r"(\S.*?):\s+(\S+)")


def number(word: str) -> Number | None:
    """``word`` as a number (an int when it is one), or None when it is not one."""
    if _INTEGER.fullmatch(word):
        return int(word)
    if _FLOAT.fullmatch(word):
        return float(word)
    return None


class _Found:
    """Counters in the order met; a name met again gets `` (2)``, `` (3)``…"""

    def __init__(self) -> None:
        self.counters: Counters = {}

    def add(self, name: str, value: Number) -> None:
        name = " ".join(name.split())
        if not name:
            return
        key, n = name, 1
        while key in self.counters:
            n += 1
            key = f"{name} ({n})"
        self.counters[key] = value


def parse_counters(text: str) -> Counters:
    """The counters of a ``netstat -s`` / ``nstat -az`` / ``vmstat -s`` /
    ``/proc/net/snmp``-like output (see the module's docstring)."""
    found = _Found()
    lines = text.splitlines()
    section = ""
    sub: tuple[int, str] | None = None  # an indented heading: its indentation, its text
    skip = False
    for at, line in enumerate(lines):
        if skip:
            skip = False
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        words = stripped.split()
        table = _table(words, lines[at + 1] if at + 1 < len(lines) else "")
        if table is not None:
            for name, value in table:
                found.add(name, value)
            skip = True
            continue
        indent = len(line) - len(line.lstrip())
        if sub is not None and indent <= sub[0]:
            sub = None
        heading = _HEADING.fullmatch(stripped)
        if heading is not None:
            if indent:
                sub = (indent, heading.group(1))
            else:
                section, sub = heading.group(1), None
            continue
        if not indent:
            section = ""  # a line at the margin ends a section
        named = _line(stripped, words)
        if named is not None:
            name, value = named
            where = [part for part in (section, sub[1] if sub else "") if part]
            found.add(": ".join([*where, name]), value)
    if not found.counters:
        raise ParseError(
            "no counter found: expected lines of a name and a number (nstat -az, "
            "netstat -s, vmstat -s) or /proc/net/snmp's tables"
        )
    return found.counters


def _table(words: list[str], following: str) -> list[tuple[str, Number]] | None:
    """``Prefix: name…`` followed by ``Prefix: value…`` (/proc/net/snmp), else None."""
    head = _PREFIX.fullmatch(words[0])
    if head is None or len(words) < 2:
        return None
    under = following.split()
    if len(under) != len(words) or under[0] != words[0]:
        return None
    names = words[1:]
    values = [number(word) for word in under[1:]]
    if any(number(name) is not None for name in names) or None in values:
        return None
    prefix = head.group(1)
    return [
        (prefix + name, value)
        for name, value in zip(names, values, strict=True)
        if value is not None
    ]


def _line(stripped: str, words: list[str]) -> tuple[str, Number] | None:
    """The counter of one line, or None when it has none."""
    named = _NAMED.fullmatch(stripped)
    if named is not None:
        value = number(named.group(2))
        if value is not None and number(named.group(1)) is None:
            return named.group(1), value
    first = number(words[0])
    if first is not None:
        rest = " ".join(words[1:])
        return (rest, first) if rest else None
    numbers = [(i, value) for i, word in enumerate(words) if (value := number(word)) is not None]
    if not numbers:
        return None
    at, value = numbers[0]
    if at == 1 or len(numbers) == 1:
        if at == 1:  # "name value [rate]" (nstat, /proc/vmstat, /proc/net/snmp6)
            return words[0].removesuffix(":"), value
        return " ".join([*words[:at], "N", *words[at + 1 :]]), value
    return None


def parse_interrupts(text: str) -> Counters:
    """Per interrupt of ``/proc/interrupts``, the sum of its per-CPU counts."""
    lines = text.splitlines()
    header = next((line for line in lines if line.strip()), "")
    cpus = sum(1 for word in header.split() if word.startswith("CPU"))
    if not cpus:
        raise ParseError("no CPU columns: expected /proc/interrupts' header (CPU0 CPU1 …)")
    found = _Found()
    for line in lines[lines.index(header) + 1 :]:
        irq, colon, rest = line.partition(":")
        if not colon or not irq.strip():
            continue
        words = rest.split()
        counts = []
        for word in words[:cpus]:
            value = number(word)
            if not isinstance(value, int):
                break
            counts.append(value)
        if not counts:
            continue
        label = " ".join([irq.strip(), *words[len(counts) :]])
        found.add(label, sum(counts))
    if not found.counters:
        raise ParseError("no interrupt line: expected lines such as '24:  1  0  IO-APIC …'")
    return found.counters


#: The parsers a ``[[snapshot]]`` may name, by name.
SNAPSHOT_PARSERS: Mapping[str, SnapshotParser] = {
    "counters": parse_counters,
    "proc-interrupts": parse_interrupts,
}
SNAPSHOT_PARSER_NAMES: tuple[str, ...] = tuple(SNAPSHOT_PARSERS)
