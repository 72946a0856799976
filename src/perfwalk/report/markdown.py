"""The changes as Markdown, to post as a pull-request comment (``perfwalk changes
--format markdown``): a heading with the project and the count of changes (commit
ranges) by kind, or of alert groups first when changes share a culprit or a commit
range ("2 regressions (200 changes in 2 alert groups)"), the site's time zone when
the report writes a day (a triage's, in that zone), the alert groups (a
line each: its culprit or range, its author, its worst change, how many metrics on
how many hosts, its triage: :mod:`perfwalk.report.change_groups`), a table of the
changes (one row per metric: the drill's answer,
culprit or narrowed range, else the commit range, linked to the web viewer with
``[project] commit_url`` and to the site with ``[report] base_url``; and the
triage), then the excursions and drifts in a short list.

Every text from outside (series and metric names, commit subjects and authors,
triage reasons) is escaped, and only as much as Markdown needs: the characters that
start inline markup (``\\ ` * _ [ ] | ~ $``) are backslashed, ``<``, ``>`` and
``&`` become entities (no HTML gets through), a first character that would start a
block (a heading, a list) is backslashed, ``:`` after a letter and ``.`` after
``www`` are backslashed (no address becomes a link by itself), line breaks become
spaces (a table row stays one row), controls are shown as ``\\xNN``, and ``@`` and
``#`` are followed by a word joiner so that a subject neither mentions anyone nor
references an issue. perfwalk's own numbers are written as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from perfwalk.quantities import format_value
from perfwalk.report import layout
from perfwalk.report.change_groups import ChangeGroup, counted_groups, grouped
from perfwalk.report.change_list import ListedChange, ListedEpisode, relative_size
from perfwalk.report.times import UTC_TIMES, SiteTimes
from perfwalk.untrusted import commit_address, show_controls

#: inline markup (code, emphasis, links, table cells, strikethrough, math), and what
#: would make an address a link by itself (a scheme's ``:``, ``www.``)
_INLINE = re.compile(r"[\\`*_\[\]|~$]|(?<=[A-Za-z]):|(?<=[wW]{3})\.")
#: a first character that would start a block: a heading, a list, an ordered list
_BLOCK_START = re.compile(r"^(?:(\d+)([.)])|([#+\-]))")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_WORD_JOINER = "\u2060"
_SHA = re.compile(r"[0-9a-f]{4,64}")
#: what a link's address may hold as it is; anything else is %-encoded (a space or a
#: parenthesis would end the link)
_URL_SAFE = ":/?#@!$&'*+,;=%~-._"
#: how a drill that named no commit is told
_DRILL_WORDS = {"no-change": "not confirmed", "undecided": "undecided"}


@dataclass(frozen=True)
class Links:
    """Where links go: ``commit_url`` a web viewer's address with ``{commit}``;
    ``base_url`` the site's address (no trailing slash). Empty: no such links."""

    commit_url: str = ""
    base_url: str = ""

    def commit(self, sha: str) -> str | None:
        return commit_address(self.commit_url, sha) if self.commit_url else None

    def page(self, relative: str) -> str | None:
        return f"{self.base_url}/{relative}" if self.base_url else None


def md(text: str) -> str:
    """``text`` as literal Markdown text, safe in a table cell and at a line's start."""
    text = show_controls(text)
    text = re.sub(r"[\t\n]", " ", text)
    text = _INLINE.sub(lambda m: "\\" + m.group(), text)
    text = _BLOCK_START.sub(lambda m: f"{m.group(1) or ''}\\{m.group(2) or m.group(3)}", text)
    text = re.sub(r"[&<>]", lambda m: _ENTITIES[m.group()], text)
    return text.replace("@", "@" + _WORD_JOINER).replace("#", "#" + _WORD_JOINER)


def link(text: str, url: str | None) -> str:
    """``[text](url)`` (``text`` already Markdown), or ``text`` without a url."""
    return f"[{text}]({quote(url, safe=_URL_SAFE)})" if url else text


def _sha(sha: str, links: Links) -> str:
    shown = f"`{sha[:10]}`" if _SHA.fullmatch(sha) else md(sha[:10])
    return link(shown, links.commit(sha) if _SHA.fullmatch(sha) else None)


def _drill(series: int, links: Links) -> str:
    return link(f"drill {series}", links.page(layout.series_page(series)))


def _where(change: ListedChange, links: Links) -> str:
    """The drill's answer (the culprit, the range it narrowed the change to, or why
    it named no commit) or, never drilled, the commit range."""
    culprit, drill = change.culprit, change.drill
    if culprit is not None and (drill is None or drill.drill == culprit.drill):
        subject = f" {md(culprit.subject)}" if culprit.subject else ""
        return f"{_sha(culprit.sha, links)}{subject} ({_drill(culprit.drill, links)})"
    many = "commit" if change.commits == 1 else "commits"
    commits = (
        f"{_sha(change.before_sha, links)}…{_sha(change.after_sha, links)} "
        f"({change.commits} {many})"
    )
    if drill is None:
        return commits
    if drill.verdict == "range":
        narrowed = f"{_sha(drill.lo, links)}…{_sha(drill.hi, links)}"
        return f"{commits}, narrowed to {narrowed} by {_drill(drill.drill, links)}"
    word = md(_DRILL_WORDS.get(drill.verdict, drill.verdict))
    why = f": {md(drill.reason)}" if drill.reason else ""
    return f"{commits}; {_drill(drill.drill, links)}: {word}{why}"


def _triage(change: ListedChange, times: SiteTimes) -> str:
    """``untriaged``, or the current word: state, reason, who, when (the day, in the
    report's ``times``), the bug."""
    mark = change.triage
    if mark is None:
        return "untriaged"
    web = mark.bug.startswith(("https://", "http://"))
    bug = f", {link('bug', mark.bug) if web else md(mark.bug)}" if mark.bug else ""
    return f"**{mark.state}**: {md(mark.reason)} ({md(mark.who)}, {times.day(mark.at)}{bug})"


def _row(change: ListedChange, links: Links, times: SiteTimes) -> str:
    to_act_on = (
        change.regression
        and change.state == "confirmed"
        and not change.note
        and change.triage is None
    )
    kind = f"**{change.kind}**" if to_act_on else change.kind
    kind += f" ({change.state})"
    if change.cause:
        kind += f" ({md(change.cause)})"
    series = link(
        md(f"{change.series_id}: {change.series_label}"),
        links.page(layout.series_page(change.series_id)),
    )
    after = link(
        md(format_value(change.after, change.unit)),
        links.page(layout.checkout_page(change.series_id, change.after_idx)),
    )
    cells = [
        kind,
        series,
        f"{md(change.metric)} \\[{md(change.unit)}\\]" if change.unit else md(change.metric),
        f"{md(format_value(change.before, change.unit))} → {after}",
        md(f"{change.arrow} {change.size_and_interval()} {change.verdict}"),
        change.confidence_text(),
        md("; ".join(change.chain)),
        _where(change, links),
        _triage(change, times),
    ]
    return "| " + " | ".join(cells) + " |"


def _group_line(group: ChangeGroup, links: Links) -> str:
    """ "- `5a17eab3c0` by Ada: **regression** checksum.time ▲ +41.7 % (drill 6) worse; 2
    metrics in 2 walks on 1 host; untriaged"."""
    worst = group.worst
    if group.culprit is not None:
        where = f"{_sha(group.culprit.sha, links)}"
    elif group.commits == 1:
        where = _sha(group.after, links)
    else:
        where = f"{_sha(group.before, links)}…{_sha(group.after, links)} ({group.commits} commits)"
    author = f" by {md(group.author)}" if group.author else ""
    kind = f"**{worst.kind}**" if group.needs_action else worst.kind
    return (
        f"- {where}{author}: {kind} {md(worst.metric)} "
        f"{md(f'{worst.arrow} {worst.size_text()} {worst.verdict}')}; "
        f"{md(group.spread())}; {md(group.triage_state)}"
    )


def _episode(episode: ListedEpisode, links: Links) -> str:
    series = link(
        md(f"{episode.series_id}: {episode.series_label}"),
        links.page(layout.series_page(episode.series_id)),
    )
    where = (
        f"checkout {episode.first_idx}"
        if episode.first_idx == episode.last_idx
        else f"checkouts {episode.first_idx}–{episode.last_idx}"
    )
    what = "away and back" if episode.kind == "excursion" else "a slow move, no step"
    return (
        f"- {episode.kind} in {series}: {md(episode.metric)} {relative_size(episode.size)} "
        f"({'worse' if episode.worse else 'better'}) over {where}, {what}"
    )


def changes_markdown(
    project: str,
    changes: Sequence[ListedChange],
    episodes: Sequence[ListedEpisode] = (),
    links: Links = Links(),
    *,
    undecided: Sequence[str] = (),
    times: SiteTimes = UTC_TIMES,
) -> str:
    """The report: its heading (the groups counted, the zone of ``times`` said when a
    day is written), the alert groups when there are fewer than changes, the changes
    newest first, then what the walks could not judge
    (``undecided``: a line per metric), then the excursions and drifts, then the
    changes ruled out (refuted: measured again, not there)."""
    ordered = sorted(changes, key=lambda c: (-c.date.timestamp(), c.series_id, c.metric))
    groups = grouped(c for c in ordered if not c.refuted)
    listed = [c for c in ordered if not c.refuted]
    told = [line for line in undecided if not line.startswith(" ")]  # its likely step apart
    title = counted_groups(groups)
    if told and title == "no changes":  # not a clean result: the walk could not see
        title = f"no change found, {len(told)} metric{'s' * (len(told) > 1)} undecided"
    lines = [f"### perfwalk: {md(project)}: {title}", ""]
    if any(c.triage is not None for c in ordered):  # the report writes a day
        lines += [md(times.said()), ""]
    if len(groups) < len({c.key for c in listed}):
        lines += [f"Alert groups ({len(groups)}, one per culprit or commit range):", ""]
        lines += [_group_line(g, links) for g in groups]
        lines.append("")
    if listed:
        lines += [*_HEAD, *(_row(change, links, times) for change in listed)]
    elif not undecided:
        lines.append("No regression or improvement found.")
    if undecided:
        lines += [
            "",
            "Undecided (no change found in these metrics, but one that matters could not"
            " have been seen):",
            "",
        ]
        lines += [f"- {md(line.strip())}" for line in told]
    if episodes:
        lines += ["", "Excursions and drifts (shown, never a failure):", ""]
        lines += [_episode(e, links) for e in episodes]
    if ruled_out := [c for c in ordered if c.refuted]:
        lines += ["", "Ruled out (measured again, the change was not there):", ""]
        lines += [*_HEAD, *(_row(change, links, times) for change in ruled_out)]
    return "\n".join(lines) + "\n"


#: the head of a table of changes
_HEAD = (
    "| change | series | metric | before → after | Δ | confidence | evidence "
    "| culprit or commits | triage |",
    "|---|---|---|---|---|---|---|---|---|",
)
