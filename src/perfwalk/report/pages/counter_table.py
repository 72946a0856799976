"""The "What moved with it" section of a series page: at each change, the
``[[snapshot]]`` counters whose change per unit of work coincides with the step, ranked
(:mod:`perfwalk.analysis.counter_moves`). A counter's name comes from a command's
output: every cell is escaped."""

from __future__ import annotations

from collections.abc import Sequence

from perfwalk.analysis.counter_moves import CounterMove
from perfwalk.report import layout
from perfwalk.report.change_list import ListedChange
from perfwalk.report.html import esc, link, table
from perfwalk.report.pages.change_table import delta, moved_anchor

#: the columns of a change's counters
HEADER = (
    '<th class="name">counter</th>',
    '<th class="name">snapshot</th>',
    "<th>per</th>",
    "<th>before</th>",
    "<th>after</th>",
    "<th>move [95% interval]</th>",
    "<th>p</th>",
    '<th title="P(after &gt; before) - P(after &lt; before) over the repetitions">δ</th>',
    '<th title="its largest move between neighbouring checkouts without a change">neighbours</th>',
)


def moved_section(at: str, changes: Sequence[ListedChange]) -> str:
    """Per change (once, whichever of its metrics are listed), newest first, the
    counters that moved with it; "" when none has any."""
    shown: dict[tuple[int, int], ListedChange] = {}
    for change in changes:
        if change.counters and not change.refuted:
            shown.setdefault((change.series_id, change.after_idx), change)
    if not shown:
        return ""
    parts = [
        '<h2 id="moved">What moved with it</h2>\n<p class="note">The snapshot counters '
        "whose change per unit of work (or per second) coincides with the step: beyond "
        "their noise between the repetitions and between neighbouring checkouts without "
        "a change, the most consistent first.</p>\n"
    ]
    for change in sorted(shown.values(), key=lambda c: c.date, reverse=True):
        checkout = layout.href(at, layout.checkout_page(change.series_id, change.after_idx))
        parts.append(
            f'<h3 id="{moved_anchor(change)}">{link(checkout, f"change {change.id}")}: '
            f"{esc(change.metric)} {esc(delta(change))}</h3>\n"
            + table(HEADER, [_row(c) for c in change.counters], css="moved")
            + "\n"
        )
    return "".join(parts)


def _row(move: CounterMove) -> list[str]:
    where = f"{move.snapshot} on {move.role}" if move.role else move.snapshot
    noise = "—" if move.noise is None else f"{move.noise:.3g}"
    return [
        f'<td class="name">{esc(move.counter)}</td>',
        f'<td class="name">{esc(where)} ({esc(move.test)})</td>',
        f"<td>{esc(move.per)}</td>",
        f"<td>{move.before:.4g}</td>",
        f"<td>{move.after:.4g}</td>",
        f"<td>{esc(move.effect)}</td>",
        f"<td>{move.p:.2g}</td>",
        f"<td>{move.delta:+.2f}</td>",
        f'<td title="log ratio; across the change: {move.move:.3g}">{noise}</td>',
    ]
