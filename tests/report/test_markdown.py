"""The Markdown report of ``perfwalk changes --format markdown``, rendered by a real
Markdown parser (markdown-it-py with GitHub's tables): hostile names and subjects
stay text in their own cell, links go only where perfwalk points them."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from html.parser import HTMLParser

from markdown_it import MarkdownIt

from perfwalk.report.change_list import Culprit, ListedChange, ListedEpisode
from perfwalk.report.markdown import Links, changes_markdown

HOSTILE = (
    "a|b `tick` <script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3)) "
    "*bold* _em_ ~~gone~~ @everyone #123 &amp; \\| line\nbreak\r\x1b[31mred"
)
BEFORE, AFTER, CULPRIT = "1" * 40, "2" * 40, "3" * 40


def change(**fields: object) -> ListedChange:
    base = ListedChange(
        series_id=1,
        series_name="checksum 1day",
        test="checksum",
        name="time",
        unit="ms",
        regression=True,
        before=10.0,
        after=17.9,
        size=0.79,
        low=0.75,
        high=0.83,
        confidence=0.99999,
        before_idx=7,
        after_idx=8,
        before_sha=BEFORE,
        after_sha=AFTER,
        date=datetime(2024, 3, 2, 12, 0),
        commits=3,
    )
    return replace(base, **fields)  # type: ignore[arg-type]


class Html(HTMLParser):
    """What a rendered comment holds: elements by name, links, and the text of each
    table cell by row."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.hrefs: list[str] = []
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "a":
            self.hrefs.append(dict(attrs).get("href") or "")
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def rendered(text: str) -> Html:
    found = Html()
    found.feed(MarkdownIt("commonmark").enable("table").enable("strikethrough").render(text))
    return found


def test_a_regression_with_its_culprit_and_links() -> None:
    culprit = Culprit(CULPRIT, "Slow down the checksum", "Dev <dev@example.org>", 5)
    text = changes_markdown(
        "demo",
        [change(culprit=culprit), change(regression=False, size=-0.1, low=-0.12, high=-0.08)],
        links=Links(
            commit_url="https://git.example.org/demo/commit/{commit}",
            base_url="https://perf.example.org/demo",
        ),
    )
    assert text.startswith("### perfwalk: demo: 1 regression, 1 improvement\n")
    html = rendered(text)
    head, first, second = html.rows
    assert head == [
        "change",
        "series",
        "metric",
        "before → after",
        "Δ (95 % interval)",
        "confidence",
        "culprit or commits",
    ]
    assert first == [
        "regression",
        "1: checksum 1day",
        "checksum.time [ms]",
        "10 → 17.9",
        "+79 % (+75 % … +83 %)",
        "> 99.99 %",
        f"{CULPRIT[:10]} Slow down the checksum (drill 5)",
    ]
    assert second[0] == "improvement"
    assert second[-1] == f"{BEFORE[:10]}…{AFTER[:10]} (3 commits)"
    assert html.hrefs == [
        "https://perf.example.org/demo/series-1.html",
        "https://perf.example.org/demo/series-1/checkout.html#c=8",
        f"https://git.example.org/demo/commit/{CULPRIT}",
        "https://perf.example.org/demo/series-5.html",
        "https://perf.example.org/demo/series-1.html",
        "https://perf.example.org/demo/series-1/checkout.html#c=8",
        f"https://git.example.org/demo/commit/{BEFORE}",
        f"https://git.example.org/demo/commit/{AFTER}",
    ]


def test_without_links_and_without_changes() -> None:
    text = changes_markdown("demo", [change()])
    assert "](" not in text  # neither commit_url nor base_url: no link at all
    assert rendered(text).hrefs == []
    assert changes_markdown("demo", []) == (
        "### perfwalk: demo: no changes\n\nNo regression or improvement found.\n"
    )


def test_hostile_names_and_subjects_stay_text_in_their_cell() -> None:
    culprit = Culprit(CULPRIT, HOSTILE, HOSTILE, 5)
    episode = ListedEpisode(1, HOSTILE, HOSTILE, HOSTILE, "excursion", 3, 5, 0.2, worse=True)
    text = changes_markdown(
        HOSTILE,
        [change(series_name=HOSTILE, test=HOSTILE, unit=HOSTILE, culprit=culprit)],
        [episode],
        Links(commit_url="https://git.example.org/c/{commit}", base_url="https://perf.example.org"),
    )
    html = rendered(text)
    assert {"script", "img", "em", "s", "del"} & set(html.tags) == set()
    assert html.tags.count("code") == 1  # the culprit's id, nothing from the subject
    assert html.tags.count("strong") == 1  # the word "regression", nothing from a name
    assert all(href.startswith("https://") for href in html.hrefs)
    assert not [href for href in html.hrefs if "javascript" in href]
    _head, row = html.rows  # one row: the line break did not end it
    assert len(row) == 7  # the pipes did not add cells
    shown = HOSTILE.replace("\n", " ").replace("\r", "\\x0d").replace("\x1b", "\\x1b")
    assert row[1] == f"1: {shown}".replace("@", "@\u2060").replace("#", "#\u2060")
    assert row[6].startswith(f"{CULPRIT[:10]} a|b `tick` <script>")  # shown as it was written
    assert "@everyone" not in text  # no one is mentioned
    assert not re.search(r"#\d", text)  # no issue is referenced
    assert len([line for line in text.splitlines() if line.startswith("|")]) == 3
    assert text.splitlines()[-1].startswith("- excursion in [1\\: a\\|b")
    assert html.tags.count("li") == 1
