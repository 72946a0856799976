"""The changes as an Atom feed (RFC 4287), ``changes.xml`` at the site's root: one
entry per alert group (:mod:`perfwalk.report.change_groups`: the changes of one
culprit, or of overlapping commit ranges), newest first, titled by its worst change
and linking to that change's series page.

An entry's id is derived from its group's culprit, else its range, only, and its
``updated`` is the date of its newest checkout after the step, so publishing the
same findings again gives the same bytes and a reader never sees a change twice. Every
text is escaped as XML (series and metric names, commit subjects are untrusted);
characters XML cannot hold at all (most controls) are shown as ``\\xNN``.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from xml.sax.saxutils import escape, quoteattr

from perfwalk.report import layout
from perfwalk.report.change_groups import ChangeGroup, grouped
from perfwalk.report.change_list import Culprit, ListedChange
from perfwalk.report.times import as_utc
from perfwalk.untrusted import show_controls

#: when a feed without changes says it was updated (any fixed date would do)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAMESPACE = uuid.UUID("5b0f7c36-7c1e-4d0a-9a57-3b8f6f0e5d21")  # perfwalk's feed ids


#: what XML 1.0 cannot hold besides the controls: surrogates, U+FFFE, U+FFFF
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


def _text(text: str) -> str:
    shown = _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", show_controls(text))
    return escape(shown)


def _attr(text: str) -> str:
    return quoteattr(_NOT_XML.sub("", show_controls(text)))


def _when(date: datetime) -> str:
    """RFC 3339, in UTC (a naive date is taken as UTC, as the store keeps them)."""
    return as_utc(date).strftime("%Y-%m-%dT%H:%M:%SZ")


def entry_id(group: ChangeGroup) -> str:
    """The entry's id: the same for the same culprit, else the same range."""
    if group.culprit is not None:
        return _urn(f"culprit\0{group.culprit.sha}")
    return _urn(f"range\0{group.before}\0{group.after}")


#: the most metrics an entry names besides its worst
_NAMED = 10


def group_title(group: ChangeGroup) -> str:
    """Its worst change's :func:`title`, and what else moved: "… in checksum 1day, and
    3 more (4 metrics in 2 walks on 2 hosts)"."""
    more = len(group.members) - 1
    told = title(group.worst)
    return f"{told}, and {more} more ({group.spread()})" if more else told


def group_summary(group: ChangeGroup) -> str:
    """Its worst change's :func:`summary`, its author, and the other metrics that
    moved (at most :data:`_NAMED`)."""
    parts = [summary(group.worst)]
    if group.author and group.culprit is None:
        parts.append(f"by {group.author}")
    others = list(dict.fromkeys(f"{c.metric} {c.size_text()}" for c in group.members[1:]))
    if others:
        named = ", ".join(others[:_NAMED])
        rest = f" and {len(others) - _NAMED} more" if len(others) > _NAMED else ""
        parts.append(f"also {named}{rest}")
    return "; ".join(parts)


def _urn(key: str) -> str:
    """A name-based (version 5) UUID of ``key``, as a URN; any text, even one a walk
    read with lone surrogates, has one."""
    digest = hashlib.sha1(
        _NAMESPACE.bytes + key.encode("utf-8", "surrogatepass"), usedforsecurity=False
    ).digest()
    return f"urn:uuid:{uuid.UUID(bytes=digest[:16], version=5)}"


def title(change: ListedChange) -> str:
    """ "regression (confirmed): checksum.value ▲ +79.0 % (walk 1) worse in checksum
    1day"."""
    return (
        f"{change.kind} ({change.state}): {change.metric} {change.moved()} in {change.series_label}"
    )


def summary(change: ListedChange, *, culprit: bool = True) -> str:
    """What ``change`` is, in one line: its levels, its size and confidence, its
    commits, the culprit a drill found (unless ``culprit`` is False: the caller says
    it apart), its verdict with its chain, and a known cause."""
    parts = [
        f"{change.metric}: {change.levels_text()}",
        f"Δ {change.arrow} {change.size_and_interval()} {change.verdict}, "
        f"confidence {change.confidence_text()}",
        f"between checkouts {change.before_idx} and {change.after_idx}: "
        f"{change.commits} commit{'' if change.commits == 1 else 's'} after "
        f"{change.before_sha[:10]} up to {change.after_sha[:10]}",
    ]
    if culprit and change.culprit is not None:
        parts.append(culprit_text(change.culprit))
    parts.append(change.told())
    if change.cause:
        parts.append(change.cause)
    return "; ".join(parts)


def culprit_text(culprit: Culprit) -> str:
    """ "culprit found by drill 9: 1a2b3c4d5e Speed up (Dev)"."""
    who = f" ({culprit.author})" if culprit.author else ""
    told = f"culprit found by drill {culprit.drill}: {culprit.sha[:10]} {culprit.subject}{who}"
    return told.rstrip()


def _href(base_url: str, relative: str) -> str:
    return f"{base_url}/{relative}" if base_url else relative


def atom_feed(
    project: str,
    changes: Sequence[ListedChange],
    *,
    base_url: str = "",
) -> str:
    """The feed of ``project``'s changes; ``base_url`` makes its links absolute (else
    they are relative to the feed). The feed was updated when its newest entry was: a
    new checkout that brings no change leaves it as it was (a feed without entries
    is dated 1970-01-01)."""
    listed = sorted(grouped(changes), key=lambda g: (_when(g.date), entry_id(g)), reverse=True)
    updated = _when(listed[0].date) if listed else _when(_EPOCH)
    feed_id = f"{base_url}/{layout.FEED}" if base_url else _urn("feed\0" + project)
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<feed xmlns="http://www.w3.org/2005/Atom">',
        f"  <id>{_text(feed_id)}</id>",
        f"  <title>{_text(f'perfwalk: changes of {project}')}</title>",
        f"  <updated>{updated}</updated>",
        "  <author><name>perfwalk</name></author>",
        "  <generator>perfwalk</generator>",
        f'  <link rel="alternate" type="text/html" href={_attr(_href(base_url, layout.INDEX))}/>',
    ]
    if base_url:
        lines.append(f'  <link rel="self" type="application/atom+xml" href={_attr(feed_id)}/>')
    for group in listed:
        page = layout.series_page(group.worst.series_id)
        lines += [
            "  <entry>",
            f"    <id>{entry_id(group)}</id>",
            f"    <title>{_text(group_title(group))}</title>",
            f"    <updated>{_when(group.date)}</updated>",
            f'    <link rel="alternate" type="text/html" href={_attr(_href(base_url, page))}/>',
            f"    <category term={_attr(group.worst.kind)}/>",
            f'    <summary type="text">{_text(group_summary(group))}</summary>',
            "  </entry>",
        ]
    lines.append("</feed>")
    return "\n".join(lines) + "\n"
