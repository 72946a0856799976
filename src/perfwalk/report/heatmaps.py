"""The histograms of a series on its pages: a heatmap over the checkouts on the
series page (x the checkout, y a range of values, colour the share of the checkout's
samples in that range, all its repetitions' histograms added up), drawn by the site's
heatmap.js with the plotting library; and each repetition's histogram, in the data
of its checkout page (pages.js draws it as bars).

A heatmap's value ranges are shared by all its checkouts: :data:`BINS` ranges from
the lowest to the highest bound any bucket has, spaced by ratio (log) when the values
span more than a factor :data:`LOG_SPAN` and are all above 0, else evenly. A bucket's
samples are spread over the ranges it overlaps, in proportion; a bucket at one value
(``low == high``) counts in the range that holds it. Every text reaches the page
escaped (a data attribute the script reads as JSON, shown as text by the library).
"""

from __future__ import annotations

import bisect
import json
import math
from collections import defaultdict
from collections.abc import Sequence

from perfwalk.model import Histogram
from perfwalk.quantities import format_value
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc
from perfwalk.store.histograms import HistogramRow

BINS = 32
LOG_SPAN = 20.0


def by_checkout(rows: Sequence[HistogramRow]) -> dict[int, tuple[HistogramRow, ...]]:
    """``rows`` grouped by checkout index."""
    grouped: dict[int, list[HistogramRow]] = defaultdict(list)
    for row in rows:
        grouped[row.idx].append(row)
    return {idx: tuple(found) for idx, found in grouped.items()}


def edges(histograms: Sequence[Histogram]) -> list[float]:
    """The bounds of the value ranges shared by ``histograms`` (``BINS + 1`` of them)."""
    filled = [(low, high) for h in histograms for low, high, count in h.buckets if count > 0]
    low = min((lo for lo, _ in filled), default=0.0)
    high = max((hi for _, hi in filled), default=0.0)
    if high <= low:
        return [low, low + 1.0]
    if low > 0 and high / low > LOG_SPAN:
        ratio = math.log(high / low)
        return [low * math.exp(ratio * n / BINS) for n in range(BINS + 1)]
    return [low + (high - low) * n / BINS for n in range(BINS + 1)]


def spread(histogram: Histogram, bounds: Sequence[float]) -> list[float]:
    """The samples of ``histogram`` in each range between ``bounds``."""
    counts = [0.0] * (len(bounds) - 1)
    last = len(counts) - 1
    for low, high, count in histogram.buckets:
        if count <= 0:
            continue
        if high <= low:
            counts[min(max(bisect.bisect_right(bounds, low) - 1, 0), last)] += count
            continue
        for n in range(len(counts)):
            overlap = min(high, bounds[n + 1]) - max(low, bounds[n])
            if overlap > 0:
                counts[n] += count * overlap / (high - low)
    return counts


def _key(row: HistogramRow) -> tuple[str, str]:
    return row.test, row.histogram.name


def heatmap_data(ctx: SeriesContext, at: str) -> list[dict[str, object]]:
    """The data of each heatmap of a series' page at ``at``: one per test and
    histogram name, its checkouts in the series' order."""
    per_key: dict[tuple[str, str], dict[int, list[Histogram]]] = defaultdict(dict)
    for idx, rows in ctx.histograms.items():
        for row in rows:
            per_key[_key(row)].setdefault(idx, []).append(row.histogram)
    found: list[dict[str, object]] = []
    for (test, name), checkouts in sorted(per_key.items()):
        order = sorted(checkouts, key=ctx.position)
        bounds = edges([h for idx in order for h in checkouts[idx]])
        unit = checkouts[order[0]][0].unit
        cells = []
        for x, idx in enumerate(order):
            counts = [
                sum(c) for c in zip(*(spread(h, bounds) for h in checkouts[idx]), strict=True)
            ]
            total = sum(counts)
            cells += [[x, y, round(c / total, 4)] for y, c in enumerate(counts) if c > 0]
        shas = [ctx.checkouts[ctx.position(idx)].sha[:10] for idx in order]
        found.append(
            {
                "title": f"{test}: {name} [{unit}]",
                "x": [f"{idx} · {sha}" for idx, sha in zip(order, shas, strict=True)],
                "href": [layout.href(at, layout.checkout_page(ctx.id, idx)) for idx in order],
                "y": [
                    f"{format_value(bounds[n], unit)} – {format_value(bounds[n + 1], unit)}"
                    for n in range(len(bounds) - 1)
                ],
                "edges": bounds,
                "cells": cells,
            }
        )
    return found


def heatmap_section(ctx: SeriesContext, at: str) -> str:
    """The series page's section of heatmaps ("" when its tests reported no histogram)."""
    maps = heatmap_data(ctx, at)
    if not maps:
        return ""
    divs = "".join(
        f"<h3>{esc(data['title'])}</h3>\n"
        f'<div class="heatmap" data-heatmap="{esc(_json(data))}" role="img" '
        f'aria-label="{esc(data["title"])}"></div>\n'
        for data in maps
    )
    return (
        '<h2 id="histograms">Distributions</h2>\n'
        "<p>Each column is a checkout, all its repetitions' samples; each row a range "
        "of values; the darker a cell, the larger the share of the checkout's samples in "
        "that range. Their percentiles are plotted above as values (derived from these "
        "histograms). A click opens the checkout, with each repetition's histogram.</p>\n" + divs
    )


def checkout_histograms(rows: Sequence[HistogramRow]) -> list[list[object]]:
    """A checkout's histograms for its page's data: [test, repetition, name, unit,
    [[low, high, count]…]] each."""
    return [
        [
            r.test,
            r.repetition,
            r.histogram.name,
            r.histogram.unit,
            [list(b) for b in r.histogram.buckets],
        ]
        for r in rows
    ]


def _json(document: object) -> str:
    return json.dumps(document, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
