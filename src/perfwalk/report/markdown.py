"""The changes as Markdown, to post as a pull-request comment (``perfwalk changes
--format markdown``): a heading with the project and the count of regressions and
improvements, a table of the changes (culprit or commit range, linked to the web
viewer with ``[project] commit_url`` and to the site with ``[report] base_url``),
then the excursions and drifts in a short list.

Every text from outside (series and metric names, commit subjects and authors) is
escaped: Markdown's punctuation is backslashed, ``<``, ``>`` and ``&`` become
entities (no HTML gets through), line breaks become spaces (a table row stays one
row), controls are shown as ``\\xNN``, and ``@`` and ``#`` are followed by a word
joiner so that a subject neither mentions anyone nor references an issue.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from perfwalk.report import layout
from perfwalk.report.change_list import (
    ListedChange,
    ListedEpisode,
    confidence,
    counted,
    percent,
)
from perfwalk.untrusted import show_controls

_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|~:$])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_WORD_JOINER = "\u2060"
_SHA = re.compile(r"[0-9a-f]{4,64}")
#: what a link's address may hold as it is; anything else is %-encoded (a space or a
#: parenthesis would end the link)
_URL_SAFE = ":/?#@!$&'*+,;=%~-._"


@dataclass(frozen=True)
class Links:
    """Where links go: ``commit_url`` a web viewer's address with ``{commit}``;
    ``base_url`` the site's address (no trailing slash). Empty: no such links."""

    commit_url: str = ""
    base_url: str = ""

    def commit(self, sha: str) -> str | None:
        return self.commit_url.format(commit=sha) if self.commit_url else None

    def page(self, relative: str) -> str | None:
        return f"{self.base_url}/{relative}" if self.base_url else None


def md(text: str) -> str:
    """``text`` as literal Markdown text, safe in a table cell."""
    text = show_controls(text)
    text = re.sub(r"[\t\n]", " ", text)
    text = _PUNCTUATION.sub(r"\\\1", text)
    text = re.sub(r"[&<>]", lambda m: _ENTITIES[m.group()], text)
    return text.replace("@", "@" + _WORD_JOINER).replace("#", "#" + _WORD_JOINER)


def link(text: str, url: str | None) -> str:
    """``[text](url)`` (``text`` already Markdown), or ``text`` without a url."""
    return f"[{text}]({quote(url, safe=_URL_SAFE)})" if url else text


def _sha(sha: str, links: Links) -> str:
    shown = f"`{sha[:10]}`" if _SHA.fullmatch(sha) else md(sha[:10])
    return link(shown, links.commit(sha) if _SHA.fullmatch(sha) else None)


def _where(change: ListedChange, links: Links) -> str:
    """The culprit (with its drill) or the commit range."""
    culprit = change.culprit
    if culprit is not None:
        drill = link(f"drill {culprit.drill}", links.page(layout.series_page(culprit.drill)))
        subject = f" {md(culprit.subject)}" if culprit.subject else ""
        return f"{_sha(culprit.sha, links)}{subject} ({drill})"
    many = "commit" if change.commits == 1 else "commits"
    return (
        f"{_sha(change.before_sha, links)}…{_sha(change.after_sha, links)} "
        f"({change.commits} {many})"
    )


def _row(change: ListedChange, links: Links) -> str:
    kind = f"**{change.kind}**" if change.regression and not change.note else change.kind
    if change.note:
        kind += f" ({md(change.note)})"
    series = link(
        md(f"{change.series_id}: {change.series_name}"),
        links.page(layout.series_page(change.series_id)),
    )
    after = link(
        md(f"{change.after:.6g}"),
        links.page(layout.checkout_page(change.series_id, change.after_idx)),
    )
    cells = [
        kind,
        series,
        f"{md(change.metric)} \\[{md(change.unit)}\\]" if change.unit else md(change.metric),
        f"{md(f'{change.before:.6g}')} → {after}",
        f"{md(percent(change.size))} ({md(percent(change.low))} … {md(percent(change.high))})",
        md(confidence(change.confidence)),
        _where(change, links),
    ]
    return "| " + " | ".join(cells) + " |"


def _episode(episode: ListedEpisode, links: Links) -> str:
    series = link(
        md(f"{episode.series_id}: {episode.series_name}"),
        links.page(layout.series_page(episode.series_id)),
    )
    where = (
        f"checkout {episode.first_idx}"
        if episode.first_idx == episode.last_idx
        else f"checkouts {episode.first_idx}–{episode.last_idx}"
    )
    what = "away and back" if episode.kind == "excursion" else "a slow move, no step"
    return (
        f"- {episode.kind} in {series}: {md(episode.metric)} {md(percent(episode.size))} "
        f"({'worse' if episode.worse else 'better'}) over {where}, {what}"
    )


def changes_markdown(
    project: str,
    changes: Sequence[ListedChange],
    episodes: Sequence[ListedEpisode] = (),
    links: Links = Links(),
) -> str:
    """The report: newest change first, then the excursions and drifts."""
    listed = sorted(changes, key=lambda c: (-c.date.timestamp(), c.series_id, c.metric))
    lines = [f"### perfwalk: {md(project)}: {counted(list(listed))}", ""]
    if listed:
        lines += [
            "| change | series | metric | before → after | Δ (95 % interval) | confidence "
            "| culprit or commits |",
            "|---|---|---|---|---|---|---|",
            *(_row(change, links) for change in listed),
        ]
    else:
        lines.append("No regression or improvement found.")
    if episodes:
        lines += ["", "Excursions and drifts (shown, never a failure):", ""]
        lines += [_episode(e, links) for e in episodes]
    return "\n".join(lines) + "\n"
