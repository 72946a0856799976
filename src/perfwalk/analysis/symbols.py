"""The symbol layout of a binary between two checkouts: what ``nm -n`` lists, and
how one list differs from the previous one (pure: text in, typed results out).

A symbol is its address, its type letter and its name. The layout of a binary alone
can move a benchmark by several percent (a hot loop that now straddles a cache
line), so a walk keeps the list of its ``[build] symbols`` binary after each build
and the series page shows, between consecutive checkouts, the symbols **added**
(a name that was not there), **removed** (a name that is gone) and **moved** (a name
at another address): ``+x −y ~z``.

Names are matched as a multiset: a name defined several times (static functions of
several files) is paired in address order, the surplus added or removed. A change
of the type letter alone (``T`` to ``t``) is neither.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: The minus sign of a diffstat (U+2212), as the pages show it.
MINUS = "\u2212"


@dataclass(frozen=True, order=True)
class Symbol:
    """One defined symbol: ordered by address, then name, then type."""

    address: int
    name: str
    kind: str


@dataclass(frozen=True)
class SymbolDiff:
    """How a symbol list differs from the previous one."""

    added: tuple[Symbol, ...]
    removed: tuple[Symbol, ...]
    moved: tuple[tuple[Symbol, Symbol], ...]  # (before, after), same name

    @property
    def unchanged(self) -> bool:
        return not (self.added or self.removed or self.moved)

    def stat(self) -> str:
        """``+x −y ~z``: added, removed, moved."""
        return f"+{len(self.added)} {MINUS}{len(self.removed)} ~{len(self.moved)}"

    def text(self) -> str:
        """The diff, one line a symbol, as a diff shows it: ``+`` added, ``-`` removed
        (each with its address and type), ``~`` moved (the old and new address and the
        distance); each group in address order."""
        lines = [f"+{_line(s)}" for s in self.added]
        lines += [f"-{_line(s)}" for s in self.removed]
        lines += [
            f"~{after.name} {before.address:016x} -> {after.address:016x} "
            f"({after.address - before.address:+d})"
            for before, after in self.moved
        ]
        return "".join(line + "\n" for line in lines)


def parse_nm(text: str) -> tuple[Symbol, ...]:
    """The defined symbols of ``nm`` output (GNU, LLVM or BSD; ``address type name``
    lines), sorted; undefined symbols (no address), file headers and other lines are
    left out."""
    found: list[Symbol] = []
    for line in text.splitlines():
        words = line.split(None, 2)
        if len(words) != 3 or len(words[1]) != 1:
            continue
        address, kind, name = words
        try:
            value = int(address, 16)
        except ValueError:
            continue
        found.append(Symbol(value, name.strip(), kind))
    return tuple(sorted(found))


def format_symbols(symbols: Iterable[Symbol]) -> str:
    """A symbol list as :func:`parse_nm` reads it back, sorted: the text kept."""
    return "".join(_line(s) + "\n" for s in sorted(symbols))


def diff_symbols(before: Sequence[Symbol], after: Sequence[Symbol]) -> SymbolDiff:
    """What changed from ``before`` to ``after`` (names matched as a multiset)."""
    old: dict[str, list[Symbol]] = defaultdict(list)
    new: dict[str, list[Symbol]] = defaultdict(list)
    for symbol in sorted(before):
        old[symbol.name].append(symbol)
    for symbol in sorted(after):
        new[symbol.name].append(symbol)
    added: list[Symbol] = []
    removed: list[Symbol] = []
    moved: list[tuple[Symbol, Symbol]] = []
    for name in old.keys() | new.keys():
        was, now = old.get(name, []), new.get(name, [])
        for a, b in zip(was, now, strict=False):
            if a.address != b.address:
                moved.append((a, b))
        removed += was[len(now) :]
        added += now[len(was) :]
    return SymbolDiff(
        added=tuple(sorted(added)),
        removed=tuple(sorted(removed)),
        moved=tuple(sorted(moved, key=lambda pair: (pair[1], pair[0]))),
    )


def _line(symbol: Symbol) -> str:
    return f"{symbol.address:016x} {symbol.kind} {symbol.name}"
