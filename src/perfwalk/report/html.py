"""Building blocks of pages: escaping, the page frame, links, cells, legends.

Every text that reaches a page goes through :func:`esc` (commit messages, author
names, test output and log lines are untrusted); control characters other than
tab and newline are shown as visible escapes so ANSI colour codes do nothing.
Pages carry a Content-Security-Policy that allows scripts from the site's own
files only: even a bug in escaping could not run an injected inline script.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from perfwalk.model import STATUS_MEANING, Status
from perfwalk.quantities import format_share, format_value
from perfwalk.report import layout
from perfwalk.report.times import SiteTimes
from perfwalk.untrusted import show_controls

_SPECIAL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069&<>\"']")

#: scripts and styles from the site's own files only; no inline script, no network
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'none'; base-uri 'none'; form-action 'none'"
)


#: the class of an element that flame.js draws: a page holding one loads the renderer
FLAME_CLASS = "pw-flame"


def has_flame(body: str) -> bool:
    """Whether the HTML ``body`` holds a flame graph to draw (see ``page(flame=…)``)."""
    return f'class="{FLAME_CLASS}"' in body


def esc(text: object) -> str:
    """``text`` safe inside HTML text and attribute values."""
    text = str(text)
    if _SPECIAL.search(text) is None:  # most texts: nothing to do
        return text
    visible = show_controls(text)
    return html.escape(visible, quote=True)


def number(value: float | None, unit: str = "") -> str:
    """A value as pages show it, with its unit (perfwalk.quantities)."""
    return format_value(value, unit)


def percent(value: float) -> str:
    """A fraction as a percentage (``2.5 %``; perfwalk.quantities)."""
    return format_share(value)


def page(
    at: str,
    title: str,
    body: str,
    *,
    crumbs: Sequence[tuple[str, str]] = (),
    plots: bool = False,
    heatmaps: bool = False,
    drawn: bool = False,
    flame: bool = False,
    night: bool = False,
    sweeps: bool = False,
    feed: str | None = None,
    times: SiteTimes | None = None,
) -> str:
    """A whole page at site path ``at``: ``crumbs`` are (path, label) links above the
    title; ``plots`` loads the plotting library and the site's plot script;
    ``heatmaps`` the library and the script that draws the page's heatmaps; ``drawn``
    loads the script that draws the page from the site's data files; ``flame`` loads
    the flame graph renderer, its style and the script that draws the page's flame
    graphs; ``sweeps`` (with ``plots``) the script that draws the sweep families'
    profiles; ``night`` the script that checks the index's "last night" strip; ``feed``
    (a site path) is announced as the page's Atom feed; ``times`` (on a
    page that shows times) says their zone once, under the title."""
    up = layout.href(at, layout.STYLE)
    scripts = (  # the plot script first: it starts loading data while the library parses
        f'<script src="{esc(layout.href(at, layout.SCALES_JS))}" defer></script>\n'
        f'<script src="{esc(layout.href(at, layout.TICKS_JS))}" defer></script>\n'
        f'<script src="{esc(layout.href(at, layout.PLOT_JS))}" defer></script>\n'
        f'<script src="{esc(layout.href(at, layout.LIBRARY_JS))}" defer></script>\n'
        + (
            f'<script src="{esc(layout.href(at, layout.SWEEP_JS))}" defer></script>\n'
            if sweeps
            else ""
        )
        if plots
        else ""
    )
    if heatmaps:
        if not plots:
            scripts += f'<script src="{esc(layout.href(at, layout.LIBRARY_JS))}" defer></script>\n'
        scripts += f'<script src="{esc(layout.href(at, layout.HEATMAP_JS))}" defer></script>\n'
    if drawn:
        scripts += f'<script src="{esc(layout.href(at, layout.PAGES_JS))}" defer></script>\n'
    if plots or heatmaps or drawn or flame:  # deferred scripts run in order: the formatter first
        scripts = (
            f'<script src="{esc(layout.href(at, layout.FORMAT_JS))}" defer></script>\n' + scripts
        )
    if flame:
        scripts += (
            f'<link rel="stylesheet" href="{esc(layout.href(at, layout.FLAME_CSS))}">\n'
            f'<script src="{esc(layout.href(at, layout.SELECTION_JS))}" defer></script>\n'
            f'<script src="{esc(layout.href(at, layout.FLAME_LIBRARY_JS))}" defer></script>\n'
            f'<script src="{esc(layout.href(at, layout.FLAME_JS))}" defer></script>\n'
        )
    if night:
        scripts += f'<script src="{esc(layout.href(at, layout.NIGHT_JS))}" defer></script>\n'

    alternate = (
        '<link rel="alternate" type="application/atom+xml" title="changes" '
        f'href="{esc(layout.href(at, feed))}">\n'
        if feed
        else ""
    )
    nav = (
        '<nav class="crumbs">'
        + " › ".join(link(layout.href(at, path), label) for path, label in crumbs)
        + "</nav>\n"
        if crumbs
        else ""
    )
    zone = f'<p class="zone">{esc(times.said())}</p>\n' if times is not None else ""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n"
        '<link rel="icon" href="data:,">\n'
        f'<link rel="stylesheet" href="{esc(up)}">\n{alternate}{scripts}'
        f"</head>\n<body>\n{nav}<h1>{esc(title)}</h1>\n{zone}{body}\n</body>\n</html>\n"
    )


def link(href: str, text: str, *, title: str | None = None, css: str | None = None) -> str:
    tip = f' title="{esc(title)}"' if title else ""
    cls = f' class="{esc(css)}"' if css else ""
    return f'<a href="{esc(href)}"{tip}{cls}>{esc(text)}</a>'


def status_cell(status: Status | None, href: str | None = None, title: str = "") -> str:
    if status is None:
        return "<td></td>"
    text = link(href, status.name, title=title or None) if href else esc(status.name)
    tip = f' title="{esc(title)}"' if title and not href else ""
    return f'<td class="{status.name}"{tip}>{text}</td>'


def table(header: Sequence[str], rows: Iterable[Sequence[str]], *, css: str = "") -> str:
    """A table whose cells are ready HTML (``<td>…</td>`` or ``<th>…</th>``)."""
    cls = f' class="{esc(css)}"' if css else ""
    head = "<thead><tr>" + "".join(header) + "</tr></thead>"
    body = "\n".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return f"<table{cls}>\n{head}\n<tbody>\n{body}\n</tbody>\n</table>"


def newest_first(table_html: str) -> str:
    """A table of checkouts as columns in a box that scrolls sideways and opens at its
    right end, the newest checkouts (style.css: ``div.pw-newest``, no script needed)."""
    return f'<div class="pw-newest">\n{table_html}\n</div>'


def status_legend() -> str:
    """What each status means, collapsed (shown once per page)."""
    rows = [
        [
            f'<td class="{s.name}">{s.name}</td>',
            f"<td>{s.severity}</td>",
            f'<td class="name">{esc(STATUS_MEANING[s])}</td>',
        ]
        for s in Status
    ]
    return collapsed(
        "Statuses",
        table(
            ["<th>status</th>", "<th>severity</th>", '<th class="name">meaning</th>'],
            rows,
            css="legend",
        ),
    )


def collapsed(title: str, body: str, *, css: str = "legend") -> str:
    """A legend that opens on a click: ``title`` (text) as its heading, ``body`` (HTML)."""
    return (
        f'<details class="{esc(css)}"><summary><h2>{esc(title)}</h2></summary>\n{body}\n'
        "</details>\n"
    )


@dataclass(frozen=True)
class QuirkRow:
    """A quirk as a legend lists it: its letter, date, comment, and the series it marks
    (each series' setup page shows the quirk's commands and patch at ``#quirk-<letter>``)."""

    letter: str
    date: str
    comment: str
    series: tuple[int, ...] = ()


def quirk_anchor(letter: str) -> str:
    """The anchor of a quirk on a series' setup page."""
    return "quirk-" + "".join(ch if ch.isalnum() else "_" for ch in letter)


def quirk_legend(quirks: Sequence[QuirkRow], at: str = layout.INDEX) -> str:
    """The quirks of a page, each once, collapsed; a letter links to its commands and
    patch on the setup page of the series it marks (of each, when several); nothing
    when there are no quirks."""
    if not quirks:
        return ""
    several = len({sid for q in quirks for sid in q.series}) > 1

    def where(q: QuirkRow) -> str:
        links = [
            link(
                layout.href(at, layout.setup_page(sid)) + "#" + quirk_anchor(q.letter),
                f"series {sid}" if several else "commands and patch",
            )
            for sid in q.series
        ]
        return ", ".join(links)

    rows = [
        [
            f'<td class="quirk">{esc(q.letter)}</td>',
            f"<td>{esc(q.date)}</td>",
            f'<td class="name">{esc(q.comment)}</td>',
            f'<td class="name">{where(q)}</td>',
        ]
        for q in quirks
    ]
    return collapsed(
        "Quirks",
        table(
            [
                "<th>quirk</th>",
                "<th>date</th>",
                '<th class="name">comment</th>',
                '<th class="name">what it ran</th>',
            ],
            rows,
            css="legend",
        ),
    )
