"""The data behind the plots (script files the site's plot.js reads) and the places
on a page where plots go.

A plot shows one test's values of one unit: x is the checkout date (or commit
order), every repetition a point, each checkout's summary a line, one colour per
series and value name; quirks are lettered vertical lines, detected changes shaded.
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from perfwalk.model import Status
from perfwalk.report import layout
from perfwalk.report.collect import CheckoutData
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc


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
    ctx: SeriesContext, block_no: int, block: Sequence[CheckoutData]
) -> dict[str, tuple[str, str, tuple[str, ...], str]]:
    """The data file of every plot key of one block: key → (test, unit, names, text)."""
    checkouts = [
        [c.row.idx, int(c.row.date.timestamp() * 1000), c.row.sha[:12], ctx.position(c.row.idx)]
        for c in block
    ]
    grouped: dict[tuple[str, str], dict[str, dict[str, list[float | int | None]]]] = {}
    for pos, c in enumerate(block):
        for key, points in c.points.items():
            names = grouped.setdefault((key.test, key.unit), {})
            own = names.get(key.name)
            if own is None:
                own = names[key.name] = {"s": [None] * len(block), "pc": [], "pr": [], "py": []}
            summary = c.summaries.get(key)
            if summary is not None:
                own["s"][pos] = summary.summary
            pc, pr, py = own["pc"], own["pr"], own["py"]
            for rep, value, status in points:
                if status is Status.PASS and not math.isnan(value):
                    pc.append(pos)
                    pr.append(rep)
                    py.append(value)
    files = {}
    for (test, unit), names in grouped.items():
        plot = layout.plot_key(test, unit)
        payload = json.dumps({"c": checkouts, "n": names}, separators=(",", ":"), allow_nan=False)
        text = f"perfwalk.block({ctx.id},{json.dumps(plot)},{block_no},{payload});\n"
        files[plot] = (test, unit, tuple(names), text)
    return files


def meta_file(ctx: SeriesContext, specs: Sequence[PlotSpec]) -> str:
    """The series' plot metadata: its plots, quirks and changes."""
    dates = [c.date for c in ctx.checkouts]

    def position_at(moment: datetime) -> int | None:
        pos = bisect.bisect_left(dates, moment)
        return pos if pos < len(dates) else None

    meta = {
        "name": f"series {ctx.id}: {ctx.series.name}",
        "keys": {
            s.key: {
                "test": s.test,
                "unit": s.unit,
                "names": list(s.names),
                "blocks": list(s.blocks),
                "sealed": list(s.sealed),
                "seal": layout.SEAL,
            }
            for s in specs
        },
        "quirks": [
            [q.letter, int(q.at_date.timestamp() * 1000), q.comment, position_at(q.at_date)]
            for q in ctx.series.quirks
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
            }
            for c in ctx.changes
            if _known(ctx, c.before_idx) and _known(ctx, c.after_idx)
        ],
    }
    payload = json.dumps(meta, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return f"perfwalk.meta({ctx.id},{payload});\n"


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


def plot_divs(series_ids: Sequence[int], specs: Sequence[PlotSpec]) -> str:
    """One lazily drawn plot per spec key (pages at the site's root only)."""
    if not specs:
        return ""
    seen: dict[str, PlotSpec] = {}
    for spec in specs:
        seen.setdefault(spec.key, spec)
    ordered = sorted(seen.values(), key=lambda s: (s.test, s.unit))
    members = " ".join(str(i) for i in series_ids)
    divs = [
        f'<div class="plot" data-base="" data-series="{esc(members)}" data-key="{esc(s.key)}" '
        f'data-title="{esc(f"{s.test} [{s.unit}]")}" data-unit="{esc(s.unit)}" '
        f'data-file="{esc(_file_name(s))}"><noscript>plots need JavaScript</noscript></div>'
        for s in ordered
    ]
    return '<h2>Plots</h2>\n<div class="plots">\n' + "\n".join(divs) + "\n</div>"


def _file_name(spec: PlotSpec) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in f"{spec.test}-{spec.unit}")
