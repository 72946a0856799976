"""The Markdown report of ``perfwalk changes --format markdown``, rendered by a real
Markdown parser (markdown-it-py with GitHub's tables): hostile names and subjects
stay text in their own cell, links go only where perfwalk points them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from perfwalk.report.change_list import (
    Culprit,
    DrillMark,
    ListedChange,
    ListedEpisode,
    TriageMark,
)
from perfwalk.report.markdown import Links, changes_markdown, md
from perfwalk.report.times import SiteTimes

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
    # one change (series and commit range) of two metrics: one regression, not two
    assert text.startswith("### perfwalk: demo: 1 regression (2 metrics)\n")
    html = rendered(text)
    head, first, second = html.rows
    assert head == [
        "change",
        "series",
        "metric",
        "before → after",
        "Δ",
        "confidence",
        "evidence",
        "culprit or commits",
        "triage",
    ]
    assert first == [
        "regression (confirmed)",
        "1: checksum 1day",
        "checksum.time [ms]",
        "10.0 ms → 17.9 ms",
        "▲ +79.0 % (series 1), 95 % interval +75.0 % … +83.0 % worse",
        "> 99.99 %",
        "",
        f"{CULPRIT[:10]} Slow down the checksum (drill 5)",
        "untriaged",
    ]
    assert second[0] == "improvement (confirmed)"
    assert second[-2] == f"{BEFORE[:10]}…{AFTER[:10]} (3 commits)"
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
    assert len(row) == 9  # the pipes did not add cells
    shown = HOSTILE.replace("\n", " ").replace("\r", "\\x0d").replace("\x1b", "\\x1b")
    assert row[1] == f"1: {shown}".replace("@", "@\u2060").replace("#", "#\u2060")
    assert row[7].startswith(f"{CULPRIT[:10]} a|b `tick` <script>")  # shown as it was written
    assert "@everyone" not in text  # no one is mentioned
    assert not re.search(r"#\d", text)  # no issue is referenced
    assert len([line for line in text.splitlines() if line.startswith("|")]) == 3
    assert text.splitlines()[-1].startswith("- excursion in [1: a\\|b")
    assert html.tags.count("li") == 1


def test_numbers_and_plain_words_are_written_as_they_are() -> None:
    text = changes_markdown(
        "demo 1.2: net",
        [change(before=80.755, after=97.1234, size=0.2027, low=0.19, high=0.21)],
    )
    row = text.splitlines()[-1]
    assert row.startswith(
        "| **regression** (confirmed) | 1: checksum 1day | checksum.time \\[ms\\] | "
    )
    assert (
        "| 80\\.8 ms → 97\\.1 ms | ▲ +20.3 % (series 1), 95 % interval +19.0 % … +21.0 % worse "
        "| > 99.99 % |"
    ) in row
    assert text.startswith("### perfwalk: demo 1.2: net: 1 regression\n")
    assert rendered(text).rows[1][:4] == [
        "regression (confirmed)",
        "1: checksum 1day",
        "checksum.time [ms]",
        "80.8 ms → 97.1 ms",
    ]


@pytest.mark.parametrize(
    "said", ["# not a heading", "1. not a list", "12) nor this", "- nor this", "+ nor this"]
)
def test_a_text_that_would_start_a_block_stays_text(said: str) -> None:
    html = rendered(f"{md(said)}\n")
    assert set(html.tags) == {"p"}
    shown = MarkdownIt("commonmark").render(md(said)).replace("\u2060", "")  # after "#"
    assert shown == f"<p>{said}</p>\n"


def test_no_address_becomes_a_link_by_itself() -> None:
    said = md("see https://evil.example/x, mailto:a@b.example and www.evil.example")
    assert "https://" not in said
    assert "mailto:" not in said
    assert "www." not in said
    html = MarkdownIt("commonmark").render(said)
    assert html == (
        "<p>see https://evil.example/x, mailto:a@\u2060b.example and www.evil.example</p>\n"
    )


def test_a_change_counts_once_however_many_of_its_metrics_moved() -> None:
    other = {"before_sha": "4" * 40, "after_sha": "5" * 40, "after_idx": 12}
    two = [change(), change(name="rss", unit="kB"), change(regression=False, **other)]
    assert changes_markdown("demo", two).startswith(
        "### perfwalk: demo: 1 regression, 1 improvement (3 metrics)\n"
    )


def test_the_triage_and_the_drills_answer_of_each_change() -> None:
    at = datetime(2024, 3, 4, 9, 30, tzinfo=UTC)
    word = TriageMark("expected", "slower by *design*", "ada@lab", at, "https://bugs.example.org/7")
    lo, hi = "6" * 40, "7" * 40
    ranged = DrillMark(7, "range", lo, hi, "the commits between could not be placed")
    gone = DrillMark(8, "no-change", BEFORE, AFTER, "the two ends do not differ")
    stuck = DrillMark(9, "undecided", BEFORE, AFTER, "the budget ran out")
    refuted = "refuted by drill 8 (NO-CHANGE: the two ends do not differ)"
    text = changes_markdown(
        "demo",
        [
            change(triage=word, drill=ranged),
            change(
                series_id=2,
                drill=gone,
                state="refuted",
                chain=("detected in walk 2 at > 99.99 %, both sides quiet", refuted),
                note=refuted,
            ),
            change(series_id=3, drill=stuck, state="undecided"),
        ],
        links=Links(base_url="https://perf.example.org"),
    )
    # the refuted change is not counted: it is listed apart, after the others; the two
    # others share their commits: one alert group, counted as its first kind
    assert text.startswith("### perfwalk: demo: 1 regression (2 changes in 1 alert group)\n")
    listed, ruled_out = text.split("Ruled out (measured again, the change was not there):")
    html = rendered(listed)
    _head, first, third = html.rows
    assert first[0] == "regression (confirmed)"  # triaged: no longer shown as one to act on
    assert (
        first[7]
        == f"{BEFORE[:10]}…{AFTER[:10]} (3 commits), narrowed to {lo[:10]}…{hi[:10]} by drill 7"
    )
    assert first[8] == "expected: slower by *design* (ada@\u2060lab, 2024-03-04, bug)"
    assert "https://bugs.example.org/7" in html.hrefs
    assert "https://perf.example.org/series-7.html" in html.hrefs
    assert third[0] == "regression (undecided)"
    assert third[7].endswith("; drill 9: undecided: the budget ran out")
    # the strong "expected", and the group's word: its untriaged member needs action
    assert html.tags.count("strong") == 2
    (group,) = [line for line in listed.splitlines() if line.startswith("- ")]
    assert group == (
        f"- `{BEFORE[:10]}`…`{AFTER[:10]}` (3 commits): **regression** checksum.time "
        "▲ +79.0 % (series 3) worse; 1 metric in 2 walks; untriaged"
    )
    _head, second = rendered(ruled_out).rows
    assert second[0] == "regression (refuted)"
    assert second[6].endswith(refuted)
    assert second[7].endswith("; drill 8: not confirmed: the two ends do not differ")
    assert second[8] == "untriaged"


#: the culprits of a lab's night: the first steps at AFTER, the second at CULPRIT
FIRST, SECOND = "8" * 40, "9" * 40


def two_culprits(series: Sequence[int], metrics: int) -> list[ListedChange]:
    """Each of ``metrics`` metrics of each of ``series`` stepping at both culprits."""
    return [
        change(
            series_id=sid,
            name=f"m{metric}",
            before_sha=before,
            after_sha=after,
            after_idx=idx,
            culprit=Culprit(culprit, "", "Dev <dev@example.org>", 500),
        )
        for sid in series
        for metric in range(metrics)
        for before, after, idx, culprit in ((BEFORE, AFTER, 8, FIRST), (AFTER, CULPRIT, 20, SECOND))
    ]


def test_a_lab_size_report_counts_its_culprits_first() -> None:
    """100 walks (one per metric) over two culprits: 200 changes, 2 alert groups; the
    heading tells the two culprits first (it said "200 regressions")."""
    lab = two_culprits(range(1, 101), 1)
    text = changes_markdown("lab", lab)
    print(text.splitlines()[0])
    assert text.startswith("### perfwalk: lab: 2 regressions (200 changes in 2 alert groups)\n")
    assert text.count("\n- ") == 2  # a line per group
    # one group triaged whole, one with a single member triaged: 1 group triaged
    mark = TriageMark("acknowledged", "known", "ada@lab", datetime(2024, 3, 4, tzinfo=UTC))
    triaged = [
        replace(c, triage=mark) if c.after_sha == AFTER or c.series_id == 1 else c for c in lab
    ]
    heading = changes_markdown("lab", triaged).splitlines()[0]
    assert heading == "### perfwalk: lab: 2 regressions (1 triaged) (200 changes in 2 alert groups)"
    # one culprit, two walks, two metrics each, one an improvement
    two = [c for c in lab if c.series_id <= 2 and c.after_sha == AFTER]
    both = [*two, *(replace(c, name="rss", regression=False) for c in two)]
    heading = changes_markdown("lab", both).splitlines()[0]
    assert heading == "### perfwalk: lab: 1 regression (2 changes in 1 alert group, 4 metrics)"


def test_the_report_writes_its_days_in_the_site_s_zone_said_once() -> None:
    """A triage at 23:30 UTC is the next day in Berlin (it said the UTC day)."""
    at = datetime(2024, 3, 4, 23, 30, tzinfo=UTC)
    word = TriageMark("expected", "by design", "ada@lab", at)
    text = changes_markdown("demo", [change(triage=word)], times=SiteTimes("Europe/Berlin"))
    heading, blank, said, *_rest = text.splitlines()
    print(heading, "|", said)
    assert (blank, said) == ("", "times in Europe/Berlin")
    assert text.count("times in ") == 1
    (_head, row) = rendered(text).rows
    assert row[8] == "expected: by design (ada@\u2060lab, 2024-03-05)"
    assert "2024-03-04" not in text
    assert "UTC" not in text
    # no day written: no zone said
    assert "times in" not in changes_markdown("demo", [change()], times=SiteTimes("Europe/Berlin"))
