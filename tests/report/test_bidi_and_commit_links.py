"""Text that reorders what follows it (the bidirectional overrides, embeddings and
isolates) is shown as a visible escape on a terminal, in the Markdown report, in the
Atom feed and in pages; a commit id put into a web viewer's address is one
percent-encoded path segment of it, whatever it holds."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from perfwalk.config.model import ProjectConfig
from perfwalk.report.change_list import Culprit
from perfwalk.report.context import SeriesContext
from perfwalk.report.feed import atom_feed
from perfwalk.report.html import esc
from perfwalk.report.markdown import Links, changes_markdown, md
from perfwalk.untrusted import commit_address, show_controls
from tests.report.test_drill_page import _series as drill_series
from tests.report.test_markdown import CULPRIT, change, rendered

#: every character that reorders the text after it
BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
#: a subject that reads "fix overflow check" where it says "kcehc wolfrevo xif" reversed
REORDERED = "fix \u202ekcehc wolfrevo\u202c done \u2067isolated\u2069 \x85C1"


def _none_left(text: str) -> None:
    assert not [c for c in BIDI if c in text], ascii(text)


@pytest.mark.parametrize("mark", BIDI, ids=lambda c: f"U+{ord(c):04X}")
def test_a_bidi_control_is_shown_as_its_escape(mark: str) -> None:
    shown = show_controls(f"a{mark}b")
    assert shown == f"a\\u{ord(mark):04x}b"
    assert esc(f"a{mark}b") == shown  # a page: no other special character needed
    assert md(f"a{mark}b") == shown.replace("\\", "\\\\")  # Markdown: a literal backslash


def test_the_markdown_report_and_the_feed_reorder_nothing() -> None:
    culprit = Culprit(CULPRIT, REORDERED, REORDERED, 5)
    listed = [change(series_name=REORDERED, test=REORDERED, name=REORDERED, culprit=culprit)]
    markdown = changes_markdown(REORDERED, listed)
    _none_left(markdown)
    html = rendered(markdown)
    assert len(html.rows) == 2
    assert "\\u202ekcehc wolfrevo\\u202c" in html.rows[1][1]  # as a reader sees it
    assert "\\x85C1" in html.rows[1][1]  # a C1 control as well
    feed = atom_feed(REORDERED, listed)
    _none_left(feed)
    entry = ET.fromstring(feed.encode()).find("{http://www.w3.org/2005/Atom}entry")
    assert entry is not None
    assert "\\u2067isolated\\u2069" in (entry.findtext("{http://www.w3.org/2005/Atom}title") or "")
    page_text = esc(REORDERED)
    _none_left(page_text)
    assert "\\x85" in page_text


HOSTILE_IDS = ["../../etc/passwd", "....", "HEAD", "-x", "a?b#c", "a b", "%2e%2e"]


@pytest.mark.parametrize("commit", HOSTILE_IDS)
def test_a_commit_id_is_one_segment_of_the_viewer_address(commit: str) -> None:
    template = "https://git.example.org/p/commit/{commit}"
    address = commit_address(template, commit)
    segment = address.removeprefix("https://git.example.org/p/commit/")
    assert not set("/?# ") & set(segment)
    project = ProjectConfig(name="p", repo=Path(), commit_url=template)
    assert project.commit_link(commit) == address
    ctx = SeriesContext(drill_series(), (), commit_url=template)
    assert ctx.commit_href(commit) == address
    assert Links(commit_url=template).commit(commit) == address


def test_a_hex_id_is_put_as_it_is() -> None:
    assert commit_address("https://x/c/{commit}?w=1", CULPRIT) == f"https://x/c/{CULPRIT}?w=1"
