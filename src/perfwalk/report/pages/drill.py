"""The drill section of a drill series' page: the change it narrows, the answer with
its evidence, the culprit's message and files, and every commit tried, in order,
with the values it gave and where the drill placed it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from perfwalk.analysis.profile_diff import FunctionShare, shown_functions
from perfwalk.analysis.scaled import median
from perfwalk.config.model import Config
from perfwalk.model import Commit
from perfwalk.quantities import format_change, format_confidence, format_levels
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc, link, number, table
from perfwalk.report.pages.profiles import (
    ProfilePair,
    least_samples,
    profile_section,
    stored_diff_file,
    stored_profiles,
)
from perfwalk.store import Store
from perfwalk.store.drills import DrillRow
from perfwalk.store.proofs import ProofRow

_VERDICT_WORDS = {
    "culprit": "the culprit",
    "range": "a range of commits (the commits between could not be placed)",
    "undecided": "undecided",
    "no-change": "no change between the two ends",
}


def drill_sections(
    store: Store,
    drills: Sequence[DrillRow],
    contexts: Mapping[int, SeriesContext],
    written: Callable[[str], bool],
    config: Config | None = None,
) -> tuple[dict[int, str], dict[str, str]]:
    """The drill section of every drill series' page (``drills``: the store's), by
    series id; and the data files of their differential profiles (site path → text)
    that ``written`` says the site lacks: a drill's profiles never change, so each
    differential is computed once. ``config`` says the samples a profile should have."""
    sections: dict[int, str] = {}
    files: dict[str, str] = {}
    for row in drills:
        ctx = contexts.get(row.series_id)
        if ctx is None:
            continue
        culprit = (row.answer or {}).get("culprit")
        commits = {}
        for checkout in ctx.checkouts:
            if checkout.sha == culprit:
                commits = {c.id: c for c in store.commits_since(checkout.id)}
        at = layout.series_page(row.series_id)
        stored = (row.answer or {}).get("profile")
        pair = _profile_pair(contexts, stored, config)
        if pair is not None and stored is not None:
            path = layout.profile_diff_data(row.series_id, pair.test)
            if not written(path):
                ids = (int(stored["before"]["profile"]), int(stored["after"]["profile"]))
                profiles = stored_profiles(store, ids)
                if profiles is None:
                    pair = None  # a profile is gone: no section to draw
                else:
                    path, text = stored_diff_file(row.series_id, pair, profiles)
                    files[path] = text
        sections[row.series_id] = drill_section(
            at,
            ctx,
            dataclasses.asdict(row),
            commits,
            profile=pair,
            proofs=store.proofs.of_drill(row.series_id),
        )
    return sections, files


def _profile_pair(
    contexts: Mapping[int, SeriesContext],
    found: Mapping[str, Any] | None,
    config: Config | None = None,
) -> ProfilePair | None:
    """The culprit's profile against its parent's, as the drill's answer stored it
    (``profile``: the two profiles, the functions that moved, how many were hidden);
    None without both. The functions are those of the table of the counts (an answer
    of an older perfwalk kept every function that moved most)."""
    if not found or "functions" not in found:
        return None

    def label(side: Mapping[str, Any]) -> str:
        ctx = contexts.get(int(side.get("series") or 0))
        for checkout in ctx.checkouts if ctx is not None else ():
            if checkout.idx == side.get("checkout"):
                return checkout.sha[:12]
        return f"profile {side.get('profile')}"

    before, after = found["before"], found["after"]
    samples = (int(before.get("samples") or 0), int(after.get("samples") or 0))
    shares, hidden = shown_functions(map(FunctionShare.of, found["functions"]), *samples)
    stripped = found.get("unresolved") or (0, 0)
    test = str(found["test"])
    return ProfilePair(
        test,
        label(before),
        label(after),
        shares,
        *samples,
        hidden=int(found.get("hidden") or 0) + hidden,
        unresolved=(int(stripped[0]), int(stripped[1])),
        least=least_samples(config, test),
    )


def drill_section(
    at: str,
    ctx: SeriesContext,
    drill: Mapping[str, Any],
    commits: Mapping[str, Commit],
    profile: ProfilePair | None = None,
    *,
    proofs: Sequence[ProofRow] = (),
) -> str:
    """HTML for the drill stored as ``drill`` (a :class:`perfwalk.store.drills.DrillRow`
    as a mapping: test, name, change, verdict, answer, steps); ``commits`` holds the
    drill's line of commits by id (at least the culprit's); ``profile``, the culprit's
    profile against its parent's, adds their differential after the answer (its data
    file: :func:`perfwalk.report.pages.profiles.profile_diff_file`); ``proofs``, its
    culprit undone on later tips (:mod:`perfwalk.store.proofs`), newest first after it."""
    answer: Mapping[str, Any] = drill.get("answer") or {}
    parts = [
        "<h2>Drill</h2>\n",
        _change(at, ctx, drill),
        _answer(ctx, drill, answer, commits),
        _proofs(at, ctx, proofs),
        profile_section(at, ctx.id, profile),
        _tried(at, ctx, drill.get("steps") or (), answer, _unit(drill)),
    ]
    return "".join(parts)


def _proofs(at: str, ctx: SeriesContext, proofs: Sequence[ProofRow]) -> str:
    """The culprit undone on later tips (``perfwalk prove``), newest first: what each
    found, when, and the try that measured it."""
    if not proofs:
        return ""
    items = []
    for proof in reversed(proofs):
        tried = (
            ""
            if proof.try_id is None
            else f" ({link(layout.href(at, layout.series_page(proof.try_id)), 'its try')})"
        )
        items.append(
            f'<li class="proof proof-{esc(proof.outcome)}">{esc(ctx.times.minute(proof.at))}: '
            f"{esc(proof.said())}{tried}</li>"
        )
    return (
        "<h3>On later tips</h3>\n<p>The culprit undone on the tip of its branch and "
        "measured against that tip (<code>perfwalk prove</code>):</p>\n"
        '<ul class="proofs">\n' + "\n".join(items) + "\n</ul>\n"
    )


def _metric(drill: Mapping[str, Any]) -> str:
    return f"{drill['test']}.{drill['name']}"


def _unit(drill: Mapping[str, Any]) -> str:
    """The unit of the drilled metric, as its change stored it, else as the drill
    measured it ("" when unknown)."""
    change = drill.get("change") or {}
    return str(change.get("unit") or (drill.get("answer") or {}).get("unit") or "")


def _change(at: str, ctx: SeriesContext, drill: Mapping[str, Any]) -> str:
    change: Mapping[str, Any] = drill.get("change") or {}
    parent = ctx.series.parent_id
    where = ""
    if parent is not None and change.get("before_idx") is not None:
        before = link(
            layout.href(at, layout.checkout_page(parent, change["before_idx"])),
            f"checkout {change['before_idx']}",
        )
        after = link(
            layout.href(at, layout.checkout_page(parent, change["after_idx"])),
            f"checkout {change['after_idx']}",
        )
        series = link(layout.href(at, layout.series_page(parent)), f"series {parent}")
        where = f" seen in {series} between {before} and {after}"
    size = ""
    if change.get("relative") is not None:
        size = (
            f": {esc(change.get('kind', 'change'))} of {format_change(change['relative'])}"
            f" ({esc(format_levels(change['before'], change['after'], _unit(drill)))})"
        )
    name = f"change {esc(change['id'])}" if change.get("id") else "the change"
    commits = change.get("commits", "?")
    return (
        f"<p>Narrows {name} of <strong>{esc(_metric(drill))}</strong>{where}{size};"
        f" {esc(commits)} commit{'' if commits == 1 else 's'} after <code>"
        f"{esc(str(change.get('before_sha', ''))[:12])}</code> up to <code>"
        f"{esc(str(change.get('after_sha', ''))[:12])}</code>.</p>\n"
    )


def _answer(
    ctx: SeriesContext,
    drill: Mapping[str, Any],
    answer: Mapping[str, Any],
    commits: Mapping[str, Commit],
) -> str:
    verdict = drill.get("verdict")
    if verdict is None:
        return '<p class="drill-verdict">No answer: the drill was stopped before it ended.</p>\n'
    head = f"{esc(str(verdict).upper())}: {esc(_VERDICT_WORDS.get(verdict, verdict))}"
    rows = [("answer", head), ("why", esc(answer.get("reason", "")))]
    unit = _unit(drill)
    if verdict == "range":
        rows.append(
            (
                "range",
                f"after <code>{esc(answer['lo'][:12])}</code> up to"
                f" <code>{esc(answer['hi'][:12])}</code>",
            )
        )
    if answer.get("before") is not None:
        relative = answer.get("relative")
        size = f" ({format_change(relative)})" if relative is not None else ""
        rows.append(
            (
                "levels",
                f"{esc(format_levels(answer['before'], answer['after'], unit))}{size};"
                f" change 95 % interval {_number(answer['change_low'], unit)} …"
                f" {_number(answer['change_high'], unit)};"
                f" noise sd {_number(answer['noise'], unit)};"
                f" ends differ at p = {answer['ends_p']:.2g}",
            )
        )
    step = answer.get("step")
    if step:
        rows.append(
            (
                "step at the answer",
                f"{_number(step['estimate'], unit)} (90 % interval"
                f" {_number(step['low'], unit)} … {_number(step['high'], unit)})",
            )
        )
    if answer.get("confidence") is not None:
        rows.append(("confidence", format_confidence(answer["confidence"])))
    reused = answer.get("reused")
    rows.append(
        (
            "spent",
            f"{answer.get('builds', 0)} builds, {answer.get('repetitions', 0)} repetitions"
            + (f"; {reused} stored values reused" if reused is not None else ""),
        )
    )
    facts = (
        '<table class="drill-answer">\n'
        + "\n".join(f'<tr><th>{esc(k)}</th><td class="name">{v}</td></tr>' for k, v in rows)
        + "\n</table>\n"
    )
    culprit = commits.get(answer.get("culprit") or "")
    return facts + (_commit(ctx, culprit) if culprit is not None else "")


def _number(value: float | None, unit: str) -> str:
    """A number of the answer; None is one beyond the float range (values of 1e308)."""
    return "beyond the float range" if value is None else esc(number(value, unit))


def _commit(ctx: SeriesContext, commit: Commit) -> str:
    target = ctx.commit_href(commit.id)
    title = (
        link(target, commit.id[:12], title=commit.id)
        if target
        else f"<code>{esc(commit.id[:12])}</code>"
    )
    files = "".join(
        f"<li>{link(target, f, title=f'{f} in {commit.id[:12]}') if target else esc(f)}</li>"
        for f in commit.files
    )
    body = f"<pre>{esc(commit.body)}</pre>" if commit.body.strip() else ""
    return (
        f'<article class="commit culprit"><h3>{title} {esc(commit.subject)}</h3>'
        f"<p>{esc(ctx.times.minute(commit.date))} · {esc(commit.author)}</p>"
        f'{body}<ul class="files">{files}</ul></article>\n'
    )


def _tried(
    at: str,
    ctx: SeriesContext,
    steps: Sequence[Mapping[str, Any]],
    answer: Mapping[str, Any],
    unit: str = "",
) -> str:
    if not steps:
        return ""
    placed = {p["position"]: p for p in answer.get("placements", ())}
    last = answer.get("hi_position")
    rows = []
    for n, step in enumerate(steps, 1):
        position = step["position"]
        values = step.get("values") or []
        where = layout.href(at, layout.checkout_page(ctx.id, position))
        got = (
            f"{len(values)}: median {esc(number(median(values), unit))}"
            f" ({esc(', '.join(number(v, unit) for v in values[:8]))}"
            f"{' …' if len(values) > 8 else ''})"
            if values
            else "none"
        )
        placement = placed.get(position)
        decision = esc(step["skipped"]) if step.get("skipped") else ""
        if placement is not None and not decision:
            mark = "confirmed" if placement["confirmed"] else ""
            decision = f"{esc(placement['side'])} {mark}".strip()
        culprit = (
            ' class="culprit"' if position == last and answer.get("verdict") == "culprit" else ""
        )
        rows.append(
            [
                f"<td>{n}</td>",
                f"<td{culprit}>{link(where, step['commit'][:12], title=step['commit'])}</td>",
                f"<td>{position}</td>",
                f"<td>{step.get('asked', '')}</td>",
                f'<td class="name">{esc(step.get("reason", ""))}</td>',
                f'<td class="name">{got}</td>',
                f"<td>{decision}</td>",
            ]
        )
    header = [
        "<th>#</th>",
        "<th>commit</th>",
        "<th>position</th>",
        "<th>asked</th>",
        '<th class="name">why</th>',
        '<th class="name">values it gave</th>',
        "<th>placed</th>",
    ]
    return (
        "<h3>Commits tried, in order</h3>\n"
        "<p>position: commits after the last one known before the change; placed: the side"
        " of the change the drill put it on at the end (confirmed: at the odds the answer"
        " needs).</p>\n" + table(header, rows, css="drill-steps") + "\n"
    )
