"""The data behind the plots (script files the site's plot.js reads) and the places
on a page where plots go.

A plot shows one test's values of one unit (but a metric marked ``ignore``), the
test's description under its title (a sweep's member has its parameters in its
name, the title): x is
the checkout date (or commit order), every repetition a point, each checkout's
summary a line, one colour per series and value name (on the page of a walk with
variants, a line per variant and value name, named by its variant, the plain
checkout's first: the columns' order); quirks are lettered vertical lines (a quirk
over a range shaded over it), releases labelled vertical lines of their own style,
detected changes shaded red or green (a click opens the culprit's drill, else the
checkout after the step; its tooltip tells the change), excursions shaded blue and
drifts drawn as a dashed blue line from their first to their last checkout (neither
is a change).
"""

from __future__ import annotations

import base64
import bisect
import json
import math
import re
from array import array
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from perfwalk.hosts.fingerprint import BOOT_LOG
from perfwalk.quantities import format_unit
from perfwalk.report import layout
from perfwalk.report.collect import CheckoutData
from perfwalk.report.context import SeriesContext, is_variant
from perfwalk.report.failures import Failure, plot_marks
from perfwalk.report.html import esc
from perfwalk.report.pages.change_table import change_facts
from perfwalk.report.releases import Release
from perfwalk.report.releases import positions as release_positions
from perfwalk.report.summaries import MetricKey
from perfwalk.store import CheckoutRow, SeriesRow
from perfwalk.store.packs import little_endian


@dataclass(frozen=True)
class PlotSpec:
    """What one series has to show in the plot of ``key``."""

    key: str
    test: str
    unit: str
    names: tuple[str, ...]
    blocks: tuple[int, ...]
    sealed: tuple[int, ...] = ()  # seals whose blocks are also in one file


def _ms(ctx: SeriesContext, idx: int) -> int:
    return int(ctx.checkouts[ctx.position(idx)].date.timestamp() * 1000)


def block_files(
    ctx: SeriesContext,
    block_no: int,
    block: Sequence[CheckoutData],
    failures: Mapping[int, Sequence[Failure]] | None = None,
    drawn: Callable[[MetricKey], bool] = lambda _key: True,
) -> dict[str, tuple[str, str, tuple[str, ...], str]]:
    """The data file of every plot key of one block: key → (test, unit, names, text);
    only the metrics ``drawn`` says (not those marked ``ignore``).

    Per value name, ``s`` holds each checkout's summary and ``p`` each checkout's
    PASS values (one per repetition of ``c``, NaN for none), as float64 little-endian
    in base64: the numbers reach the plot exactly, and cost nothing to write or read.
    ``f`` lists the checkouts whose build failed or whose test did not pass
    (``failures``, by checkout index): [position in ``c``, severity, what failed],
    which the plot draws as a gap in its lines and a marker.
    """
    checkouts = [
        [c.row.idx, _date_ms(c), c.row.sha[:12], ctx.position(c.row.idx), c.reps] for c in block
    ]
    widths = [len(c.reps) for c in block]
    lines: dict[tuple[str, str], dict[str, _Line]] = {}
    plans: dict[int, list[tuple[dict[str, _Line], _Line, int]]] = {}
    for pos, c in enumerate(block):
        width, passed, chosen = widths[pos], c.passed, c.chosen
        plan = plans.get(id(c.metrics))  # the checkouts of a block share their metrics
        if plan is None:
            plan = plans[id(c.metrics)] = []
            for m, key in enumerate(c.metrics):
                if not drawn(key):
                    continue
                names = lines.setdefault((key.test, key.unit), {})
                plan.append((names, names.setdefault(key.name, _Line()), m))
        for _names, line, m in plan:
            if line.count < pos:
                line.pad_to(pos, widths)
            line.summary.append(chosen[m])
            line.points.extend(passed[m * width : (m + 1) * width])
            line.count = pos + 1
    files = {}
    checkouts_json = json.dumps(checkouts, separators=(",", ":"), allow_nan=False)
    for (test, unit), names in lines.items():
        plot = layout.plot_key(test, unit)
        for line in names.values():
            line.pad_to(len(block), widths)
        marks = plot_marks(block, failures, test) if failures else []
        payload = (
            '{"c":'
            + checkouts_json
            + (',"f":' + json.dumps(marks, separators=(",", ":"), allow_nan=False) if marks else "")
            + ',"n":{'
            + ",".join(
                json.dumps(name, allow_nan=False)
                + f':{{"s":"{_b64(line.summary)}","p":"{_b64(line.points)}"}}'
                for name, line in names.items()
            )
            + "}}"
        )
        text = (
            f"perfwalk.block({ctx.id},{json.dumps(plot, allow_nan=False)},{block_no},{payload});\n"
        )
        files[plot] = (test, unit, tuple(names), text)
    return files


def _date_ms(c: CheckoutData) -> int:
    return int(c.row.date.timestamp() * 1000)


class _Line:
    """One value name's summaries and points in a block, checkout after checkout."""

    __slots__ = ("count", "points", "summary")

    def __init__(self) -> None:
        self.summary = array("d")
        self.points = array("d")
        self.count = 0  # checkouts so far

    def pad_to(self, count: int, widths: Sequence[int]) -> None:
        """NaN for the checkouts before ``count`` that do not have this value."""
        for pos in range(self.count, count):
            self.summary.append(math.nan)
            self.points.extend([math.nan] * widths[pos])
        self.count = max(self.count, count)


def _b64(numbers: array[float]) -> str:
    return base64.b64encode(little_endian(numbers)).decode("ascii")


def meta_file(ctx: SeriesContext, specs: Sequence[PlotSpec]) -> str:
    """The series' plot metadata: its plots, quirks, changes and other findings."""
    dates = [c.date for c in ctx.checkouts]

    def position_at(moment: datetime) -> int | None:
        pos = bisect.bisect_left(dates, moment)
        return pos if pos < len(dates) else None

    series = ctx.series
    blocks = ctx.blocks()
    ranged = ranged_letters(series, ctx.checkouts)
    name = f"series {ctx.id}: {series.name}"
    if is_variant(series):  # not from its name: the name is the walk's to choose
        name = f"series {ctx.id}: variant {series.variant_name} of series {series.parent_id}"
    meta: dict[str, Any] = {
        "name": name,
        "zone": ctx.times.zone,  # the plot's axis and tooltips write times in it
        "pages": {  # what pages.js needs besides a block's data
            "host": series.host,
            "fingerprint": sorted(  # its boot log on the setup page alone
                [str(k), str(v)] for k, v in series.fingerprint.items() if k != BOOT_LOG
            ),
            "between": series.between,
            "commit_url": ctx.commit_url,
            "file_url": ctx.file_url,
            "blocks": [[b[0].idx, b[-1].idx] for b in blocks],
            "table_columns": layout.TABLE_COLUMNS,
            "tables": (len(ctx.checkouts) + layout.TABLE_COLUMNS - 1) // layout.TABLE_COLUMNS,
        },
        "keys": {
            s.key: {
                "test": s.test,
                "unit": s.unit,
                "names": list(s.names),
                "blocks": list(s.blocks),
                "sealed": list(s.sealed),
                "seal": layout.SEAL,
                **recorded_facts(series, s.test),
            }
            for s in specs
        },
        "quirks": [
            [
                q.letter,
                int(q.at_date.timestamp() * 1000),
                q.comment,
                position_at(q.at_date),
                quirk_range(ctx, ranged, q.letter, q.at_date),
            ]
            for q in series.quirks
        ],
        # [name, ms, position, comment, commit]: a release's line and window bounds
        "releases": [
            [r.name, r.ms, pos, r.comment, r.commit[:12] if r.commit else None]
            for r, pos in zip(ctx.releases, release_positions(ctx.releases, dates), strict=True)
        ],
        "changes": [
            {
                "key": layout.plot_key(c.test, _unit_of(specs, c.test, c.name)),
                "name": c.name,
                "from": _ms(ctx, c.before_idx),
                "to": _ms(ctx, c.after_idx),
                "from_pos": ctx.position(c.before_idx),
                "to_pos": ctx.position(c.after_idx),
                "size": c.size if math.isfinite(c.size) else None,
                "regression": c.regression,
                "unconfirmed": c.unconfirmed,
                **change_facts(layout.INDEX, c, ctx.times),  # links from the site's root
                "open": layout.series_page(c.culprit.drill)
                if c.culprit is not None
                else layout.checkout_page(ctx.id, c.after_idx),
            }
            for c in ctx.changes
            if _known(ctx, c.before_idx) and _known(ctx, c.after_idx)
        ],
        "episodes": [
            {
                "key": layout.plot_key(e.test, _unit_of(specs, e.test, e.name)),
                "name": e.name,
                "kind": e.kind,
                "from": _ms(ctx, e.first_idx),
                "to": _ms(ctx, e.last_idx),
                "from_pos": ctx.position(e.first_idx),
                "to_pos": ctx.position(e.last_idx),
                "span": _span(ctx, e.first_idx, e.last_idx),
                "size": _finite(e.size),
                "before": _finite(e.before),
                "after": _finite(e.after),
                "worse": e.worse,
            }
            for e in ctx.episodes
            if _known(ctx, e.first_idx) and _known(ctx, e.last_idx)
        ],
    }
    if ctx.variants or is_variant(series):  # its lines on its walk's plots are named by it
        meta["variant"] = series.variant_name
    if ctx.columns:  # a checkout page links the same checkout in the other variants
        meta["pages"]["variants"] = [[name, sid] for name, sid in ctx.columns]
    payload = json.dumps(meta, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return f"perfwalk.meta({ctx.id},{payload});\n"


def recorded_facts(series: SeriesRow, test: str) -> dict[str, Any]:
    """What the walk recorded of ``test`` that its plots show: its ``description``
    (under the plot's title), its ``group``, and for a sweep's member its ``family``
    (the sweep's name) and ``sweep`` (its parameters), by which a page can draw the
    members as one family; nothing that was not recorded."""
    recorded = series.commands.get("tests")
    own = recorded.get(test) if isinstance(recorded, dict) else None
    if not isinstance(own, dict):
        return {}
    return {key: own[key] for key in ("description", "group", "family", "sweep") if key in own}


def ranged_letters(series: SeriesRow, checkouts: Sequence[CheckoutRow]) -> set[str]:
    """The letters of the quirks that hold over a range (a patch, build steps, a test
    replaced), as the walk recorded them with its commands; for a series stored before
    they were recorded there, the letters that mark more than one checkout."""
    recorded = series.commands.get("quirks")
    if isinstance(recorded, dict) and all(isinstance(v, dict) for v in recorded.values()):
        return {letter for letter, quirk in recorded.items() if quirk.get("range")}
    marks = Counter(letter for checkout in checkouts for letter in checkout.quirks)
    return {letter for letter, count in marks.items() if count > 1}


def quirk_range(
    ctx: SeriesContext, ranged: set[str], letter: str, at: datetime
) -> list[float] | None:
    """Where a quirk over a range is shaded: [from, to] in ms, then in checkout
    positions, from its start to halfway past the last checkout it marks (to the last
    checkout when it holds to the end); None for a quirk without a range, or one that
    marks no checkout of the series."""
    rows = ctx.checkouts
    if letter not in ranged:
        return None
    marked = [pos for pos, row in enumerate(rows) if letter in row.quirks]
    if not marked:
        return None
    first, last = marked[0], marked[-1]

    def ms(pos: int) -> int:
        return int(rows[pos].date.timestamp() * 1000)

    start = min(int(at.timestamp() * 1000), ms(first))
    end = (ms(last) + ms(last + 1)) // 2 if last + 1 < len(rows) else ms(last)
    return [start, end, max(first - 0.5, 0), min(last + 0.5, len(rows) - 1)]


def _span(ctx: SeriesContext, first: int, last: int) -> list[float]:
    """Where an excursion is shaded: [from, to] in ms, then in checkout positions,
    reaching halfway to the checkouts around it, so one of a single checkout shows."""
    start, end = ctx.position(first), ctx.position(last)
    rows = ctx.checkouts

    def ms(pos: int) -> int:
        return int(rows[pos].date.timestamp() * 1000)

    low = (ms(start - 1) + ms(start)) // 2 if start > 0 else ms(start)
    high = (ms(end) + ms(end + 1)) // 2 if end + 1 < len(rows) else ms(end)
    return [low, high, max(start - 0.5, 0), min(end + 0.5, len(rows) - 1)]


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None  # JSON has no infinity


def _known(ctx: SeriesContext, idx: int) -> bool:
    try:
        ctx.position(idx)
    except KeyError:
        return False
    return True


def _unit_of(specs: Sequence[PlotSpec], test: str, name: str) -> str:
    for spec in specs:
        if spec.test == test and name in spec.names:
            return spec.unit
    return ""


def plot_divs(
    series_ids: Sequence[int],
    specs: Sequence[PlotSpec],
    *,
    variants: bool = False,
    releases: Sequence[Release] = (),
) -> str:
    """One lazily drawn plot per spec key (pages at the site's root only); with
    ``variants`` (a walk and its variants' series, in its columns' order) each line is
    named by its variant; with ``releases``, the window selector above them."""
    if not specs:
        return ""
    seen: dict[str, PlotSpec] = {}
    for spec in specs:
        seen.setdefault(spec.key, spec)
    ordered = sorted(seen.values(), key=lambda s: (_in_order(s.test), s.unit))
    names = _value_names(specs)
    members = " ".join(str(i) for i in series_ids)
    named = ' data-variants="1"' if variants else ""
    divs = [
        f'<div class="plot" data-base="" data-series="{esc(members)}" data-key="{esc(s.key)}" '
        f'data-title="{esc(f"{s.test} [{format_unit(s.unit)}]")}" data-unit="{esc(s.unit)}" '
        f'data-file="{esc(_file_name(s))}" data-names="{esc(names[s.key])}"{named}>'
        "<noscript>plots need JavaScript</noscript></div>"
        for s in ordered
    ]
    return (
        "<h2>Plots</h2>\n"
        + release_window(releases)
        + '<div class="plots">\n'
        + "\n".join(divs)
        + "\n</div>"
    )


def _in_order(name: str) -> list[str | int]:
    """``name`` as it sorts among plots: its numbers by value, so that a sweep's
    members follow their parameters (``udp[size=64…`` before ``udp[size=512…``)."""
    return [int(part) if n % 2 else part for n, part in enumerate(re.split(r"(\d+)", name))]


def release_window(releases: Sequence[Release]) -> str:
    """The selector of the plots' window: all, each release to the next, the last to
    now (plot.js zooms every plot of the page to it and keeps it in the URL's hash as
    ``r=<first>:<last>``, the releases' places in date order); "" without releases."""
    if not releases:
        return ""
    options = ['<option value="">all</option>']
    for n, release in enumerate(releases):
        following = releases[n + 1].name if n + 1 < len(releases) else "now"
        end = str(n + 1) if n + 1 < len(releases) else ""
        options.append(
            f'<option value="{n}:{end}">release {esc(release.name)} → '
            + (f"release {esc(following)}" if end else "now")
            + "</option>"
        )
    return (
        '<p class="release-window"><label>window: <select id="release-window">'
        + "".join(options)
        + "</select></label></p>\n"
    )


def _value_names(specs: Sequence[PlotSpec]) -> dict[str, str]:
    """Per plot key, the value names its lines may show, one per line (what the page's
    filter box finds a plot by, besides its title)."""
    found: dict[str, dict[str, None]] = {}
    for spec in specs:
        found.setdefault(spec.key, {}).update(dict.fromkeys(spec.names))
    return {key: "\n".join(names) for key, names in found.items()}


def findings_key(*, changes: bool, episodes: bool, failures: bool = False) -> str:
    """What the marks on the plots mean, when there are any."""
    if not changes and not episodes and not failures:
        return ""
    told = []
    if changes:
        told.append(
            "shaded vermillion: a regression, bluish green: an improvement, grey: a change not "
            "confirmed (between the two checkouts of the step), each with an arrow where the "
            "value went (▲ up, ▼ down) and its word (better, worse)"
        )
    if episodes:
        told.append(
            "shaded blue: an excursion (values that went away from their level for a few "
            "checkouts and came back); dashed blue line: a drift (a level that moved "
            "slowly, without a step). Neither is a change or a regression"
        )
    if failures:
        told.append(
            "✕ at the bottom: a checkout whose build failed or whose test did not pass, "
            "coloured by its status (the line has a gap there when it has no value; "
            "a click opens the checkout)"
        )
    return '<p class="plot-key">Plots: ' + "; ".join(told) + ".</p>\n"


def _file_name(spec: PlotSpec) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in f"{spec.test}-{spec.unit}")
