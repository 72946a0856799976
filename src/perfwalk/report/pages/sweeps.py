"""The places of a series page where its sweep families are drawn as profiles (a
value against the swept parameter, one line per checkout range:
:mod:`perfwalk.report.sweep_profiles`); sweep.js draws them from the data each place
carries (JSON in an attribute, shown as text, never markup)."""

from __future__ import annotations

import json

from perfwalk.quantities import format_unit
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc
from perfwalk.report.sweep_profiles import Profile, ProfileLine, profiles


def sweep_divs(ctx: SeriesContext) -> str:
    """The series' sweep profiles, one place each; "" when it has none."""
    found = profiles(ctx)
    if not found:
        return ""
    divs = [
        f'<div class="sweep-plot" data-title="{esc(p.title)}" '
        f'data-profile="{esc(_data(ctx, p))}"><noscript>plots need JavaScript</noscript></div>'
        for p in found
    ]
    return (
        "<h2>Sweeps</h2>\n<p>Each family's value against its swept parameter, one line per "
        "range of checkouts between the changes found in its members (the median of each "
        "member's summaries there); each member's history is its own plot below.</p>\n"
        '<div class="plots">\n' + "\n".join(divs) + "\n</div>\n"
    )


def _label(ctx: SeriesContext, line: ProfileLine) -> str:
    """A line's range: its checkouts and their dates."""
    first = ctx.times.minute(ctx.checkouts[ctx.position(line.first)].date)
    if line.first == line.last:
        return f"checkout {line.first} ({first})"
    last = ctx.times.minute(ctx.checkouts[ctx.position(line.last)].date)
    return f"checkouts {line.first}–{line.last} ({first} … {last})"


def _data(ctx: SeriesContext, p: Profile) -> str:
    return json.dumps(
        {
            "title": p.title,
            "unit": p.unit,
            "unit_shown": format_unit(p.unit),
            "direction": p.direction,
            "parameter": p.parameter,
            "xs": list(p.xs),
            "lines": [
                {"label": _label(ctx, line), "values": list(line.values)} for line in p.lines
            ],
        },
        ensure_ascii=False,
        allow_nan=False,
        separators=(",", ":"),
    )
