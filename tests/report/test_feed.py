"""The Atom feed of the changes (changes.xml): valid Atom (RFC 4287) as an XML parser
reads it, hostile text escaped, ids and bytes stable."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from perfwalk.report.change_groups import grouped
from perfwalk.report.change_list import Culprit, ListedChange
from perfwalk.report.feed import atom_feed, entry_id
from tests.report.test_markdown import CULPRIT, HOSTILE, change

ATOM = "{http://www.w3.org/2005/Atom}"
#: RFC 3339 as Atom's date constructs require it
DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")


def checked_feed(text: str) -> ET.Element:
    """The feed's root, after checking what RFC 4287 requires of a feed and its
    entries (section 4.1): id, title, updated (an RFC 3339 date), an author for the
    feed, an alternate link or content for each entry, ids unique."""
    root = ET.fromstring(text.encode())
    assert root.tag == f"{ATOM}feed"
    for element in (root, *root.findall(f"{ATOM}entry")):
        for required in ("id", "title", "updated"):
            assert len(element.findall(f"{ATOM}{required}")) == 1, required
        assert (element.findtext(f"{ATOM}id") or "").strip()
        assert DATE.fullmatch(element.findtext(f"{ATOM}updated") or "")
    assert root.find(f"{ATOM}author/{ATOM}name") is not None
    entries = root.findall(f"{ATOM}entry")
    for entry in entries:
        links = [
            a for a in entry.findall(f"{ATOM}link") if a.get("rel", "alternate") == "alternate"
        ]
        assert len(links) == 1
        assert links[0].get("href")
    ids = [e.findtext(f"{ATOM}id") for e in entries]
    assert len(set(ids)) == len(ids)
    return root


def test_one_entry_per_change_newest_first_with_links_to_the_series() -> None:
    older = change(date=datetime(2024, 3, 1, tzinfo=UTC))
    newer = change(
        series_id=2,
        series_name="checksum 1week",
        regression=False,
        size=-0.25,
        before_sha="4" * 40,
        after_sha="5" * 40,
        date=datetime(2024, 3, 5, 6, 7, 8),
        culprit=Culprit(CULPRIT, "Speed up", "Dev", 9),
    )
    root = checked_feed(atom_feed("demo", [older, newer], base_url="https://perf.example.org"))
    assert root.findtext(f"{ATOM}title") == "perfwalk: changes of demo"
    assert root.findtext(f"{ATOM}id") == "https://perf.example.org/changes.xml"
    assert root.findtext(f"{ATOM}updated") == "2024-03-05T06:07:08Z"
    first, second = root.findall(f"{ATOM}entry")
    assert (
        first.findtext(f"{ATOM}title")
        == "improvement (confirmed): checksum.time ▼ -25.0 % (series 2) better in checksum 1week"
    )
    assert (
        second.findtext(f"{ATOM}title")
        == "regression (confirmed): checksum.time ▲ +79.0 % (series 1) worse in checksum 1day"
    )
    link = first.find(f"{ATOM}link")
    assert link is not None
    assert link.get("href") == "https://perf.example.org/series-2.html"
    assert second.findtext(f"{ATOM}updated") == "2024-03-01T00:00:00Z"
    summary = first.findtext(f"{ATOM}summary") or ""
    assert f"culprit found by drill 9: {CULPRIT[:10]} Speed up (Dev)" in summary
    assert "95 % interval" in summary


def _id(*changes: ListedChange) -> str:
    (group,) = grouped(changes)
    return entry_id(group)


def test_ids_depend_on_the_groups_culprit_or_range_only() -> None:
    one = change()
    assert _id(one) == _id(replace(one, size=0.5, date=datetime(2025, 1, 1)))
    assert _id(one) == _id(one, replace(one, name="other"), replace(one, series_id=2))
    assert _id(one) != _id(replace(one, after_sha="6" * 40))
    named = replace(one, culprit=Culprit(CULPRIT, "Speed up", "Dev", 9))
    assert _id(named) == _id(named, replace(one, after_sha="6" * 40, culprit=named.culprit))
    assert _id(named) != _id(one)
    assert re.fullmatch(r"urn:uuid:[0-9a-f-]{36}", _id(one))


def test_one_entry_per_group_titled_by_its_worst_change() -> None:
    worst = change(size=0.9, culprit=Culprit(CULPRIT, "Slow down", "Ada <a@example.org>", 9))
    others = [replace(worst, name=f"m{n}", size=0.1) for n in range(12)]
    others.append(replace(worst, series_id=2, culprit=None, range_shas=("1" * 40, CULPRIT)))
    root = checked_feed(atom_feed("demo", [*others, worst]))
    (entry,) = root.findall(f"{ATOM}entry")
    assert (entry.findtext(f"{ATOM}title") or "").startswith(
        "regression (confirmed): checksum.time ▲ +90.0 % (series 1) worse in checksum 1day, "
        "and 13 more (13 metrics in 2 walks)"
    )
    summary = entry.findtext(f"{ATOM}summary") or ""
    assert f"culprit found by drill 9: {CULPRIT[:10]} Slow down (Ada <a@example.org>)" in summary
    assert "; also checksum.time +90.0 % (series 2), checksum.m0 +10.0 % (series 1), " in summary
    assert summary.endswith(" and 3 more")


def test_without_base_url_links_are_relative_and_an_empty_feed_is_valid() -> None:
    root = checked_feed(atom_feed("demo", [change()]))
    entry = root.find(f"{ATOM}entry")
    assert entry is not None
    assert entry.find(f"{ATOM}link").get("href") == "series-1.html"  # type: ignore[union-attr]
    assert (root.findtext(f"{ATOM}id") or "").startswith("urn:uuid:")
    empty = checked_feed(atom_feed("demo", []))
    assert empty.findall(f"{ATOM}entry") == []
    assert empty.findtext(f"{ATOM}updated") == "1970-01-01T00:00:00Z"  # fixed: no change, no news
    assert atom_feed("demo", [change()]) == atom_feed("demo", [change()])


def test_hostile_text_is_escaped() -> None:
    hostile = HOSTILE + " ]]> \ud800 \ufffe"
    listed: list[ListedChange] = [
        change(
            series_name=hostile,
            test=hostile,
            name=hostile,
            unit=hostile,
            culprit=Culprit(CULPRIT, hostile, hostile, 3),
            date=datetime(2024, 3, 1, tzinfo=UTC) + timedelta(hours=1),
        )
    ]
    text = atom_feed(hostile, listed)
    root = checked_feed(text)  # parses: nothing broke out of its element
    assert "<script>" not in text
    assert "&lt;script&gt;" in text
    entry = root.find(f"{ATOM}entry")
    assert entry is not None
    assert [child.tag.removeprefix(ATOM) for child in entry] == [
        "id",
        "title",
        "updated",
        "link",
        "category",
        "summary",
    ]
    title = entry.findtext(f"{ATOM}title") or ""
    assert "<script>alert(1)</script>" in title  # the text itself, as a reader shows it
    assert "\\x1b[31m" in title  # a control is shown, not sent
    assert "\\ud800" in title
    assert "\\ufffe" in title
