"""All series: one column per series, newest first: host and cores, setup, first
and last checkout, steps, repetitions, the changes found and, apart, the other
findings (excursions, drifts: never counted as regressions); per test its worst
status; the plots of all series; the quirk and status legends."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from perfwalk.model import Status
from perfwalk.report import layout
from perfwalk.report.change_list import ListedChange, ListedEpisode
from perfwalk.report.html import esc, link, page, status_cell, status_legend, table
from perfwalk.report.pages.plots import PlotSpec, findings_key, plot_divs
from perfwalk.report.pages.table import row_anchor
from perfwalk.store import CheckoutRow, SeriesRow


@dataclass(frozen=True)
class SeriesSummary:
    """What the index shows of one series."""

    series: SeriesRow
    first: CheckoutRow | None
    last: CheckoutRow | None
    checkouts: int
    worst: dict[str, Status]
    specs: tuple[PlotSpec, ...]
    changes: tuple[ListedChange, ...] = ()
    episodes: tuple[ListedEpisode, ...] = ()


def _counted(words: Iterable[str], order: Sequence[tuple[str, str]]) -> str:
    """ "2 regressions · 1 improvement" from words and their (singular, plural); "none"."""
    counts = Counter(words)
    told = [
        f"{counts[one]} {one if counts[one] == 1 else many}" for one, many in order if counts[one]
    ]
    return " · ".join(told) or "none"


def changes_text(changes: Iterable[ListedChange]) -> str:
    """How many metric changes a series has, by kind."""
    return _counted(
        ("not confirmed" if c.unconfirmed else c.word for c in changes),
        (
            ("regression", "regressions"),
            ("improvement", "improvements"),
            ("not confirmed", "not confirmed"),
        ),
    )


def episodes_text(episodes: Iterable[ListedEpisode]) -> str:
    """How many excursions and drifts a series has: shown, never a regression."""
    return _counted((e.kind for e in episodes), (("excursion", "excursions"), ("drift", "drifts")))


def index_page(every: Sequence[SeriesSummary], *, matrix: bool = False) -> str:
    """The index: every series as a column; ``matrix`` links the regress matrix."""
    at = layout.INDEX
    nav = (
        f"<p>{link(layout.href(at, layout.MATRIX_INDEX), 'functional regression matrix')}</p>\n"
        if matrix
        else ""
    )
    if not every:
        return page(
            at,
            "perfwalk: all series",
            nav + "<p>No series yet: run <code>perfwalk run</code>.</p>",
            feed=layout.FEED,
        )
    tests = sorted({t for s in every for t in s.worst})

    def row(label: str, cells: list[str]) -> list[str]:
        return [f'<th class="name">{esc(label)}</th>', *cells]

    def day(c: CheckoutRow | None) -> str:
        return f"<td>{esc(f'{c.date:%Y-%m-%d %H:%M}') if c else '-'}</td>"

    head = ['<th class="name">series</th>'] + [
        f"<th>{link(layout.series_page(s.series.id), f'{s.series.id}: {s.series.name}')}</th>"
        for s in every
    ]
    rows = [
        row(
            "host/cores",
            [
                f"<td>{esc(s.series.host)}/{esc(s.series.fingerprint.get('cores', '?'))}</td>"
                for s in every
            ],
        ),
        row(
            "setup",
            [
                "<td>"
                + link(layout.setup_page(s.series.id), s.series.config_hash[:10] or "setup")
                + "</td>"
                for s in every
            ],
        ),
        row("first checkout", [day(s.first) for s in every]),
        row("last checkout", [day(s.last) for s in every]),
        row("steps", [f"<td>{s.checkouts}/{esc(s.series.step)}</td>" for s in every]),
        row(
            "repetitions",
            [f"<td>{s.series.repetitions}/{esc(s.series.between)}</td>" for s in every],
        ),
        row("state", [f"<td>{esc(s.series.state)}</td>" for s in every]),
        row("changes", [f"<td>{esc(changes_text(s.changes))}</td>" for s in every]),
        row("other findings", [f"<td>{esc(episodes_text(s.episodes))}</td>" for s in every]),
    ]
    for test in tests:
        rows.append(
            row(
                test,
                [
                    status_cell(
                        s.worst.get(test),
                        layout.series_page(s.series.id) + "#" + row_anchor(test),
                    )
                    for s in every
                ],
            )
        )
    quirks = [
        [
            f"<td>{link(layout.series_page(s.series.id), str(s.series.id))}</td>",
            f'<td class="quirk">{esc(q.letter)}</td>',
            f"<td>{esc(f'{q.at_date:%Y-%m-%d %H:%M}')}</td>",
            f'<td class="name">{esc(q.comment)}</td>',
        ]
        for s in every
        for q in s.series.quirks
    ]
    legend = (
        "<h2>Quirks</h2>\n"
        + table(
            ["<th>series</th>", "<th>quirk</th>", "<th>date</th>", '<th class="name">comment</th>'],
            quirks,
            css="legend",
        )
        if quirks
        else ""
    )
    specs = [spec for s in every for spec in s.specs]
    shown = [s for s in every if s.specs]
    body = (
        table(head, rows, css="series")
        + plot_divs([s.series.id for s in shown], specs)
        + findings_key(
            changes=any(s.changes for s in shown), episodes=any(s.episodes for s in shown)
        )
        + legend
        + status_legend()
    )
    return page(at, "perfwalk: all series", nav + body, plots=bool(specs), feed=layout.FEED)
