"""What each checkout really ran, on the pages: the rows "kernel", "compiler" and
"symbols" of a series' checkouts table, and the same facts for the checkout page.

A kernel or compiler is shown compactly (the kernel up to its build number, a long
compiler line cut), in full as the cell's title, one line per host when the run has
several; a value that differs from the previous checkout's is marked ``changed``.
The symbols row gives ``+added −removed ~moved`` against the previous checkout with
a list, linked to the diff as a plain text file of the site, or why there is no list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfwalk.report import layout
from perfwalk.report.collect import CheckoutData
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc, link
from perfwalk.store.build_facts import CheckoutFacts, SymbolsRow

#: The longest compact value shown in a cell.
COMPACT = 40
MINUS = "\u2212"


def compact_kernel(kernel: str) -> str:
    """A kernel's version string up to its build number: ``Linux 6.1.0-18-amd64 #1``,
    ``OpenBSD 7.5 (GENERIC.MP) #82``; cut at :data:`COMPACT` characters."""
    words = kernel.split()
    for n, word in enumerate(words):
        if word.startswith("#"):
            return _cut(" ".join(words[: n + 1]).rstrip(":"))
    return _cut(" ".join(words))


def compact_compiler(compiler: str) -> str:
    return _cut(" ".join(compiler.split()))


def _cut(text: str) -> str:
    return text if len(text) <= COMPACT else text[: COMPACT - 1] + "\u2026"


def symbols_stat(row: SymbolsRow) -> str:
    """``+x −y ~z`` of a compared list; "" otherwise."""
    if not row.compared:
        return ""
    return f"+{row.added} {MINUS}{row.removed} ~{row.moved}"


def symbols_changed(row: SymbolsRow) -> bool:
    return row.compared and bool(row.added or row.removed or row.moved)


def has_facts(ctx: SeriesContext) -> bool:
    return bool(ctx.facts)


def fact_sig(facts: CheckoutFacts | None) -> list[Any]:
    """What the rows show of one checkout (for the site's manifest)."""
    if facts is None:
        return []
    s = facts.symbols
    symbols = (
        None
        if s is None
        else [s.count, s.against_idx, s.added, s.removed, s.moved, s.diff_log_id, s.message]
    )
    return [[[h.host, h.kernel, h.compiler] for h in facts.hosts], symbols]


def _previous(ctx: SeriesContext, idx: int) -> CheckoutFacts | None:
    position = ctx.position(idx)
    if position == 0:
        return None
    return ctx.facts.get(ctx.checkouts[position - 1].idx)


def _host_values(facts: CheckoutFacts | None, which: str) -> dict[str, str]:
    if facts is None:
        return {}
    return {h.host: getattr(h, which) for h in facts.hosts}


def host_cell(ctx: SeriesContext, idx: int, which: str) -> str:
    """The kernel (``which`` = "kernel") or compiler of a checkout, per host."""
    values = _host_values(ctx.facts.get(idx), which)
    if not values:
        return "<td></td>"
    before = _host_values(_previous(ctx, idx), which)
    show = compact_kernel if which == "kernel" else compact_compiler
    several = len(values) > 1
    lines = []
    changed = False
    for host, value in values.items():
        differs = host in before and before[host] != value
        changed |= differs
        label = f"{host}: " if several else ""
        lines.append(esc(label + show(value)))
    title = "\n".join(
        (f"{host}: " if several else "")
        + value
        + (f" (was {before[host]})" if host in before and before[host] != value else "")
        for host, value in values.items()
    )
    css = ' class="changed"' if changed else ""
    return f'<td{css} title="{esc(title)}">{"<br>".join(lines)}</td>'


def symbols_cell(at: str, ctx: SeriesContext, idx: int) -> str:
    """The symbols row's cell of a checkout: the diffstat linked to the diff, the
    number of symbols of a first list, or why there is no list."""
    facts = ctx.facts.get(idx)
    row = facts.symbols if facts is not None else None
    if row is None:
        return "<td></td>"
    if row.count is None:
        why = esc(row.message)
        return f'<td class="nolist" title="{why}">no list: {esc(_cut(row.message))}</td>'
    title = f"{row.binary}: {row.count} symbols"
    if not row.compared:
        why = f"; {row.message}" if row.message else "; no earlier list to compare with"
        return f'<td title="{esc(title + why)}">{row.count} symbols</td>'
    title += f"; against checkout #{row.against_idx}: added, removed, moved"
    stat = esc(symbols_stat(row))
    if row.diff_log_id is not None and symbols_changed(row):
        target = layout.href(at, layout.log_text(ctx.id, row.diff_log_id))
        return f'<td class="changed">{link(target, symbols_stat(row), title=title)}</td>'
    return f'<td title="{esc(title)}">{stat}</td>'


def fact_rows(
    at: str, ctx: SeriesContext, block: Sequence[CheckoutData], pad: Sequence[str]
) -> list[list[str]]:
    """The rows kernel, compiler and (with a symbol list) symbols; none for a series
    without facts (older series)."""
    if not has_facts(ctx):
        return []
    idxs = [c.row.idx for c in block]
    rows = [
        ['<td class="name">kernel</td>'] + [host_cell(ctx, i, "kernel") for i in idxs] + [*pad],
        ['<td class="name">compiler</td>'] + [host_cell(ctx, i, "compiler") for i in idxs] + [*pad],
    ]
    if any(f.symbols is not None for f in ctx.facts.values()):
        rows.append(
            ['<td class="name">symbols</td>'] + [symbols_cell(at, ctx, i) for i in idxs] + [*pad]
        )
    return rows


def checkout_facts(ctx: SeriesContext, idx: int) -> dict[str, Any] | None:
    """The facts of a checkout for its page (``bf`` of its data entry): per host its
    kernel and compiler with whether each changed, and the symbol list's diffstat with
    the diff's file (from the series' folder)."""
    facts = ctx.facts.get(idx)
    if facts is None:
        return None
    previous = _previous(ctx, idx)
    kernels, compilers = (_host_values(previous, w) for w in ("kernel", "compiler"))
    found: dict[str, Any] = {
        "hosts": [
            [
                h.host,
                h.kernel,
                h.host in kernels and kernels[h.host] != h.kernel,
                h.compiler,
                h.host in compilers and compilers[h.host] != h.compiler,
            ]
            for h in facts.hosts
        ]
    }
    s = facts.symbols
    if s is not None:
        found["sym"] = {
            "binary": s.binary,
            "count": s.count,
            "against": s.against_idx,
            "stat": symbols_stat(s),
            "diff": layout.log_text(ctx.id, s.diff_log_id).split("/", 1)[1]
            if s.diff_log_id is not None and symbols_changed(s)
            else None,
            "why": s.message,
        }
    return found


def symbol_diffs(ctx: SeriesContext, idxs: Sequence[int]) -> list[tuple[int, str]]:
    """(log id, site path) of the symbol diffs of checkouts ``idxs`` to write."""
    found = []
    for idx in idxs:
        facts = ctx.facts.get(idx)
        s = facts.symbols if facts is not None else None
        if s is not None and s.diff_log_id is not None and symbols_changed(s):
            found.append((s.diff_log_id, layout.log_text(ctx.id, s.diff_log_id)))
    return found
