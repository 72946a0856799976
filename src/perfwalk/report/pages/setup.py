"""How a series was made: its walk, the configuration, the exact commands and the
host fingerprint (provenance), and what differs from the host of the series before
it. The configuration's secrets are masked here too, for a series stored before its
text was kept masked."""

from __future__ import annotations

import json
from collections.abc import Sequence

from perfwalk.config.secrets import mask_config_text
from perfwalk.hosts.fingerprint import BOOT_LOG
from perfwalk.report import layout
from perfwalk.report.context import is_variant
from perfwalk.report.html import esc, page, quirk_anchor, table
from perfwalk.report.pages.series import measuring_facts, series_crumbs
from perfwalk.report.times import SiteTimes
from perfwalk.store import SeriesRow


def setup_page(series: SeriesRow, times: SiteTimes, previous: SeriesRow | None = None) -> str:
    """The setup page of ``series``; with ``previous`` (the series before it of its kind,
    :func:`previous_of`), what differs between their hosts' fingerprints."""
    at = layout.setup_page(series.id)
    facts = [
        ("name", series.name),
        ("project", series.project),
        ("repository", series.repo),
        ("kind", series.kind),
        ("from", series.from_spec or "the first commit"),
        ("to", series.to_spec),
        ("step", series.step),
        ("repetitions", f"{series.repetitions}/{series.between}"),
        ("host", series.host),
        ("state", series.state),
        ("started", times.second(series.started_at)),
        ("finished", times.second(series.finished_at) if series.finished_at else "-"),
        ("parent series", str(series.parent_id) if series.parent_id else "-"),
        ("configuration hash", series.config_hash),
    ]
    if measuring := measuring_facts(series):
        facts.insert(8, ("measuring", measuring))
    if is_variant(series):
        facts.insert(4, ("variant", series.variant_name))
    for extension in series.extensions:  # perfwalk run --extend
        facts.append(("extended", f"{times.second(extension.started_at)}: {extension.said()}"))
    rows = [
        [f'<td class="name">{esc(k)}</td>', f'<td class="name">{esc(v)}</td>'] for k, v in facts
    ]
    shown = {k: v for k, v in series.fingerprint.items() if k != BOOT_LOG}
    fingerprint = json.dumps(shown, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    boot = series.fingerprint.get(BOOT_LOG)
    commands = json.dumps(
        series.commands, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False
    )
    body = (
        table(['<th class="name">fact</th>', '<th class="name">value</th>'], rows)
        + f"<h2>Host fingerprint</h2><pre>{esc(fingerprint)}</pre>"
        + (
            f'<h3>Boot log (its first lines)</h3><pre class="boot">{esc(boot)}</pre>'
            if boot
            else ""
        )
        + host_differences(at, series, previous)
        + f"<h2>Commands</h2><pre>{esc(commands)}</pre>"
        + quirks_section(series, times)
        + f"<h2>Configuration</h2><pre>{esc(mask_config_text(series.config_text))}</pre>"
    )
    crumbs = [*series_crumbs(series), (layout.series_page(series.id), f"series {series.id}")]
    title = f"setup of series {series.id}: {series.name}"
    return page(at, title, body, crumbs=crumbs, times=times)


def previous_of(every: Sequence[SeriesRow]) -> dict[int, SeriesRow]:
    """Each series' previous series of its kind (by id) that has a host fingerprint:
    the one its setup page compares its host with. A series stored later never
    changes an earlier one's (a publish rewrites only what changed)."""
    found: dict[int, SeriesRow] = {}
    last: dict[str, SeriesRow] = {}
    for s in sorted(every, key=lambda s: s.id):
        if s.kind in last:
            found[s.id] = last[s.kind]
        if s.fingerprint:
            last[s.kind] = s
    return found


def host_differences(at: str, series: SeriesRow, previous: SeriesRow | None) -> str:
    """What differs between the host fingerprints of ``series`` and ``previous`` (the
    boot log apart: its times differ at every boot), key by key, "-" where one of
    them has no such key; one line when nothing does; "" without both."""
    if previous is None or not previous.fingerprint or not series.fingerprint:
        return ""
    this, that = series.fingerprint, previous.fingerprint
    keys = sorted((this.keys() | that.keys()) - {BOOT_LOG})
    differ = [k for k in keys if this.get(k) != that.get(k)]
    other = f"series {previous.id}"
    linked = f'<a href="{esc(layout.href(at, layout.setup_page(previous.id)))}">{esc(other)}</a>'
    if not differ:
        return f"<h2>Host compared</h2><p>The same host fingerprint as {linked}.</p>"
    head = [f'<th class="name">{esc(h)}</th>' for h in ("key", f"series {series.id}", other)]
    rows = [
        [
            f'<td class="name">{esc(k)}</td>',
            f'<td class="name">{esc(str(this.get(k, "-")))}</td>',
            f'<td class="name">{esc(str(that.get(k, "-")))}</td>',
        ]
        for k in differ
    ]
    return f"<h2>Host compared: what differs from {linked}</h2>" + table(head, rows)


def quirks_section(series: SeriesRow, times: SiteTimes) -> str:
    """Each quirk of the series under its anchor (the plots' and legends' letters link
    here): its date and comment, what ran when the walk crossed it, what it replaced
    over its range and its patch's text, as the walk recorded them; "" without quirks."""
    if not series.quirks:
        return ""
    recorded = series.commands.get("quirks")
    described = recorded if isinstance(recorded, dict) else {}
    parts = ["<h2>Quirks</h2>"]
    for q in series.quirks:
        told = described.get(q.letter)
        told = dict(told) if isinstance(told, dict) else {}
        patch_text = told.pop("patch_text", None)
        at = times.minute(q.at_date) + (f" ({q.commit[:12]})" if q.commit else "")
        parts.append(
            f'<h3 id="{esc(quirk_anchor(q.letter))}"><span class="quirk">{esc(q.letter)}</span> '
            f"{esc(at)}: {esc(q.comment)}</h3>"
        )
        if told:
            text = json.dumps(told, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
            parts.append(f"<pre>{esc(text)}</pre>")
        if isinstance(patch_text, str):
            name = told.get("patch", "patch")
            parts.append(f'<p>patch {esc(name)}:</p><pre class="patch">{esc(patch_text)}</pre>')
    return "\n".join(parts) + "\n"
