"""One series: what was walked, its plots, its changes (as the index lists them),
its other findings (excursions, drifts), and its checkouts as columns (the newest
table page shown, the others linked)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from perfwalk.analysis.levels import Level
from perfwalk.analysis.validity import ValidityWarning
from perfwalk.quantities import format_unit
from perfwalk.report import layout
from perfwalk.report.change_list import ListedEpisode, arrow, relative_size
from perfwalk.report.collect import Cell
from perfwalk.report.context import SeriesContext, is_variant
from perfwalk.report.failures import build_failed
from perfwalk.report.heatmaps import heatmap_section
from perfwalk.report.html import (
    QuirkRow,
    esc,
    has_flame,
    link,
    number,
    page,
    percent,
    quirk_legend,
    status_legend,
    table,
)
from perfwalk.report.pages.change_table import changes_section
from perfwalk.report.pages.counter_table import moved_section
from perfwalk.report.pages.plots import PlotSpec, findings_key, plot_divs
from perfwalk.report.pages.sweeps import sweep_divs
from perfwalk.report.series_levels import MetricLevels
from perfwalk.store import SeriesRow


def table_pages(ctx: SeriesContext) -> list[tuple[int, str]]:
    """(page number, label) of every table page of the series."""
    rows = ctx.checkouts
    size = layout.TABLE_COLUMNS
    day = ctx.times.day
    return [
        (n, f"{day(rows[start].date)} … {day(rows[min(start + size, len(rows)) - 1].date)}")
        for n, start in enumerate(range(0, len(rows), size))
    ]


def _facts(at: str, ctx: SeriesContext, *, changing: bool = True) -> str:
    """The walk's facts; ``changing`` adds those that change as it runs (the number of
    checkouts, the state), which only the series page shows."""
    s = ctx.series
    running = f"{len(ctx.checkouts)} checkouts · " if changing else ""
    state = f" · {esc(s.state)}" if changing else ""
    parent = ""
    if s.parent_id is not None:
        walk = link(layout.href(at, layout.series_page(s.parent_id)), f"series {s.parent_id}")
        parent = (
            f" · variant <b>{esc(s.variant_name)}</b> of {walk} (its page shows the variants "
            "side by side)"
            if is_variant(s)
            else f" · zoom of {walk}"
        )
    return (
        f"<p>{esc(s.kind)} of {esc(s.project)} from {esc(s.from_spec or 'the first commit')} to "
        f"{esc(s.to_spec)} by {esc(s.step)} · {running}"
        f"{s.repetitions}/{esc(s.between)} · host {esc(s.host)}{state}{parent} · "
        + (f"{esc(measuring_facts(s))} · " if s.measuring is not None else "")
        + link(layout.href(at, layout.setup_page(s.id)), "setup")
        + "</p>\n"
    )


def measuring_facts(series: SeriesRow) -> str:
    """How a walk ordered and counted its repetitions, when not checkout after checkout
    with a fixed count ("" then): "in rounds (seed …)", "2 to 8 repetitions until…"."""
    words = []
    measuring = series.measuring
    if measuring is None:
        return ""
    if measuring.order == "rounds":
        words.append(f"in rounds, shuffled with seed {measuring.seed}")
    elif measuring.seed is not None:
        words.append(f"variants interleaved, shuffled with seed {measuring.seed}")
    if measuring.repetitions_max is not None:
        target = percent(measuring.rse_target or 0.0)
        words.append(
            f"{series.repetitions} to {measuring.repetitions_max} repetitions per checkout, "
            f"until the relative standard error of each value is below {target}"
        )
    return " · ".join(words)


def needed(series: SeriesRow, count: int) -> str:
    """What an adaptive walk's ``count`` repetitions at a checkout say ("" for a fixed
    count): as many as needed, or the most allowed (its values stayed noisier)."""
    measuring = series.measuring
    if measuring is None or measuring.repetitions_max is None or count == 0:
        return ""
    target = percent(measuring.rse_target or 0.0)
    if count >= measuring.repetitions_max:
        return (
            f"{count} repetitions: the most allowed (repetitions_max), its relative standard "
            f"error may still be {target} or more"
        )
    return f"{count} repetitions needed to bring the relative standard error below {target}"


def _legend(ctx: SeriesContext, at: str) -> str:
    return quirk_legend(
        [
            QuirkRow(q.letter, ctx.times.minute(q.at_date), q.comment, (ctx.id,))
            for q in ctx.series.quirks
        ],
        at,
    )


def other_findings(at: str, ctx: SeriesContext, specs: Sequence[PlotSpec]) -> str:
    """The excursions and drifts of the series' metrics, listed: kind, metric, the
    checkouts (linked to their pages), size; "" when there are none."""
    if not ctx.episodes:
        return ""
    units = {(s.test, name): s.unit for s in specs for name in s.names}

    def checkout(idx: int) -> str:
        try:
            date = f" ({ctx.times.day(ctx.checkouts[ctx.position(idx)].date)})"
        except KeyError:
            return esc(str(idx))  # not a checkout of the series (any more)
        return link(layout.href(at, layout.checkout_page(ctx.id, idx)), f"{idx}{date}")

    def where(e: ListedEpisode) -> str:
        if e.first_idx == e.last_idx:
            return f"at checkout {checkout(e.first_idx)}"
        return f"over checkouts {checkout(e.first_idx)} to {checkout(e.last_idx)}"

    def item(e: ListedEpisode) -> str:
        unit = units.get((e.test, e.name))
        metric = f"{e.test}.{e.name}" + (f" [{format_unit(unit)}]" if unit else "")
        way = "worse" if e.worse else "better"
        after = ", then back to its level" if e.kind == "excursion" else ", slowly, without a step"
        return (
            f'<li class="{e.kind}"><b>{e.kind}</b> of {esc(metric)}: '
            f"{esc(arrow(e.size))} {esc(relative_size(e.size))} ({way}) {where(e)}{esc(after)}</li>"
        )

    return (
        "<h2>Other findings</h2>\n<p>Not changes: shown, never counted as regressions.</p>\n"
        '<ul class="findings">\n' + "\n".join(item(e) for e in ctx.episodes) + "\n</ul>\n"
    )


def validity_section(warnings: Sequence[ValidityWarning]) -> str:
    """ "Is this benchmark measuring the right thing?": each warning with its evidence
    and its remedy, escaped; "" without warnings."""
    if not warnings:
        return ""
    items = []
    for w in warnings:
        evidence = "".join(f"<li>{esc(line)}</li>" for line in w.evidence)
        items.append(
            f'<li class="{esc(w.kind)}"><b>{esc(w.subject)}</b>: {esc(w.said)}'
            + (f'\n<ul class="evidence">{evidence}</ul>' if evidence else "")
            + (f"\n<small>{esc(w.remedy)}</small>" if w.remedy else "")
            + "</li>"
        )
    return (
        '<h2 id="validity">Is this benchmark measuring the right thing?</h2>\n<p>What its '
        "profiles and values say it may measure instead of the code under test "
        "([validity]); its values are kept and searched as any others.</p>\n"
        '<ul class="validity">\n' + "\n".join(items) + "\n</ul>\n"
    )


def sights_section(at: str, ctx: SeriesContext) -> str:
    """Per metric (and per variant of a walk), what the walk could see: the smallest
    change it would have found, or why it cannot judge the metric, with the most likely
    step below its bar; "" when no metric was searched."""
    items = []
    for v in (ctx, *ctx.variants):
        label = f"{v.variant_name}: " if ctx.variants else ""
        for (test, name), found in sorted((v.levels or {}).items()):
            sight = found.sight
            if sight is None:
                continue
            text = esc(f"{label}{test}.{name}: {sight.said}")
            step = sight.floor.candidate
            if sight.undecided and step is not None:
                before, after = (
                    link(layout.href(at, layout.checkout_page(v.id, idx)), f"#{idx}")
                    for idx in (step.previous, step.index)
                )
                text += (
                    f" <small>most likely step: between {before} and {after}, "
                    f"{esc(relative_size(step.relative))}</small>"
                )
            css = ' class="undecided"' if sight.undecided or sight.kept else ""
            items.append(f"<li{css}>{text}</li>")
    if not items:
        return ""
    return (
        '<h2 id="sight">What the walk could see</h2>\n<p>Per metric, the smallest change '
        "its detector would have found (about half the time; one of 1.5 times it mostly), "
        "from the noise of the checkouts, their repetitions and how many they are: no change "
        "found says nothing of changes below it.</p>\n"
        '<ul class="sight">\n' + "\n".join(items) + "\n</ul>\n"
    )


LEVEL_HEADERS = ("metric", "checkouts", "median", "± rsd", "min … max", "n", "then")
#: what each column of the levels says, as its header's tooltip
LEVEL_TITLES = {
    "checkouts": "the level's first and last checkouts with a value",
    "median": "the median of its checkouts' summaries",
    "± rsd": "their relative standard deviation",
    "min … max": "their smallest and largest",
    "n": "how many checkouts",
    "then": "how far the next level's median moved from this one's",
}


def levels_section(at: str, ctx: SeriesContext) -> str:
    """Every level of every metric over the whole series (and of each variant of a
    walk), the newest first: its checkouts, median, relative deviation, extremes,
    count, and the move to the next level; "" without levels."""
    every = [v for v in (ctx, *ctx.variants) if v.levels]
    rows: list[list[str]] = []
    for v in every:
        label = f"{v.variant_name}: " if ctx.variants else ""
        for _key, found in sorted((v.levels or {}).items()):
            rows.extend(_level_rows(at, v, label, found))
    if not rows:
        return ""
    head = [
        f'<th class="name"{_tip(h)}>{esc(h)}</th>'
        if h == "metric"
        else f"<th{_tip(h)}>{esc(h)}</th>"
        for h in LEVEL_HEADERS
    ]
    what = (
        "split by the drill's answer: before its culprit, the commits it could not place, "
        "from its culprit on"
        if ctx.drilled is not None
        else "cut at the detected changes"
    )
    return (
        f'<h2 id="levels">Levels</h2>\n<p>Each metric\'s checkouts {esc(what)}, the newest '
        "level first: figures over a level's checkout summaries, never across a step.</p>\n"
        + table(head, rows, css="levels")
        + "\n"
    )


def _tip(header: str) -> str:
    title = LEVEL_TITLES.get(header)
    return f' title="{esc(title)}"' if title else ""


def _level_rows(at: str, ctx: SeriesContext, label: str, found: MetricLevels) -> list[list[str]]:
    """The rows of one metric's levels, the newest first, its name on the first."""
    count = len(found.levels)
    unit = found.unit

    def checkout(idx: int) -> str:
        return link(layout.href(at, layout.checkout_page(ctx.id, idx)), f"#{idx}")

    rows: list[list[str]] = []
    for number_, level in reversed(list(enumerate(found.levels))):
        shown = found.whole(level)
        then = found.levels[number_ + 1] if number_ + 1 < count else None
        cells = []
        if not rows:
            metric = f"{label}{found.test}.{found.name}"
            cells.append(f'<td class="name" rowspan="{count}">{esc(metric)}</td>')
        span = checkout(shown.first) + (
            f"–{checkout(shown.last)}" if shown.last != shown.first else ""
        )
        latest = " <small>latest</small>" if then is None else ""
        cells += [
            f"<td>{span}{latest}</td>",
            *(f"<td>{text}</td>" for text in level_figures(level, unit)),
            _move(then, found.direction),
        ]
        rows.append(cells)
    return rows


def level_figures(level: Level | Cell, unit: str) -> list[str]:
    """The figures of a level (or of one checkout's values: a try's side), escaped:
    median, relative deviation ("±0.4 %"; "" when it has none), min … max, count."""
    rsd = f"±{percent(level.rsd)}" if math.isfinite(level.rsd) else ""
    extremes = f"{esc(number(level.min, unit))} … {esc(number(level.max, unit))}"
    return [esc(number(level.median, unit)), rsd, extremes, str(level.n)]


def _move(then: Level | None, direction: str) -> str:
    """The move to the next level: its size, arrow and class (worse or better)."""
    if then is None:
        return "<td></td>"
    if then.change is None:
        return '<td title="from a level of 0: no relative size">→</td>'
    up = then.change > 0
    worse = up != (direction == "higher") and then.change != 0
    css = "regression" if worse else "improvement" if then.change else ""
    word = "worse" if worse else "better" if then.change else "the same"
    cls = f' class="{css}"' if css else ""
    said = f'<span class="{word}">{word}</span>' if then.change else word
    return f"<td{cls}>{arrow(then.change)} {esc(relative_size(then.change))} {said}</td>"


def series_page(
    ctx: SeriesContext,
    specs: Sequence[PlotSpec],
    newest_table: str,
    drill: str = "",
    *,
    variants: str = "",
    variant_specs: Sequence[PlotSpec] = (),
    validity: Sequence[ValidityWarning] = (),
) -> str:
    """The page of a series; ``newest_table`` is the table of its newest checkouts
    rendered for this page, ``drill`` the drill section of a drill; for a walk with
    variants, ``variants`` their section and ``variant_specs`` their plots' specs (the
    plots draw a line per variant, the changes list theirs too); ``validity`` the
    warnings that its benchmarks measure the wrong thing."""
    at = layout.series_page(ctx.id)
    pages = table_pages(ctx)
    paging = ""
    if len(pages) > 1:
        paging = (
            "<p>checkouts by table page: "
            + " · ".join(
                link(layout.href(at, layout.table_page(ctx.id, n)), label) for n, label in pages
            )
            + "</p>\n<h2>Newest checkouts</h2>\n"
        )
    every = (ctx, *ctx.variants)
    changes = [c for v in every for c in v.changes]
    episodes = any(v.episodes for v in every)
    shown = [*specs, *variant_specs]
    heatmaps = heatmap_section(ctx, at)
    sweeps = sweep_divs(ctx) if shown else ""
    body = (
        _facts(at, ctx)
        + drill
        + variants
        + sweeps
        + plot_divs(
            [v.id for v in every], shown, variants=bool(ctx.variants), releases=ctx.releases
        )
        + "\n"
        + (
            findings_key(
                changes=bool(changes),
                episodes=episodes,
                failures=any(build_failed(row) for v in every for row in v.checkouts),
            )
            if shown
            else ""
        )
        + heatmaps
        + (changes_section(at, changes, ctx.times) if changes else "")  # the plots' bands, as links
        + moved_section(at, changes)
        + other_findings(at, ctx, specs)
        + validity_section(validity)
        + sights_section(at, ctx)
        + levels_section(at, ctx)
        + "<h2>Checkouts</h2>\n"
        + paging
        + (newest_table or "<p>No checkout yet.</p>")
        + _legend(ctx, at)
        + status_legend()
    )
    title = f"series {ctx.id}: {ctx.series.name}"
    return page(
        at,
        title,
        body,
        crumbs=series_crumbs(ctx.series),
        plots=bool(shown),
        heatmaps=bool(heatmaps),
        sweeps=bool(sweeps),
        flame=has_flame(drill),
        times=ctx.times,
    )


def series_crumbs(series: SeriesRow) -> list[tuple[str, str]]:
    """The links above a series' page: all series, and a variant's walk."""
    crumbs = [(layout.INDEX, "all series")]
    if is_variant(series) and series.parent_id is not None:
        crumbs.append((layout.series_page(series.parent_id), f"series {series.parent_id}"))
    return crumbs


def table_page(ctx: SeriesContext, number: int, table_html: str) -> str:
    at = layout.table_page(ctx.id, number)
    pages = table_pages(ctx)
    around = []
    if number > 0:
        around.append(link(layout.href(at, layout.table_page(ctx.id, number - 1)), "‹ older"))
    if number + 1 < len(pages):
        around.append(link(layout.href(at, layout.table_page(ctx.id, number + 1)), "newer ›"))
    body = (
        _facts(at, ctx, changing=False)
        + (f"<p>{' · '.join(around)}</p>\n" if around else "")
        + table_html
        + _legend(ctx, at)
        + status_legend()
    )
    crumbs = [*series_crumbs(ctx.series), (layout.series_page(ctx.id), f"series {ctx.id}")]
    label = pages[number][1] if number < len(pages) else ""
    title = f"series {ctx.id}: {ctx.series.name}, {label}"
    return page(at, title, body, crumbs=crumbs, times=ctx.times)
