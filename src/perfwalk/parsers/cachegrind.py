"""cachegrind's output files → the counts of a process tree.

``valgrind --tool=cachegrind --cache-sim=yes`` writes one file per process
(``--cachegrind-out-file=…%p``) whose ``events:`` line names the counted events
(``Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw``) and whose ``summary:`` line, the last
one written, holds the process's totals in that order. The text read here is one
such file, or several, each after a ``==> <name> <==`` line (as ``tail`` prints
several files); lines other than ``events:`` and ``summary:`` are ignored, so the
whole files or only those two lines of each give the same counts.

An output without a ``summary:`` line (cut short: its process was killed while
writing it, or the disk was full; a last line without its end of line is cut
short too), with a summary of another length than its
events, or without the cache simulation's events is incomplete: counted apart,
never summed. Pure; never raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: the events the counts need: instructions, and the misses of the cache simulation
NEEDED = ("Ir", "I1mr", "ILmr", "D1mr", "DLmr", "D1mw", "DLmw")

#: the cycles an estimate charges per first-level miss and per last-level miss
L1_MISS_CYCLES = 10
LL_MISS_CYCLES = 100


@dataclass(frozen=True)
class TreeCounts:
    """The counts summed over the complete outputs of a process tree."""

    processes: int = 0
    incomplete: int = 0
    totals: Mapping[str, int] = field(default_factory=dict)

    @property
    def instructions(self) -> int:
        """Instructions executed (``Ir``)."""
        return self.totals.get("Ir", 0)

    @property
    def cycles(self) -> int:
        """The usual estimate of cycles from the simulated misses:
        ``Ir + 10 × (I1mr + D1mr + D1mw) + 100 × (ILmr + DLmr + DLmw)``."""
        t = self.totals
        l1 = t.get("I1mr", 0) + t.get("D1mr", 0) + t.get("D1mw", 0)
        ll = t.get("ILmr", 0) + t.get("DLmr", 0) + t.get("DLmw", 0)
        return self.instructions + L1_MISS_CYCLES * l1 + LL_MISS_CYCLES * ll


def _is_header(line: str) -> bool:
    return line.startswith("==> ") and line.rstrip().endswith(" <==")


def _outputs(text: str) -> list[list[str]]:
    """The lines of each output in ``text`` (a text without headers is one output)."""
    chunks: list[list[str]] = [[]]
    for line in text.splitlines():
        if _is_header(line):
            chunks.append([])
        else:
            chunks[-1].append(line)
    first, rest = chunks[0], chunks[1:]
    return ([first] if any(line.strip() for line in first) else []) + rest


def _counts(lines: list[str]) -> dict[str, int] | None:
    """The totals of one output, or None when it is incomplete."""
    events: list[str] = []
    summary: list[str] | None = None
    for line in lines:
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:"):
            summary = line.split()[1:]
    if summary is None or len(summary) != len(events) or not set(NEEDED) <= set(events):
        return None
    if not all(number.isascii() and number.isdigit() for number in summary):
        return None
    return {event: int(number) for event, number in zip(events, summary, strict=True)}


def parse_tree(text: str) -> TreeCounts:
    """The counts of the outputs in ``text``, summed per event over the complete ones."""
    if not text.endswith("\n"):  # a line cut short (its last number may be) is no line
        text = text[: text.rfind("\n") + 1]
    totals: dict[str, int] = {}
    processes = incomplete = 0
    for lines in _outputs(text):
        counts = _counts(lines)
        if counts is None:
            incomplete += 1
            continue
        processes += 1
        for event, number in counts.items():
            totals[event] = totals.get(event, 0) + number
    return TreeCounts(processes, incomplete, totals)
