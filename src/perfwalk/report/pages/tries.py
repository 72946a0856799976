"""A try's page and the index's "Tries".

A try (``perfwalk try``) is a series of kind ``try``: checkout 0 is side A (the base
commit), checkout 1 side B (the head commit, or the base commit with patches or a
variant); :mod:`perfwalk.store.tries` keeps what B is, the patches' text, the verdict
of the sequential test per metric and why it stopped. Its page (the series' own page,
``series-N.html``) shows the two sides (commits, builds with their logs), the verdict
per metric, then per metric both sides' values in the order measured and ministat's
text of A against B, the patches, and the two checkouts as a series table shows them.

Patch text, commit subjects, test and metric names and the reasons are untrusted:
every one goes through :func:`esc`.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from perfwalk.analysis.ministat import CONFIDENCE_LEVELS, Sample, report
from perfwalk.config.model import Config
from perfwalk.model import Commit
from perfwalk.quantities import format_change, format_unit
from perfwalk.report import layout
from perfwalk.report.collect import CheckoutData, Policies, metrics_of, read_block
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import (
    esc,
    has_flame,
    link,
    number,
    page,
    status_cell,
    status_legend,
    table,
)
from perfwalk.report.pages.profiles import (
    ProfilePair,
    least_samples,
    profile_section,
    stored_diff_file,
    stored_pair,
    stored_profiles,
)
from perfwalk.report.times import SiteTimes
from perfwalk.store import SeriesRow, Store
from perfwalk.store.tries import TryRow

#: the verdicts from the worst to the best: the index shows a try's worst
VERDICTS = ("worse", "undecided", "same", "better")
_WORDS = {
    "worse": "B worse",
    "better": "B better",
    "same": "same",
    "undecided": "undecided",
}
#: a patch longer than this (lines) is folded
FOLD_LINES = 40


@dataclass(frozen=True)
class TrySide:
    """One side of a try as its page shows it: its checkout's data (None before it was
    added), its commit (None when the store has not got it) and per metric (test, name)
    its PASS values by repetition, in the order measured (None: no PASS value)."""

    name: str  # A or B
    data: CheckoutData | None
    commit: Commit | None
    values: Mapping[tuple[str, str], Sequence[float | None]]


@dataclass(frozen=True)
class TryListing:
    """What the index shows of a try."""

    series: SeriesRow
    row: TryRow

    @property
    def worst(self) -> str | None:
        """The worst verdict of its metrics; None before it decided."""
        found = {str(v.get("verdict")) for v in self.row.verdicts}
        return next((v for v in VERDICTS if v in found), None)


def b_described(row: TryRow) -> str:
    """What side B is: "0123abcd4567", "0123abcd4567 + fast.diff", "… as variant notso"."""
    told = row.head_sha[:12]
    if row.patches:
        told += " + " + ", ".join(name for name, _text in row.patches)
    if row.variant is not None:
        told += f" as variant {row.variant}"
    return told


def metric_anchor(test: str, name: str) -> str:
    """A stable id for a metric's section (test and value names may hold anything)."""
    key = f"{test}\0{name}".encode()
    return "metric-" + hashlib.sha1(key, usedforsecurity=False).hexdigest()[:10]


# -- reading ----------------------------------------------------------------------------


def try_sections(
    store: Store,
    contexts: Mapping[int, SeriesContext],
    tries: Sequence[TryRow],
    written: Callable[[str], bool] = lambda _path: False,
    config: Config | None = None,
) -> tuple[dict[int, str], dict[str, str]]:
    """The try section of every try's page (all but the checkouts' table), by series
    id; and the data files of their differential profiles (site path → text) that
    ``written`` says the site lacks (a try's profiles never change); ``config`` says
    the samples a profile should have."""
    sections = {}
    files: dict[str, str] = {}
    for row in tries:
        ctx = contexts.get(row.series_id)
        if ctx is None:
            continue
        rows = [c for c in ctx.checkouts if c.idx in (0, 1)]
        data = {one.row.idx: one for one in read_block(store, ctx.id, rows, Policies(None))}
        sides = []
        for name, sha, idx in (("A", row.base_sha, 0), ("B", row.head_sha, 1)):
            one = data.get(idx)
            commit = None
            if one is not None:
                commit = next((c for c in store.commits_since(one.row.id) if c.id == sha), None)
            sides.append(TrySide(name, one, commit, _values(one)))
        pair = None
        both = _profiled(ctx)
        if both is not None:
            test, ids = both
            labels = (f"A {row.base_sha[:12]}", f"B {row.head_sha[:12]}")
            profiles = stored_profiles(store, ids)
            if profiles is not None:
                pair = stored_pair(test, profiles, labels, least_samples(config, test))
                if not written(layout.profile_diff_data(ctx.id, test)):
                    path, text = stored_diff_file(ctx.id, pair, profiles)
                    files[path] = text
        sections[row.series_id] = try_section(ctx, row, sides, pair)
    return sections, files


def _profiled(ctx: SeriesContext) -> tuple[str, tuple[int, int]] | None:
    """The first test profiled on both sides (A: checkout 0, B: checkout 1), with the
    ids of A's profile and B's (the extra runs' first)."""
    a = dict(reversed(ctx.profiles.get(0, ())))
    b = dict(reversed(ctx.profiles.get(1, ())))
    for test in sorted(a.keys() & b.keys()):
        return test, (a[test], b[test])
    return None


def _values(data: CheckoutData | None) -> dict[tuple[str, str], list[float | None]]:
    """Per metric its PASS values by repetition (a metric with several units: the
    first)."""
    if data is None:
        return {}
    width = len(data.reps)
    found: dict[tuple[str, str], list[float | None]] = {}
    for m, key in enumerate(data.metrics):
        row = data.passed[m * width : (m + 1) * width]
        found.setdefault((key.test, key.name), [None if math.isnan(v) else v for v in row])
    return found


# -- the page ---------------------------------------------------------------------------


def try_title(ctx: SeriesContext, row: TryRow) -> str:
    return f"try {ctx.id}: {b_described(row)} against {row.base_sha[:12]}"


def try_page(ctx: SeriesContext, row: TryRow, section: str, newest_table: str) -> str:
    """The page of the try ``row`` (its series ``ctx``): ``section`` from
    :func:`try_sections`, then ``newest_table``, the table of its two checkouts."""
    at = layout.series_page(ctx.id)
    body = (
        section + "<h2>Both sides as checkouts</h2>\n<p>A is checkout 0, B checkout 1: their "
        "summaries, statuses and repetitions, as a walk's table shows them.</p>\n"
        + (newest_table or "<p>No checkout yet.</p>")
        + status_legend()
    )
    return page(
        at,
        try_title(ctx, row),
        body,
        crumbs=[(layout.INDEX, "all series")],
        flame=has_flame(section),
        times=ctx.times,
    )


def try_section(
    ctx: SeriesContext,
    row: TryRow,
    sides: Sequence[TrySide],
    profile: ProfilePair | None = None,
) -> str:
    """HTML for the try ``row``: facts, sides, verdicts, values per metric, patches;
    with ``profile`` (B's profile against A's), the differential profile after the
    verdicts (its data file: :func:`perfwalk.report.pages.profiles.profile_diff_file`)."""
    at = layout.series_page(ctx.id)
    return (
        _facts(at, ctx, row)
        + _sides(at, ctx, row, sides)
        + _verdicts(ctx.series, row)
        + profile_section(at, ctx.id, profile)
        + _metrics(row, sides)
        + _patches(row)
    )


def _facts(at: str, ctx: SeriesContext, row: TryRow) -> str:
    s = ctx.series
    when = ctx.times.minute(s.started_at)
    return (
        f"<p>try of {esc(s.project)} · started {esc(when)} · {esc(s.state)} · "
        f"host {esc(s.host)} · at {row.confidence:g} % confidence, at most "
        f"{row.max_repetitions} repetitions a side · "
        + link(layout.href(at, layout.setup_page(s.id)), "setup")
        + "</p>\n"
    )


def _sides(at: str, ctx: SeriesContext, row: TryRow, sides: Sequence[TrySide]) -> str:
    """A and B: commit (to the commit log of its checkout, and to the web viewer), its
    subject, what B adds, the build (to its log), repetitions, the checkout page."""

    def to(path: str) -> str:
        return layout.href(at, path)

    rows = []
    for one in sides:
        sha = row.base_sha if one.name == "A" else row.head_sha
        data = one.data
        if data is None:
            commit = f"<code>{esc(sha[:12])}</code>"
            build, logs, checkout, count = "<td></td>", "", "", "0"
        else:
            idx = data.row.idx
            commit = link(
                to(layout.commits_page(ctx.id, idx, layout.commit_anchor(sha))),
                sha[:12],
                title=f"the commit log of side {one.name}",
            )
            build = status_cell(
                data.row.build_status,
                to(layout.logs_page(ctx.id, idx, layout.log_anchor(data.row.build_log_id)))
                if data.row.build_log_id
                else None,
                f"the build log of side {one.name}"
                + (
                    f" ({data.row.build_seconds:.1f} s)"
                    if data.row.build_seconds is not None
                    else ""
                ),
            )
            logs = link(to(layout.logs_page(ctx.id, idx)), "logs")
            checkout = link(to(layout.checkout_page(ctx.id, idx)), f"checkout {idx}")
            count = str(len(data.reps))
        viewer = ctx.commit_href(sha)
        if viewer:
            commit += " " + link(viewer, "↗", title=f"{sha} in the web viewer")
        subject = esc(one.commit.subject) if one.commit is not None else ""
        adds = ""
        if one.name == "B":
            words = [f"+ patch {esc(name)}" for name, _text in row.patches]
            if row.variant is not None:
                words.append(f"as variant {esc(row.variant)}")
            adds = "<br>".join(words)
        rows.append(
            [
                f"<th>{one.name}</th>",
                f'<td class="name">{commit}</td>',
                f'<td class="name">{subject}</td>',
                f'<td class="name">{adds}</td>',
                build,
                f"<td>{logs}</td>",
                f"<td>{count}</td>",
                f"<td>{checkout}</td>",
            ]
        )
    header = [
        "<th>side</th>",
        '<th class="name">commit</th>',
        '<th class="name">subject</th>',
        '<th class="name">with</th>',
        "<th>build (its log)</th>",
        "<th>all logs</th>",
        "<th>repetitions</th>",
        "<th>checkout</th>",
    ]
    return table(header, rows, css="try-sides") + "\n"


def _percent(value: object) -> str:
    return format_change(value) if isinstance(value, float | int) else "–"


def verdict_css(verdict: object) -> str:
    """The class of a verdict's cell (one of VERDICTS; ``unknown`` for anything else)."""
    return f"verdict {verdict}" if verdict in VERDICTS else "verdict unknown"


def _verdicts(series: SeriesRow, row: TryRow) -> str:
    if not row.verdicts:
        if series.state == "running":
            told = "No verdict yet: the try is running."
        else:  # a side that did not build, a test without values, Ctrl-C
            told = f"No verdict: the try ended ({series.state}) before it decided."
        return f"<h2>Verdicts</h2>\n<p>{esc(told)}</p>\n"
    rows = []
    for v in row.verdicts:
        test, name, verdict = str(v.get("test")), str(v.get("name")), v.get("verdict")
        p = v.get("mann_whitney_p")
        anchor = metric_anchor(test, name)
        rows.append(
            [
                f'<td class="name"><a href="#{anchor}">{esc(f"{test}.{name}")}</a>'
                f" <small>({esc(v.get('direction', '?'))} is better)</small></td>",
                f"<td>{esc(v.get('unit', ''))}</td>",
                f'<td class="{verdict_css(verdict)}">{esc(_WORDS.get(str(verdict), verdict))}</td>',
                f'<td class="change">{_percent(v.get("change"))} [{_percent(v.get("low"))},'
                f" {_percent(v.get('high'))}]</td>",
                f"<td>{esc(v.get('count_a', '?'))} + {esc(v.get('count_b', '?'))}</td>",
                f"<td>{f'{p:.3g}' if isinstance(p, float | int) else '–'}</td>",
                f'<td class="name">{esc(v.get("reason", ""))}</td>',
            ]
        )
    header = [
        '<th class="name">metric</th>',
        "<th>unit</th>",
        "<th>verdict</th>",
        "<th>change of B [interval]</th>",
        "<th>repetitions A + B</th>",
        "<th>Mann–Whitney p</th>",
        '<th class="name">why</th>',
    ]
    return (
        "<h2>Verdicts</h2>\n"
        f"<p>The sequential test at {row.confidence:g} % confidence, per metric. "
        f"Stopped: {esc(row.stopped or 'not yet')}.</p>\n"
        + table(header, rows, css="try-verdicts")
        + "\n"
    )


def _metrics(row: TryRow, sides: Sequence[TrySide]) -> str:
    """Per metric both sides' values by repetition and ministat's text of A against B."""
    keys = [(str(v.get("test")), str(v.get("name"))) for v in row.verdicts]
    units = {(str(v.get("test")), str(v.get("name"))): str(v.get("unit", "")) for v in row.verdicts}
    if not keys:  # still running: every metric measured so far
        found = metrics_of([one.data for one in sides if one.data is not None])
        keys = list(dict.fromkeys((key.test, key.name) for key in found))
        units = {(key.test, key.name): key.unit for key in reversed(found)}
    if not keys:
        return ""
    a, b = (sides[0].values, sides[1].values) if len(sides) == 2 else ({}, {})
    parts = [
        "<h2>Values</h2>\n<p>Measured in turns A B B A A B B A …: repetition <i>r</i> of "
        "each side in the same pair of turns. Only the values of passed tests count.</p>\n"
    ]
    for test, name in keys:
        left, right = a.get((test, name), ()), b.get((test, name), ())
        unit = units.get((test, name), "")
        title = f"{test}.{name}" + (f" [{format_unit(unit)}]" if unit else "")
        parts.append(
            f'<section id="{metric_anchor(test, name)}">\n<h3>{esc(title)}</h3>\n'
            + _value_table(left, right, unit)
            + _ministat(left, right, row.confidence)
            + "</section>\n"
        )
    return "".join(parts)


def _value_table(a: Sequence[float | None], b: Sequence[float | None], unit: str) -> str:
    def cell(values: Sequence[float | None], r: int) -> str:
        if r >= len(values):
            return "<td></td>"
        value = values[r]
        return (
            '<td title="no value: the test did not pass">–</td>'
            if value is None
            else (f"<td>{esc(number(value, unit))}</td>")
        )

    rows = [[f"<td>{r}</td>", cell(a, r), cell(b, r)] for r in range(max(len(a), len(b)))]
    return table(["<th>repetition</th>", "<th>A</th>", "<th>B</th>"], rows, css="try-values") + "\n"


def _ministat(a: Sequence[float | None], b: Sequence[float | None], confidence: float) -> str:
    left = tuple(v for v in a if v is not None)
    right = tuple(v for v in b if v is not None)
    if len(left) < 3 or len(right) < 3:
        return "<p>ministat needs three values a side.</p>\n"
    level = confidence if confidence in CONFIDENCE_LEVELS else 95.0
    text = report([Sample("A", left), Sample("B", right)], confidence=level, plot=False)
    return f'<pre class="ministat">{esc(text)}</pre>\n'


def _patches(row: TryRow) -> str:
    if not row.patches and row.variant is None:
        return ""
    parts = ["<h2>What B adds</h2>\n"]
    if row.variant is not None:
        parts.append(
            f"<p>B is measured as the variant <b>{esc(row.variant)}</b> of the configuration"
            " (see the setup).</p>\n"
        )
    for number_, (name, text) in enumerate(row.patches, 1):
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        told = f"patch {number_}: {name} ({lines} line{'' if lines == 1 else 's'})"
        pre = f'<pre class="patch">{esc(text)}</pre>'
        if lines > FOLD_LINES:
            parts.append(f"<details><summary>{esc(told)}</summary>{pre}</details>\n")
        else:
            parts.append(f"<h3>{esc(told)}</h3>\n{pre}\n")
    return "".join(parts)


# -- the index --------------------------------------------------------------------------


def tries_section(at: str, tries: Sequence[TryListing], times: SiteTimes) -> str:
    """The index's "Tries": newest first, when, A → B, the worst verdict, to its page;
    "" when there are none."""
    if not tries:
        return ""
    rows = []
    for one in sorted(tries, key=lambda t: (t.series.started_at, t.series.id), reverse=True):
        sid, row = one.series.id, one.row
        worst = one.worst
        if worst is None:
            verdict = f'<td class="verdict">{esc(one.series.state)}</td>'
        else:
            which = [
                f"{v.get('test')}.{v.get('name')}"
                for v in row.verdicts
                if v.get("verdict") == worst
            ]
            tip = f"{worst}: {', '.join(which)}"
            verdict = (
                f'<td class="{verdict_css(worst)}" title="{esc(tip)}">{esc(_WORDS[worst])}</td>'
            )
        rows.append(
            [
                f'<td class="name">{link(layout.href(at, layout.series_page(sid)), str(sid))}</td>',
                f"<td>{esc(times.minute(one.series.started_at))}</td>",
                f'<td class="name"><code>{esc(row.base_sha[:12])}</code> → '
                f"{esc(b_described(row))}</td>",
                verdict,
            ]
        )
    header = ['<th class="name">try</th>', "<th>started</th>", '<th class="name">A → B</th>']
    return "<h2>Tries</h2>\n" + table([*header, "<th>verdict</th>"], rows, css="tries") + "\n"
