"""The changes as an Atom feed (RFC 4287), ``changes.xml`` at the site's root: one
entry per metric that stepped, newest first, linking to its series page.

An entry's id is derived from its series, metric and commit range only, and its
``updated`` is the date of the checkout after the step, so publishing the same
findings again gives the same bytes and a reader never sees a change twice. Every
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


def entry_id(change: ListedChange) -> str:
    """The entry's id: the same for the same series, metric and commit range."""
    key = "\0".join(
        (str(change.series_id), change.test, change.name, change.before_sha, change.after_sha)
    )
    return _urn(key)


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
    listed = sorted(changes, key=lambda c: (_when(c.date), entry_id(c)), reverse=True)
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
    for change in listed:
        page = layout.series_page(change.series_id)
        lines += [
            "  <entry>",
            f"    <id>{entry_id(change)}</id>",
            f"    <title>{_text(title(change))}</title>",
            f"    <updated>{_when(change.date)}</updated>",
            f'    <link rel="alternate" type="text/html" href={_attr(_href(base_url, page))}/>',
            f"    <category term={_attr(change.kind)}/>",
            f'    <summary type="text">{_text(summary(change))}</summary>',
            "  </entry>",
        ]
    lines.append("</feed>")
    return "\n".join(lines) + "\n"
