"""The message that tells one new change (``[notify]``): a one-line title, and a body
as plain text (mail, generic webhooks) and as Markdown (Slack, Matrix, Mattermost),
each saying whether it is a regression or an improvement, its verdict with the
chain of evidence that decided it, its one size (with its source, and the 95 %
interval when the walk's) and confidence, the metric and its levels, the series, the
host, the culprit commit (id, subject, author) or the commit range, and the link to
the series' page on the site (``[report] base_url``).

Every text from outside (series and metric names, host names, commit subjects and
authors) is untrusted: in the plain text its controls are shown as ``\\xNN``, its
line breaks become spaces (a subject cannot add a line that looks like ours), and a
word joiner (U+2060, invisible) follows each ``@``, each ``<`` before ``!``, ``@`` or
``#`` and each ``]`` before ``(``: a chat that reads the plain text as Markdown or
looks in it for mentions finds no ``@channel``, ``<!here>``, ``<@U024BE7LH>``,
``[link](…)`` nor ``![image](…)``. In the Markdown it is escaped as in the Markdown
report (:func:`perfwalk.report.markdown.md`: no markup, no HTML, no mention of
anyone).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from perfwalk.report import layout
from perfwalk.report.change_list import ListedChange
from perfwalk.report.feed import title as feed_title
from perfwalk.report.markdown import Links, link, md
from perfwalk.untrusted import show_controls

#: The longest title (characters): a subject can be long, a mail subject should not be.
TITLE_MOST = 200
_SHA = re.compile(r"[0-9a-f]{4,64}")
#: what would mention someone or make a link or an image where the plain text is read
#: as Markdown: an ``@``, a ``<`` that opens ``<!channel>``, ``<@id>`` or ``<#id>``, a
#: ``]`` that is followed by a link's ``(``
_MENTION_OR_LINK = re.compile(r"@|<(?=[!@#])|\](?=\()")
_WORD_JOINER = "\u2060"


@dataclass(frozen=True)
class Notice:
    """One change told: ``title`` and ``text`` are plain text; ``markdown`` the whole
    message in Markdown, the title in bold as its first line (a receiver that renders
    Markdown gets no title of its own: some would render it unescaped)."""

    title: str
    text: str
    markdown: str


def one_line(text: str) -> str:
    """Untrusted ``text`` as plain text on one line, its controls visible, neither a
    mention nor a Markdown link (a word joiner inside)."""
    shown = " ".join(show_controls(text.replace("\t", " ")).split())
    return _MENTION_OR_LINK.sub(lambda m: m.group() + _WORD_JOINER, shown)


def notice(
    change: ListedChange,
    *,
    project: str,
    host: str,
    links: Links,
    others: Sequence[ListedChange] = (),
) -> Notice:
    """The message telling ``change`` of ``project``, measured on ``host`` (the hosts of
    its group), with the ``others`` metrics that moved across the same commits (one
    message per alert group; another walk's are named with their walk);
    ``links`` (``[project] commit_url``, ``[report] base_url``) say where commits and
    pages are."""
    more = f" and {len(others)} more metric{'' if len(others) == 1 else 's'}" if others else ""
    title = one_line(f"perfwalk {project}: {feed_title(change)}{more} on {host}")
    if len(title) > TITLE_MOST:
        title = title[: TITLE_MOST - 1] + "…"
    text = _text(change, project, host, links)
    heading = md(title.replace(_WORD_JOINER, ""))  # md() neutralises in its own way
    markdown = f"**{heading}**\n\n" + _markdown(change, project, host, links)
    if others:
        text += "\nalso across these commits:\n" + "".join(
            f"{other.kind}: {one_line(_metric_of(other, change))}: "
            f"{one_line(_levels(other))}, {_size(other)}\n"
            for other in others
        )
        markdown += "\nalso across these commits:\n\n" + "".join(
            f"- {other.kind}: {md(_metric_of(other, change))}: {md(_levels(other))}, "
            f"{md(_size(other))}\n"
            for other in others
        )
    return Notice(title=title, text=text, markdown=markdown)


def _metric_of(other: ListedChange, change: ListedChange) -> str:
    """ "checksum.time", or "checksum.time in 2: nightly on ci-2" for another walk's."""
    if other.series_id == change.series_id:
        return other.metric
    return f"{other.metric} in {other.series_id}: {other.series_label}"


def _size(change: ListedChange) -> str:
    """ "▲ +79.0 % (walk 1), 95 % interval … worse, confidence …": the arrow follows the
    value."""
    return (
        f"{change.arrow} {change.size_and_interval()} {change.verdict}, "
        f"confidence {change.confidence_text()}"
    )


def _levels(change: ListedChange) -> str:
    return change.levels_text()


def _commits(change: ListedChange) -> str:
    many = "commit" if change.commits == 1 else "commits"
    return (
        f"{change.commits} {many} after {one_line(change.before_sha)} up to "
        f"{one_line(change.after_sha)} (checkouts {change.before_idx} → {change.after_idx})"
    )


def _text(change: ListedChange, project: str, host: str, links: Links) -> str:
    lines = [
        f"{change.kind} in {one_line(project)}: {one_line(change.metric)} {_size(change)}",
        "",
        f"verdict: {one_line(change.told())}",
        f"series: {change.series_id}: {one_line(change.series_label)}",
        f"host: {one_line(host)}",
        f"metric: {one_line(change.metric)}: {one_line(_levels(change))}",
    ]
    culprit = change.culprit
    if culprit is not None:
        subject = f" {one_line(culprit.subject)}" if culprit.subject else ""
        author = f" ({one_line(culprit.author)})" if culprit.author else ""
        lines.append(
            f"culprit: {one_line(culprit.sha)}{subject}{author}, found by drill {culprit.drill}"
        )
        if commit := _commit_link(culprit.sha, links):
            lines.append(f"commit: {commit}")
        if change.drill is not None and change.drill.proof:
            lines.append(f"on today's tip: {one_line(change.drill.proof)}")
    lines.append(f"commits: {_commits(change)}")
    if culprit is None and change.drill is not None:
        lines.append(f"drill {change.drill.drill}: {_drill(change)}")
    if change.cause:
        lines.append(f"not to act on: {one_line(change.cause)}")
    if page := links.page(layout.series_page(change.series_id)):
        lines += ["", f"page: {page}"]
    return "\n".join(lines) + "\n"


def _drill(change: ListedChange) -> str:
    drill = change.drill
    assert drill is not None
    told = f"{one_line(drill.verdict)}, narrowed to {one_line(drill.lo)}…{one_line(drill.hi)}"
    return f"{told} ({one_line(drill.reason)})" if drill.reason else told


def _commit_link(sha: str, links: Links) -> str | None:
    return links.commit(sha) if _SHA.fullmatch(sha) else None


def _sha(sha: str, links: Links) -> str:
    shown = f"`{sha}`" if _SHA.fullmatch(sha) else md(sha)
    return link(shown, _commit_link(sha, links))


def _markdown(change: ListedChange, project: str, host: str, links: Links) -> str:
    kind = f"**{change.kind}**" if change.regression else change.kind
    series = link(
        md(f"{change.series_id}: {change.series_label}"),
        links.page(layout.series_page(change.series_id)),
    )
    lines = [
        f"{kind} in {md(project)}: {md(change.metric)} {md(_size(change))}",
        "",
        f"- verdict: {md(change.told())}",
        f"- series: {series}",
        f"- host: {md(host)}",
        f"- metric: {md(change.metric)}: {md(_levels(change))}",
    ]
    culprit = change.culprit
    if culprit is not None:
        subject = f" {md(culprit.subject)}" if culprit.subject else ""
        author = f" \\({md(culprit.author)}\\)" if culprit.author else ""
        drill = link(f"drill {culprit.drill}", links.page(layout.series_page(culprit.drill)))
        lines.append(f"- culprit: {_sha(culprit.sha, links)}{subject}{author}, found by {drill}")
        if change.drill is not None and change.drill.proof:
            lines.append(f"- on today's tip: {md(change.drill.proof)}")
    many = "commit" if change.commits == 1 else "commits"
    lines.append(
        f"- commits: {change.commits} {many} after {_sha(change.before_sha, links)} up to "
        f"{_sha(change.after_sha, links)} \\(checkouts {change.before_idx} → "
        f"{change.after_idx}\\)"
    )
    if culprit is None and change.drill is not None:
        lines.append(f"- drill {change.drill.drill}: {md(_drill(change))}")
    if change.cause:
        lines.append(f"- not to act on: {md(change.cause)}")
    if page := links.page(layout.series_page(change.series_id)):
        lines += ["", link(md(page), page)]
    return "\n".join(lines) + "\n"
