"""One checkout: one column per repetition with every value, each status linking to
its log; the build, the quirks applied and the host fingerprint.

The site has one checkout page per series (``checkout.html``); pages.js draws the
checkout its link names from the data file of its block, written here: per checkout
its facts, the pack's repetitions and results (as the store wrote them), its values
and moments (float64, base64) and the summaries by each metric's policy.
"""

from __future__ import annotations

import base64
import json
from array import array
from collections.abc import Mapping, Sequence
from typing import Any

from perfwalk.report import layout
from perfwalk.report.collect import CheckoutData
from perfwalk.report.context import SeriesContext
from perfwalk.report.failures import Failure
from perfwalk.report.heatmaps import checkout_histograms
from perfwalk.report.html import page
from perfwalk.report.pages.build_facts import checkout_facts
from perfwalk.report.pages.series import needed, series_crumbs
from perfwalk.report.pages.table import row_anchor
from perfwalk.report.summaries import MetricKey
from perfwalk.store.packs import little_endian


def drawn_page(ctx: SeriesContext, kind: str, at: str, title: str) -> str:
    """The page of a series that pages.js fills (``kind``: checkout, logs, commits, log;
    the first and the third show dates: their zone is said)."""
    body = (
        f'<div id="pw-page" data-kind="{kind}" data-series="{ctx.id}">'
        '<p class="pw-wait">loading…</p>'
        "<noscript>This page is drawn by a script of the site: allow JavaScript.</noscript>"
        "</div>"
    )
    crumbs = [*series_crumbs(ctx.series), (layout.series_page(ctx.id), f"series {ctx.id}")]
    dated = kind in ("checkout", "commits")
    return page(at, title, body, crumbs=crumbs, drawn=True, times=ctx.times if dated else None)


def checkout_shell_page(ctx: SeriesContext) -> str:
    return drawn_page(
        ctx, "checkout", layout.checkout_shell(ctx.id), f"checkout of series {ctx.id}"
    )


def checkout_data_file(
    ctx: SeriesContext,
    block_no: int,
    block: Sequence[CheckoutData],
    failures: Mapping[int, Sequence[Failure]] | None = None,
) -> str:
    """``perfwalk.checkouts(series, block, {...})``: every checkout of one block, each
    with its profiles (the context's: test, profile id), which its page links to their
    flame graphs (``layout.profile_page``), and its ``failures`` (by checkout index: a
    failed build, the tests that did not pass, each with the first error line and the
    last lines of its log), which its page shows first; what its parsers lost
    (the context's), which its page says next; and each repetition's histograms (the
    context's), which its page draws after its repetitions."""
    metrics: dict[MetricKey, int] = {}
    layouts: dict[tuple[MetricKey, ...], int] = {}
    entries = []
    for c in block:
        shape = tuple(c.metrics)
        at = layouts.get(shape)
        if at is None:
            at = layouts[shape] = len(layouts)
            for key in shape:
                metrics.setdefault(key, len(metrics))
        failed = failures.get(c.row.idx, ()) if failures else ()
        entries.append(_entry(ctx, c, at, ctx.profiles.get(c.row.idx, ()), failed))
    tests = sorted({test for c in block for test in c.statuses})
    head = {
        "metrics": [list(key) for key in metrics],
        "layouts": [[metrics[key] for key in shape] for shape in layouts],
        "anchors": {test: row_anchor(test) for test in tests},
    }
    text = _json(head)[:-1] + ',"c":[' + ",".join(entries) + "]}"
    return f"perfwalk.checkouts({ctx.id},{block_no},{text});\n"


def _entry(
    ctx: SeriesContext,
    c: CheckoutData,
    shape: int,
    profiles: Sequence[tuple[str, int]],
    failed: Sequence[Failure] = (),
) -> str:
    row = c.row
    position = ctx.position(row.idx)
    before = ctx.checkouts[position - 1].idx if position > 0 else None
    after = ctx.checkouts[position + 1].idx if position + 1 < len(ctx.checkouts) else None
    facts: dict[str, Any] = {
        "idx": row.idx,
        "pos": position,
        "sha": row.sha,
        "date": ctx.times.minute(row.date),
        "build": row.build_status.name if row.build_status is not None else None,
        "bsec": row.build_seconds,
        "blog": row.build_log_id,
        "commits": row.commit_count,
        "quirks": list(row.quirks),
        "qruns": [[q.letter, q.status.name, q.log_id] for q in row.quirk_runs],
        "prev": before,
        "next": after,
        "m": shape,
    }
    if said := needed(ctx.series, len(c.reps)):
        facts["need"] = said
    if profiles:
        facts["prof"] = [[test, profile_id] for test, profile_id in profiles]
    if failed:
        facts["fail"] = [f.as_data() for f in failed]
    if lost := ctx.lost.get(row.idx):
        facts["lost"] = list(lost)
    if histograms := ctx.histograms.get(row.idx):
        facts["h"] = checkout_histograms(histograms)
    if row.pruned is not None:  # its logs' sections say it again
        facts["pruned"] = row.pruned.said("its logs and profiles")
    if ran := checkout_facts(ctx, row.idx):
        facts["bf"] = ran
    if c.reps:
        facts["v"] = _b64(c.vals)
        facts["st"] = _b64(c.stats)
        facts["s"] = _b64(little_endian(array("d", c.chosen)))
        facts["u"] = [m for m, (unstable, _) in c.marks.items() if unstable]
        facts["o"] = [[m, r] for m, (_, outliers) in c.marks.items() for r in outliers]
    text = _json(facts)[:-1] + ',"d":' + (c.detail or "null")
    if c.phases:
        text += ',"ph":' + c.phases
    return text + "}"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _json(document: object) -> str:
    """Compact JSON, ASCII only: safe in a script file whatever the text holds."""
    return json.dumps(document, separators=(",", ":"), allow_nan=False)
