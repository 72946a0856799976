"""The index: first the "Changes" (every change found, newest first, with its
culprit and triage: see :mod:`perfwalk.report.pages.change_table`); then the walks,
one row per series, newest first, each variant, drill and zoom nested under the
walk it came from: host and cores, setup, first and last checkout, steps, repetitions,
state, the changes found and, apart, the other findings (excursions, drifts: never
counted as regressions); per test its worst status; then the tries, apart (see
:mod:`perfwalk.report.pages.tries`), the conductor runs (see
:mod:`perfwalk.report.pages.conduct`), the plots of all series and the quirk and
status legends."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from perfwalk.model import Status
from perfwalk.report import layout
from perfwalk.report.change_list import ListedChange, ListedEpisode
from perfwalk.report.context import is_variant, kind_of
from perfwalk.report.failures import counted
from perfwalk.report.html import (
    QuirkRow,
    esc,
    link,
    page,
    quirk_legend,
    status_cell,
    status_legend,
)
from perfwalk.report.pages.change_table import changes_section
from perfwalk.report.pages.conduct import conduct_section
from perfwalk.report.pages.plots import PlotSpec, findings_key, plot_divs
from perfwalk.report.pages.table import row_anchor
from perfwalk.report.pages.tries import TryListing, tries_section
from perfwalk.report.releases import Release
from perfwalk.report.times import UTC_TIMES, SiteTimes
from perfwalk.store import CheckoutRow, SeriesRow
from perfwalk.store.conduct import ConductSummary


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
    #: per test, how many checkouts had each worst status (a failed build: NOEXIST)
    counts: dict[str, dict[Status, int]] = field(default_factory=dict)
    #: how many of its metrics the walk could not judge (too noisy to see a change
    #: that matters: "undecided", never "none")
    undecided: int = 0


def _counted(words: Iterable[str], order: Sequence[tuple[str, str]]) -> str:
    """ "2 regressions · 1 improvement" from words and their (singular, plural); "none"."""
    counts = Counter(words)
    told = [
        f"{counts[one]} {one if counts[one] == 1 else many}" for one, many in order if counts[one]
    ]
    return " · ".join(told) or "none"


def changes_text(changes: Iterable[ListedChange], blind: int = 0) -> str:
    """How many metric changes a series has, by kind: the confirmed ones by their
    kind, the others by their verdict (a refuted one is not counted); then how many
    of its metrics the walk could not judge (``blind``): "none" only when it found no
    change and could have seen one in every metric."""
    told = _counted(
        (c.word if c.state == "confirmed" else c.state for c in changes if not c.refuted),
        (
            ("regression", "regressions"),
            ("improvement", "improvements"),
            ("undecided", "undecided"),
            ("suspect", "suspect"),
        ),
    )
    if not blind:
        return told
    metrics = f"{blind} metric{'' if blind == 1 else 's'} undecided"
    return metrics if told == "none" else f"{told} · {metrics}"


def episodes_text(episodes: Iterable[ListedEpisode]) -> str:
    """How many excursions and drifts a series has: shown, never a regression."""
    return _counted((e.kind for e in episodes), (("excursion", "excursions"), ("drift", "drifts")))


def worst_cell(s: SeriesSummary, test: str) -> str:
    """A test's worst status in a walk, with how many checkouts had it ("NOEXIST ×1")
    and, as tooltip, every status counted ("NOEXIST ×1 · PASS ×44"), linked to the
    test's rows on the series page."""
    worst = s.worst.get(test)
    href = layout.series_page(s.series.id) + "#" + row_anchor(test)
    found = s.counts.get(test, {})
    if worst is None or not found.get(worst):
        return status_cell(worst, href)
    told = counted(found)
    text = f"{worst.name} ×{found[worst]}" if worst is not Status.PASS else worst.name
    return (
        f'<td class="{worst.name}">'
        + link(href, text, title=f"checkouts by worst status: {told}")
        + "</td>"
    )


def nested(every: Sequence[SeriesSummary]) -> list[tuple[SeriesSummary, int]]:
    """The series in their order, each followed by those that came from it (its
    variants first, in their columns' order, then its drills and zooms:
    ``parent_id``), with their depth; a series whose parent is not shown is a root."""
    ids = {s.series.id for s in every}
    children: dict[int, list[SeriesSummary]] = {}
    roots = []
    for s in every:
        parent = s.series.parent_id
        if parent is not None and parent in ids and parent != s.series.id:
            children.setdefault(parent, []).append(s)
        else:
            roots.append(s)
    ordered: list[tuple[SeriesSummary, int]] = []
    seen: set[int] = set()

    def visit(s: SeriesSummary, depth: int) -> None:
        if s.series.id in seen:  # a loop of parents: each shown once
            return
        seen.add(s.series.id)
        ordered.append((s, depth))
        for child in children.get(s.series.id, ()):
            visit(child, depth + 1)

    for kids in children.values():  # stable: the rest keep their order
        kids.sort(key=lambda s: (0, s.series.id) if is_variant(s.series) else (1, 0))
    for s in roots:
        visit(s, 0)
    for s in every:  # only in a loop of parents: shown at the top
        visit(s, 0)
    return ordered


def index_page(
    every: Sequence[SeriesSummary],
    changes: Sequence[ListedChange] = (),
    *,
    undecided: Sequence[tuple[int, str, str]] = (),
    matrix: bool = False,
    conduct: Sequence[ConductSummary] = (),
    tries: Sequence[TryListing] = (),
    releases: Sequence[Release] = (),
    times: SiteTimes = UTC_TIMES,
    night: str = "",
) -> str:
    """The index: on top the ``night`` strip (:mod:`perfwalk.report.pages.last_night`),
    then the ``changes`` table and the metrics the walks could not judge
    (``undecided``: series, name, why), then every series as a row (drills and zooms
    under their walk), then the ``tries`` (their series are not in ``every``), the
    ``conduct`` runs; ``matrix`` links the regress matrix; ``releases`` mark the plots;
    every time in the site's ``times``."""
    at = layout.INDEX
    title = "perfwalk: all series"
    pages = [link(layout.href(at, layout.RELEASES), "levels per release")]
    if matrix:
        pages.append(link(layout.href(at, layout.MATRIX_INDEX), "functional regression matrix"))
    nav = f"<p>{' · '.join(pages)}</p>\n"
    runs = conduct_section(at, conduct, times)
    tried = tries_section(at, tries, times)
    if not every:
        return page(
            at,
            title,
            night
            + nav
            + f"<p>No {'walk' if tries else 'series'} yet: run <code>perfwalk run</code>."
            "</p>\n" + tried + runs,
            night=bool(night),
            feed=layout.FEED,
            times=times if tried or runs or night else None,
        )
    tests = sorted({t for s in every for t in s.worst})

    def day(c: CheckoutRow | None) -> str:
        return f"<td>{esc(times.minute(c.date)) if c else '-'}</td>"

    head = [
        '<th class="name">walk</th>',
        "<th>kind</th>",
        "<th>host/cores</th>",
        "<th>setup</th>",
        "<th>first checkout</th>",
        "<th>last checkout</th>",
        "<th>steps</th>",
        "<th>repetitions</th>",
        "<th>state</th>",
        "<th>changes</th>",
        "<th>other findings</th>",
        *(f"<th>{esc(test)}</th>" for test in tests),
    ]
    rows = []
    for s, depth in nested(every):
        sid = s.series.id
        name = link(layout.series_page(sid), f"{sid}: {s.series.name}")
        cells = [
            f'<td class="name depth-{min(depth, 3)}">{"↳ " if depth else ""}{name}</td>',
            f"<td>{esc(kind_of(s.series))}</td>",
            f"<td>{esc(s.series.host)}/{esc(s.series.fingerprint.get('cores', '?'))}</td>",
            "<td>" + link(layout.setup_page(sid), s.series.config_hash[:10] or "setup") + "</td>",
            day(s.first),
            day(s.last),
            f"<td>{s.checkouts}/{esc(s.series.step)}</td>",
            f"<td>{s.series.repetitions}/{esc(s.series.between)}</td>",
            f"<td>{esc(s.series.state)}</td>",
            f'<td class="changes">{esc(changes_text(s.changes, s.undecided))}</td>',
            f'<td class="findings">{esc(episodes_text(s.episodes))}</td>',
            *(worst_cell(s, test) for test in tests),
        ]
        css = "top" if depth == 0 else "nested"
        rows.append(f'<tr class="{css}" data-series="{sid}">' + "".join(cells) + "</tr>")
    walks = (
        "<h2>Walks</h2>\n"
        + '<table class="series">\n<thead><tr>'
        + "".join(head)
        + "</tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + "\n</tbody>\n</table>\n"
    )
    legend = quirk_legend(_quirks_of(every, times))
    specs = [spec for s in every for spec in s.specs]
    shown = [s for s in every if s.specs]
    body = (
        changes_section(at, changes, times, undecided)
        + walks
        + tried
        + runs
        + plot_divs([s.series.id for s in shown], specs, releases=releases)
        + findings_key(
            changes=any(s.changes for s in shown),
            episodes=any(s.episodes for s in shown),
            failures=any(status is not Status.PASS for s in shown for status in s.worst.values()),
        )
        + legend
        + status_legend()
    )
    return page(
        at,
        title,
        night + nav + body,
        plots=bool(specs),
        night=bool(night),
        feed=layout.FEED,
        times=times,
    )


def _quirks_of(every: Sequence[SeriesSummary], times: SiteTimes) -> list[QuirkRow]:
    """Each quirk once (its letter, date and comment), with the series it marks: the
    series of one configuration share their quirks and letters."""
    found: dict[tuple[str, str, str], list[int]] = {}
    for s in every:
        for q in s.series.quirks:
            found.setdefault((q.letter, times.minute(q.at_date), q.comment), []).append(s.series.id)
    return [
        QuirkRow(letter, date, comment, tuple(ids))
        for (letter, date, comment), ids in found.items()
    ]
