"""The changes as the site tells them: the "Changes" table of the index and of each
series page, one row per alert group (:mod:`perfwalk.report.change_groups`: the
changes of one culprit or of overlapping commit ranges), newest first: its date, its
culprit or range, the culprit's author, its worst change (metric, walk, Δ, verdict),
its triage, and under it "n metrics on m hosts", which opens the table of its
members (date, walk, metric, before → after, Δ (the headline size with its source,
and the walk's 95 % interval), confidence, verdict (its chain of evidence as tooltip
and, when it is not confirmed, below the metric), culprit or range, triage state).
The table opens on the groups with an untriaged regression; a switch above it shows
them all (a checkbox and the style sheet: no script). The refuted changes are apart
("Ruled out", greyed, never counted). And the words every page uses for a change's
culprit and triage, in HTML here and as data for the plots' tooltips and the
checkout pages' banners (see :func:`change_facts`).

Commit subjects, authors, series names and triage reasons are untrusted: every one
goes through :func:`esc` here, and stays text in the data (pages.js and plot.js
put it into the page as text)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfwalk.report import layout
from perfwalk.report.change_groups import ChangeGroup, grouped
from perfwalk.report.change_list import ListedChange
from perfwalk.report.html import esc, link
from perfwalk.report.times import SiteTimes

#: how a drill's verdict reads when it named no culprit
DRILL_WORDS = {
    "range": "narrowed to",
    "undecided": "undecided between",
    "no-change": "not confirmed between",
}


def levels(change: ListedChange) -> str:
    """ "940.0 Mbit/s → 752.0 Mbit/s": the levels before and after, with the unit; a
    break's statuses, "PASS → NOEXIST"."""
    return change.levels_text()


def delta(change: ListedChange) -> str:
    """ "-20.0 % (walk 1), 95 % interval -21.0 % … -19.0 %", "+41.7 % (drill 6)": the
    headline size with its source."""
    return change.size_and_interval()


def triage_title(change: ListedChange, times: SiteTimes) -> str:
    """Why, who and when (in the site's ``times``) of its triage ("" when untriaged)."""
    mark = change.triage
    if mark is None:
        return ""
    told = f"{mark.reason} — {mark.who}, {times.minute(mark.at)}" if mark.reason else mark.who
    return f"{told} ({mark.bug})" if mark.bug else told


def culprit_html(at: str, change: ListedChange) -> str:
    """The culprit (short sha and subject, linked to its drill's page), else the range
    the drill narrowed it to (linked to the commits between the two checkouts), else
    "not drilled"."""
    culprit, drill = change.culprit, change.drill
    if culprit is not None:
        text = f"{culprit.sha[:12]} {culprit.subject}".strip()
        title = f"culprit found by drill {culprit.drill}" + (
            f"; by {culprit.author}" if culprit.author else ""
        )
        return link(
            layout.href(at, layout.series_page(culprit.drill)), text, title=title, css="culprit"
        )
    if drill is not None:
        commits = layout.href(at, layout.commits_page(change.series_id, change.after_idx))
        word = DRILL_WORDS.get(drill.verdict, drill.verdict)
        drilled = link(layout.href(at, layout.series_page(drill.drill)), f"drill {drill.drill}")
        reason = f" ({esc(drill.reason)})" if drill.reason else ""
        return (
            f"{drilled}: {esc(word)} "
            + link(commits, f"{drill.lo[:10]}..{drill.hi[:10]}", css="range")
            + reason
        )
    return '<span class="undrilled">not drilled</span>'


def triage_html(change: ListedChange, times: SiteTimes) -> str:
    state = change.triage_state
    title = triage_title(change, times)
    tip = f' title="{esc(title)}"' if title else ""
    return f'<span class="triage {esc(state)}"{tip}>{esc(state)}</span>'


def newest_first(changes: Sequence[ListedChange]) -> list[ListedChange]:
    ordered = sorted(changes, key=lambda c: (c.series_id, c.test, c.name))
    return sorted(ordered, key=lambda c: c.date, reverse=True)


def changes_section(
    at: str,
    changes: Sequence[ListedChange],
    times: SiteTimes,
    undecided: Sequence[tuple[int, str, str]] = (),
) -> str:
    """The "Changes" section of a page: the table of its groups, then the metrics the
    walks could not judge (``undecided``: series, name, why) — "no changes found" only
    when there is neither —, then the refuted changes apart ("Ruled out")."""
    head = "<h2>Changes</h2>\n"
    blind = undecided_list(at, undecided)
    listed = grouped(c for c in changes if not c.refuted)
    ruled_out = grouped(c for c in changes if c.refuted)
    if listed:
        found = _view_switch(listed) + _groups_table(at, listed, times) + blind
    else:
        found = blind or '<p class="no-changes">no changes found</p>\n'
    if ruled_out:
        found += (
            '<h3 id="ruled-out">Ruled out</h3>\n<p class="note">Measured again, the change '
            "was not there: shown, never counted.</p>\n" + _groups_table(at, ruled_out, times)
        )
    return head + found


def _view_switch(groups: Sequence[ChangeGroup]) -> str:
    """The switch between the untriaged regressions (the table's first view) and every
    group, just before the table (the style sheet hides the others while it is off);
    on when no group needs action."""
    acting = sum(g.needs_action for g in groups)
    others = len(groups) - acting
    told = f"{acting} untriaged regression{'' if acting == 1 else 's'}"
    checked = "" if acting else " checked"
    return (
        f'<input type="checkbox" id="all-changes" class="change-view"{checked}>'
        f'<label for="all-changes" class="change-view"> show all {len(groups)} '
        f"group{'' if len(groups) == 1 else 's'} ({told} shown, {others} "
        f"other{'' if others == 1 else 's'}: improvements, triaged, not to act on)</label>\n"
    )


def _groups_table(at: str, groups: Sequence[ChangeGroup], times: SiteTimes) -> str:
    header = [
        "<th>date</th>",
        '<th class="name">culprit or range</th>',
        '<th class="name">author</th>',
        '<th class="name">worst change</th>',
        "<th>Δ</th>",
        "<th>verdict</th>",
        "<th>triage</th>",
    ]
    bodies = [_group_body(at, g, times, len(header)) for g in groups]
    return (
        '<table class="changes groups">\n<thead><tr>'
        + "".join(header)
        + "</tr></thead>\n"
        + "".join(bodies)
        + "</table>\n"
    )


def _group_body(at: str, group: ChangeGroup, times: SiteTimes, width: int) -> str:
    """A group's rows in their own ``tbody``: the group, then its members behind a
    summary ("100 metrics on 2 hosts")."""
    c = group.worst
    checkout = layout.href(at, layout.checkout_page(c.series_id, c.after_idx))
    walk = layout.href(at, layout.series_page(c.series_id))
    css = f"noted {c.word}" if c.note else c.word
    author = esc(group.author) if group.author else '<span class="undrilled">—</span>'
    cells = [
        f"<td>{link(checkout, times.minute(group.date))}</td>",
        f'<td class="name culprit-cell">{_group_culprit_html(at, group)}</td>',
        f'<td class="name author">{author}</td>',
        f'<td class="name">{esc(c.metric)} · {link(walk, f"{c.series_id}: {c.series_label}")}</td>',
        f'<td class="delta">{esc(c.arrow)} {esc(c.size_text())} '
        f'<span class="{c.verdict}">{c.verdict}</span></td>',
        state_html(c),
        f"<td>{_group_triage_html(group, times)}</td>",
    ]
    view = "acting" if group.needs_action else "quiet"
    return (
        f'<tbody class="group {view}" data-group="{esc(group.id)}">\n'
        f'<tr class="group {css}">' + "".join(cells) + "</tr>\n"
        f'<tr class="members"><td colspan="{width}"><details><summary title="group '
        f"{esc(group.id)}: `perfwalk triage {esc(group.id)}` says what all its changes "
        f'are">{esc(group.spread())}</summary>\n'
        + _changes_table(at, group.members, times)
        + "</details></td></tr>\n</tbody>\n"
    )


def _group_culprit_html(at: str, group: ChangeGroup) -> str:
    """The group's culprit as its worst member's cell says it, else its range (linked
    to the commits of a member that holds it)."""
    if group.culprit is not None:
        holder = next(c for c in group.members if c.culprit == group.culprit)
        return culprit_html(at, holder)
    holder = next((c for c in group.members if c.after_sha == group.after), group.worst)
    commits = layout.href(at, layout.commits_page(holder.series_id, holder.after_idx))
    subject = f" {esc(group.subject)}" if group.commits == 1 and group.subject else ""
    return link(commits, group.where().removeprefix("at ").removeprefix("in "), css="range") + (
        subject + ' <span class="undrilled">not drilled</span>'
        if all(m.drill is None for m in group.members)
        else subject
    )


def _group_triage_html(group: ChangeGroup, times: SiteTimes) -> str:
    """The group's triage: its members' one state (with the worst member's why), or
    "untriaged", or "mixed"."""
    state = group.triage_state
    if state in ("untriaged", "mixed"):
        return f'<span class="triage {state}">{state}</span>'
    return triage_html(group.worst, times)


def _changes_table(at: str, changes: Sequence[ListedChange], times: SiteTimes) -> str:
    header = [
        "<th>date</th>",
        '<th class="name">walk</th>',
        '<th class="name">metric</th>',
        "<th>before → after</th>",
        "<th>Δ</th>",
        "<th>confidence</th>",
        "<th>verdict</th>",
        '<th class="name">culprit</th>',
        "<th>triage</th>",
    ]
    rows = []
    for c in newest_first(changes):
        note = f'<br><span class="note">{esc(c.note)}</span>' if c.note else ""
        checkout = layout.href(at, layout.checkout_page(c.series_id, c.after_idx))
        walk = layout.href(at, layout.series_page(c.series_id))
        css = f"noted {c.word}" if c.note else c.word  # not to act on: greyed
        cells = [
            f"<td>{link(checkout, times.minute(c.date))}</td>",
            f'<td class="name">{link(walk, f"{c.series_id}: {c.series_label}")}</td>',
            f'<td class="name">{esc(c.metric)}{note}</td>',
            f"<td>{esc(levels(c))}</td>",
            f'<td class="delta">{esc(c.arrow)} {esc(delta(c))} '
            f'<span class="{c.verdict}">{c.verdict}</span></td>',
            f"<td>{esc(c.confidence_text())}</td>",
            state_html(c),
            f'<td class="name">{culprit_html(at, c)}</td>',
            f"<td>{triage_html(c, times)}</td>",
        ]
        rows.append(f'<tr class="{css}">' + "".join(cells) + "</tr>")
    return (
        '<table class="changes members">\n<thead><tr>'
        + "".join(header)
        + "</tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + "\n</tbody>\n</table>\n"
    )


def undecided_list(at: str, undecided: Sequence[tuple[int, str, str]]) -> str:
    """The metrics the walks could not judge, each with its series (linked) and why
    ("undecided: too noisy to see changes below 12.0 % in bench.time (…)"); "" when none."""
    if not undecided:
        return ""
    items = [
        f"<li>{link(layout.href(at, layout.series_page(sid)), f'{sid}: {name}')}: {esc(why)}</li>"
        for sid, name, why in undecided
    ]
    return (
        '<p class="undecided">Undecided: no change found in these metrics, but one that matters'
        " could not have been seen:</p>\n"
        '<ul class="undecided">\n' + "\n".join(items) + "\n</ul>\n"
    )


def state_html(change: ListedChange) -> str:
    """Its verdict's cell: the state, its chain of evidence as tooltip."""
    state = esc(change.state)
    chain = "; ".join(change.chain)
    tip = f' title="{esc(chain)}"' if chain else ""
    return f'<td class="state {state}"{tip}>{state}</td>'


#: the counters that moved with a change that its banner names
MOVED_TOLD = 3


def moved_anchor(change: ListedChange) -> str:
    """The id of a change's place in the series page's "What moved with it"."""
    return f"moved-{change.series_id}-{change.after_idx}"


def change_facts(at: str, change: ListedChange, times: SiteTimes) -> dict[str, Any]:
    """What the plots' tooltips and the checkout pages' banners say of a change, as
    data (texts stay text: the scripts never put them in as HTML); links relative to
    the series' folder's pages (``at``), times in the site's ``times``."""
    facts: dict[str, Any] = {
        "metric": change.metric,
        "before_idx": change.before_idx,
        "after_idx": change.after_idx,
        "levels": levels(change),
        "delta": delta(change),
        "arrow": change.arrow,  # where the value went: ▲ up, ▼ down
        "verdict": change.verdict,  # what that means: better, worse
        "confidence": change.confidence_text(),
        "state": change.state,  # confirmed, refuted, suspect, undecided
        "chain": list(change.chain),  # the evidence that decided it, the deciding line last
        "note": change.note,
        "triage": change.triage_state,
        "triage_why": triage_title(change, times),
    }
    if change.counters:  # what moved with it, its place on the series page
        facts["moved"] = {
            "said": [c.said for c in change.counters[:MOVED_TOLD]],
            "more": max(0, len(change.counters) - MOVED_TOLD),
            "href": layout.href(at, layout.series_page(change.series_id))
            + f"#{moved_anchor(change)}",
        }
    culprit, drill = change.culprit, change.drill
    if culprit is not None:
        facts["culprit"] = {
            "sha": culprit.sha,
            "subject": culprit.subject,
            "author": culprit.author,
            "drill": culprit.drill,
            "href": layout.href(at, layout.series_page(culprit.drill)),
            "anchor": layout.commit_anchor(culprit.sha),
        }
    elif drill is not None:
        facts["range"] = {
            "verdict": DRILL_WORDS.get(drill.verdict, drill.verdict),
            "lo": drill.lo,
            "hi": drill.hi,
            "reason": drill.reason,
            "drill": drill.drill,
            "href": layout.href(at, layout.series_page(drill.drill)),
        }
    return facts
