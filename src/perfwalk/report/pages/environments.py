"""The section of an environment drill's series page (``perfwalk drill-env``): the change
it compared, the median of each commit in each environment, each effect with its
interval, and the verdict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from perfwalk.quantities import format_change, format_value
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc, link
from perfwalk.store.env_drills import EnvDrillRow

_VERDICTS = {
    "environment": "the environment moved it, not any commit",
    "code": "the code moved it; no environment does",
    "both": "the code and the environment both move it",
    "neither": "nothing moves it beyond its min_change here",
    "undecided": "undecided",
}


def env_drill_sections(
    rows: Sequence[EnvDrillRow], contexts: Mapping[int, SeriesContext]
) -> dict[int, str]:
    """The section of every environment drill's page, by series id."""
    return {
        row.series_id: env_drill_section(layout.series_page(row.series_id), row)
        for row in rows
        if row.series_id in contexts
    }


def _effect_row(effect: Mapping[str, Any], what: str) -> str:
    interval = (
        f"{format_change(effect['change'])} [{format_change(effect['low'])}, "
        f"{format_change(effect['high'])}]"
    )
    counts = "counts" if effect.get("counts") else "within min_change or not proven"
    return f"<tr><td>{what}</td><td>{esc(interval)}</td><td>{esc(counts)}</td></tr>"


def env_drill_section(at: str, row: EnvDrillRow) -> str:
    """HTML for one environment drill (escaped: names come from the configuration and
    the change)."""
    change = row.change
    parent = change.get("series")
    seen = ""
    if parent is not None:
        seen = " of " + link(layout.href(at, layout.series_page(int(parent))), f"series {parent}")
    head = (
        f"<h2>Environment drill</h2>\n<p>Compares <strong>{esc(row.test)}.{esc(row.name)}"
        f"</strong> at <code>{esc(str(change.get('before_sha', ''))[:12])}</code> (before) "
        f"and <code>{esc(str(change.get('after_sha', ''))[:12])}</code> (after)"
        f"{seen}, in {len(row.environments)} environments, oldest first.</p>\n"
    )
    answer = row.answer
    if answer is None:
        return head + "<p>No answer: it was stopped before it ended.</p>\n"
    verdict = str(answer.get("verdict"))
    moved = answer.get("moved_by")
    said = _VERDICTS.get(verdict, verdict)
    if verdict in ("environment", "both") and moved:
        said += f": the step follows {esc(moved[0])} → {esc(moved[1])}"
    share = answer.get("share")
    if share is not None and verdict in ("environment", "both"):
        said += f" ({share * 100:.0f} % of the walk's step)"
    medians = "".join(
        f"<tr><td>{esc(env)}</td><td>{esc(at_)}</td>"
        f"<td>{esc(format_value(value, str(answer.get('unit') or '')))}</td><td>{n}</td></tr>"
        for at_, env, value, n in answer.get("medians", ())
    )
    described = "".join(
        f"<li><strong>{esc(e.get('name', ''))}</strong>"
        + "".join(
            f" {what} <code>{esc(str(e[key]))}</code>"
            for key, what in (("host", "on"), ("image", "in the image"))
            if e.get(key)
        )
        + (f": {esc(e['comment'])}" if e.get("comment") else "")
        + "</li>"
        for e in row.environments
    )
    effects = "".join(
        _effect_row(e, f"the commits, in {esc(e['where'])}") for e in answer.get("commits", ())
    ) + "".join(
        _effect_row(e, f"{esc(e['of'])} → {esc(e['to'])}, at {esc(e['where'])}")
        for e in answer.get("environments", ())
    )
    each = float(answer.get("each_confidence", 95.0))  # drills before 2026-11-29: 95 each
    together = answer.get("confidence")
    if together is not None:
        effects += (
            f'<tr class="env-confidence"><td colspan="3">each effect at {each:g} % '
            f"confidence: {float(together):g} % for all of them together</td></tr>"
        )
    return (
        head
        + f'<p class="env-verdict"><strong>{esc(verdict.upper())}</strong>: {said}</p>\n'
        + f"<ul>{described}</ul>\n"
        + '<table class="env-effects"><thead><tr><th>effect</th><th>change '
        f"[{each:g} % interval]</th><th></th></tr></thead>\n<tbody>"
        + effects
        + "</tbody></table>\n"
        + '<table class="env-medians"><thead><tr><th>environment</th><th>commit</th>'
        "<th>median</th><th>n</th></tr></thead>\n<tbody>" + medians + "</tbody></table>\n"
    )
