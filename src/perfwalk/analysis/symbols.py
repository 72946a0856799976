"""The symbol layout of a binary between two checkouts: what ``nm -n`` lists, and
how one list differs from the previous one (pure: text in, typed results out).

A symbol is its address, its type letter, its name and, where ``nm -S`` gives one,
its size. The layout of a binary alone
can move a benchmark by several percent (a hot loop that now straddles a cache
line), so a walk keeps the list of its ``[build] symbols`` binary after each build
and the series page shows, between consecutive checkouts, the symbols **added**
(a name that was not there), **removed** (a name that is gone) and **moved** (a name
at another address): ``+x −y ~z``.

Names are matched as a multiset: a name defined several times (static functions of
several files) is paired in address order, the surplus added or removed. A change
of the type letter alone (``T`` to ``t``) is neither, and neither is a change of size
alone; :func:`code_moves` says which functions moved and which changed their size
(the layout-artefact verdict's evidence, :mod:`perfwalk.analysis.verdict`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

#: The minus sign of a diffstat (U+2212), as the pages show it.
MINUS = "\u2212"


@dataclass(frozen=True, order=True)
class Symbol:
    """One defined symbol: ordered by address, then name, then type."""

    address: int
    name: str
    kind: str
    size: int | None = field(default=None, compare=False)  # None: nm gave none


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
    lines, and ``address size type name`` lines of ``nm -S``), sorted; undefined
    symbols (no address), file headers and other lines are left out."""
    found: list[Symbol] = []
    for line in text.splitlines():
        words = line.split(None, 3)
        size: int | None = None
        if len(words) == 4 and len(words[2]) == 1 and _hex(words[1]) is not None:
            size = _hex(words[1])
            words = [words[0], words[2], words[3]]
        else:
            words = line.split(None, 2)
        if len(words) != 3 or len(words[1]) != 1:
            continue
        address, kind, name = words
        value = _hex(address)
        if value is None:
            continue
        found.append(Symbol(value, name.strip(), kind, size))
    return tuple(sorted(found))


def format_symbols(symbols: Iterable[Symbol]) -> str:
    """A symbol list as :func:`parse_nm` reads it back (sizes too), sorted: the text
    kept."""
    return "".join(_line(s, sized=True) + "\n" for s in sorted(symbols))


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


#: the type letters of code: text (global, local) and weak code symbols
CODE_KINDS = frozenset("TtWw")


@dataclass(frozen=True)
class CodeMoves:
    """What a symbol diff says of a binary's functions (its code symbols): those on
    both sides that moved (name and distance in bytes, the farthest first), those on
    both sides whose size changed (their code changed), how many were added and
    removed, and how many of those that moved have a size on both sides (``nm -S``
    gives none for a few assembler stubs such as ``_init``)."""

    moved: tuple[tuple[str, int], ...]
    resized: tuple[tuple[str, int, int], ...]  # name, size before, size after
    added: int
    removed: int
    sized: int

    @property
    def only_moved(self) -> bool:
        """Functions moved, some of them with a size on both sides, and none of those
        on both sides changed its size: the code moved, it did not change."""
        return self.sized > 0 and not self.resized

    def text(self, most: int = 3) -> str:
        """``3 functions moved (work +48 B, main +48 B, …), none changed size, 2 added``."""
        if not self.sized and not self.resized:
            return f"{_count(len(self.moved), 'function')} moved, none with a known size"
        shown = ", ".join(f"{name} {distance:+d} B" for name, distance in self.moved[:most])
        more = ", …" if len(self.moved) > most else ""
        said = f"{_count(len(self.moved), 'function')} moved" + (
            f" ({shown}{more})" if self.moved else ""
        )
        if self.resized:
            changed = ", ".join(f"{n} {a} → {b} B" for n, a, b in self.resized[:most])
            more = ", …" if len(self.resized) > most else ""
            said += f", {_count(len(self.resized), 'function')} changed size ({changed}{more})"
        else:
            said += ", none changed size"
        if self.added:
            said += f", {self.added} added"
        if self.removed:
            said += f", {self.removed} removed"
        return said


def code_moves(diff: SymbolDiff, before: Sequence[Symbol], after: Sequence[Symbol]) -> CodeMoves:
    """The functions ``diff`` (from ``before`` to ``after``) moved, and those whose size
    changed, moved or not."""

    def code(symbol: Symbol) -> bool:
        return symbol.kind in CODE_KINDS

    old: dict[str, list[Symbol]] = defaultdict(list)
    new: dict[str, list[Symbol]] = defaultdict(list)
    for symbol in sorted(s for s in before if code(s)):
        old[symbol.name].append(symbol)
    for symbol in sorted(s for s in after if code(s)):
        new[symbol.name].append(symbol)
    resized = sorted(
        (name, a.size, b.size)
        for name in old.keys() & new.keys()
        for a, b in zip(old[name], new[name], strict=False)
        if a.size is not None and b.size is not None and a.size != b.size
    )
    moved = sorted(
        ((b.name, b.address - a.address) for a, b in diff.moved if code(a) and code(b)),
        key=lambda pair: (-abs(pair[1]), pair[0]),
    )
    sized = sum(
        1
        for a, b in diff.moved
        if code(a) and code(b) and a.size is not None and b.size is not None
    )
    return CodeMoves(
        moved=tuple(moved),
        resized=tuple(resized),
        added=sum(1 for s in diff.added if code(s)),
        removed=sum(1 for s in diff.removed if code(s)),
        sized=sized,
    )


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _hex(word: str) -> int | None:
    try:
        return int(word, 16)
    except ValueError:
        return None


def _line(symbol: Symbol, *, sized: bool = False) -> str:
    if sized and symbol.size is not None:
        return f"{symbol.address:016x} {symbol.size:016x} {symbol.kind} {symbol.name}"
    return f"{symbol.address:016x} {symbol.kind} {symbol.name}"
