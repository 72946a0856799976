"""The changes for CI and feeds, from a real SQLite store: ``perfwalk changes --format
markdown`` and the site's Atom feed changes.xml (one entry per alert group), with the
culprit a drill named, hostile names escaped, and a second publish that changes no
byte."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.model import Direction
from perfwalk.report import layout
from perfwalk.services.publish import publish_site
from perfwalk.store import Store
from tests.fixtures.site_digests import site_digests
from tests.report.test_feed import ATOM, checked_feed
from tests.report.test_markdown import rendered
from tests.services.test_analyse import CONFIG, TIME, add_series, commit, step
from tests.store.factories import new_series

#: a metric whose name a hostile test output chose
HOSTILE_METRIC = ("t|me <b>x</b> `y` [z](javascript:1)", "ms", Direction.LOWER)
LINKS = """
[report]
base_url = "https://perf.example.org/demo/"
"""


@dataclass(frozen=True)
class Stored:
    config: Config
    path: Path
    slower: int
    drill: int


@pytest.fixture
def stored(tmp_path: Path) -> Stored:
    """A walk 30 % slower from checkout 8 (the drill named the second commit before it
    the culprit), and one whose hostile metric got faster."""
    path = tmp_path / "perfwalk.toml"
    path.write_text(
        CONFIG.replace(
            'repo = "."',
            'name = "demo"\nrepo = "."\ncommit_url = "https://git.example.org/{commit}"',
        )
        + LINKS,
        encoding="utf-8",
    )
    config = load_config(path)
    with Store.open(config.store.url) as store:
        slower = add_series(store, {TIME: step(10, 13, 8)})
        add_series(store, {HOSTILE_METRIC: step(10, 8, 8)}, seed="hostile")
        drill = store.create_series(new_series(kind="drill", parent_id=slower, step="drill"))
        ends = {"before_sha": commit(7, 1).id, "after_sha": commit(8, 1).id}
        store.drills.start(drill, "bench", "time", {"id": f"{slower}:8", **ends})
        culprit = commit(8, 0).id
        answer = {"verdict": "culprit", "reason": "a step", "culprit": culprit}
        store.drills.finish(drill, "culprit", {**answer, "lo": ends["before_sha"], "hi": culprit})
    return Stored(config, path, slower, drill)


def test_changes_as_markdown_for_a_pull_request(
    stored: Stored, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["changes", "-c", str(stored.path), "--format", "markdown"])
    text = capsys.readouterr().out
    assert code == 1  # the same exit status as the text: a regression to act on
    # both walks stepped across the culprit: one alert group of two changes
    assert text.startswith("### perfwalk: demo: 1 regression (2 changes in 1 alert group)\n")
    html = rendered(text)
    head, *rows = html.rows
    assert len(rows) == 2
    assert all(len(row) == len(head) == 9 for row in rows)
    (regression,) = [row for row in rows if row[0] == "regression (confirmed)"]
    culprit = commit(8, 0)
    assert regression[2] == "bench.time [ms]"
    assert regression[7] == f"{culprit.id[:10]} {culprit.subject} (drill {stored.drill})"
    assert f"https://git.example.org/{culprit.id}" in html.hrefs
    assert f"https://perf.example.org/demo/series-{stored.drill}.html" in html.hrefs
    assert f"https://perf.example.org/demo/series-{stored.slower}.html" in html.hrefs
    (improvement,) = [row for row in rows if row[0] == "improvement (confirmed)"]
    assert improvement[2] == "bench.t|me <b>x</b> `y` [z](javascript:1) [ms]"  # text, one cell
    assert not [href for href in html.hrefs if "javascript" in href]


def test_the_markdown_writes_its_days_in_the_site_s_zone(
    stored: Stored, capsys: pytest.CaptureFixture[str]
) -> None:
    """A triage at 23:30 UTC, a site in Europe/Berlin: the report says the next day, and
    its zone once under the heading (it wrote the UTC day and no zone)."""
    text = stored.path.read_text(encoding="utf-8")
    stored.path.write_text(
        text.replace("[report]\n", '[report]\ntime_zone = "Europe/Berlin"\n'), encoding="utf-8"
    )
    key = (stored.slower, commit(7, 1).id, commit(8, 1).id)
    at = datetime(2025, 3, 4, 23, 30, tzinfo=UTC)
    with Store.open(stored.config.store.url) as store:
        store.triage.add(key, state="expected", reason="by design", who="ada@lab", at=at)
    main(["changes", "-c", str(stored.path), "--format", "markdown"])
    out = capsys.readouterr().out
    print(out.splitlines()[:3])
    assert out.splitlines()[1:3] == ["", "times in Europe/Berlin"]
    assert out.count("times in ") == 1
    (triaged,) = [row for row in rendered(out).rows if row[8].startswith("expected")]
    assert triaged[8] == "expected: by design (ada@\u2060lab, 2025-03-05)"


def test_the_site_publishes_a_valid_feed_linked_from_the_index(stored: Stored) -> None:
    out = stored.path.parent / "site"
    publish_site(stored.config, out)
    feed = (out / layout.FEED).read_bytes()
    root = checked_feed(feed.decode())
    entries = root.findall(f"{ATOM}entry")
    # both walks stepped across the culprit the drill named: one alert group, one entry
    (entry,) = entries
    title = entry.findtext(f"{ATOM}title") or ""
    assert re.fullmatch(
        r"regression \(confirmed\): bench\.time ▲ \+(29|30|31)(\.\d)? % \((walk|drill) \d+\) "
        r"worse in netstack weekly, and 1 more \(2 metrics in 2 walks on 1 host\)",
        title,
    )
    hostile = re.escape("bench.t|me <b>x</b> `y` [z](javascript:1)")
    summary = entry.findtext(f"{ATOM}summary") or ""
    assert re.search(rf"; also {hostile} -(19|20|21)(\.\d)? % \(walk \d+\)$", summary), summary
    assert b"<b>" not in feed
    hrefs = {link.get("href") for e in entries for link in e.findall(f"{ATOM}link")}
    assert f"https://perf.example.org/demo/series-{stored.slower}.html" in hrefs
    index = (out / layout.INDEX).read_text(encoding="utf-8")
    head = index.split("</head>", 1)[0]
    assert '<link rel="alternate" type="application/atom+xml" title="changes" ' in head
    assert 'href="changes.xml">' in head
    before = site_digests(out)
    report = publish_site(stored.config, out)
    assert report.written == 0
    assert site_digests(out) == before
    full = publish_site(stored.config, out, full=True)  # rewritten whole: the same bytes
    assert full.written > 0
    assert (out / layout.FEED).read_bytes() == feed
    ET.fromstring(feed)  # still one XML document
