"""The message telling one change (``[notify]``): golden texts, and hostile subjects,
authors and names that stay text in the plain body and in the Markdown one."""

from __future__ import annotations

import re
from dataclasses import replace
from html import unescape
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from perfwalk.analysis.verdict import Measurement
from perfwalk.report.change_list import Culprit, DrillMark
from perfwalk.report.markdown import Links
from perfwalk.report.notice import Notice, notice
from tests.report.test_markdown import AFTER, CULPRIT, HOSTILE, Html, change

GOLDEN = Path(__file__).parents[1] / "golden" / "notice"
LINKS = Links(
    commit_url="https://git.example.org/demo/commit/{commit}",
    base_url="https://perf.example.org/demo",
)
REFUTED = "refuted by a re-measure (+0.1 %): it did not hold"
CASES = {
    "culprit": replace(
        change(),
        culprit=Culprit(CULPRIT, "crc32: unroll the inner loop", "Ada Lovelace", drill=9),
        chain=("detected in walk 1 at > 99.99 %, both sides quiet",),
        headline=Measurement(0.79, "walk 1", 0.75, 0.83, 0.99999),
    ),
    "range": replace(
        change(regression=False, size=-0.2, low=-0.25, high=-0.15, after=8.0),
        drill=DrillMark(drill=4, verdict="range", lo=CULPRIT, hi=AFTER, reason="budget spent"),
        state="refuted",
        chain=("detected in walk 1 at > 99.99 %, both sides quiet", REFUTED),
        headline=Measurement(0.001, "re-measure"),
        note=REFUTED,
    ),
}


def _shown(told: Notice) -> str:
    return f"title: {told.title}\n\n--- text\n{told.text}\n--- markdown\n{told.markdown}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_notices_match_the_golden_texts(case: str, regen_golden: bool) -> None:
    told = notice(CASES[case], project="demo", host="local (builder-1)", links=LINKS)
    golden = GOLDEN / f"{case}.txt"
    if regen_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(_shown(told), encoding="utf-8")
    assert _shown(told) == golden.read_text(encoding="utf-8")


def test_a_notice_names_everything_a_person_acts_on() -> None:
    told = notice(CASES["culprit"], project="demo", host="local (builder-1)", links=LINKS)
    assert told.title == (
        "perfwalk demo: regression (confirmed): checksum.time ▲ +79.0 % (walk 1) worse in "
        "checksum 1day on local (builder-1)"
    )
    for shown in (told.text, told.markdown):
        for words in (
            CULPRIT,
            "crc32: unroll the inner loop",
            "Ada Lovelace",
            "+79.0 % (walk 1), 95 % interval +75.0 % … +83.0 %",
            "verdict: confirmed: detected in walk 1 at > 99.99 %, both sides quiet",
            "confidence > 99.99 %",
            "checksum.time",
            "checksum 1day",
            "local (builder-1)",
            "https://perf.example.org/demo/series-1.html",
        ):
            plain = shown if shown is told.text else _rendered_text(shown)
            assert words in plain, (words, shown)


def test_the_metrics_of_one_change_are_told_in_one_message() -> None:
    rate = replace(
        CASES["culprit"],
        test="checksum",
        name="rate",
        unit="MB/s",
        size=-0.44,
        low=-0.46,
        headline=None,
    )
    told = notice(CASES["culprit"], project="demo", host="local", links=LINKS, others=[rate])
    assert told.title.endswith(
        "checksum.time ▲ +79.0 % (walk 1) worse in checksum 1day and 1 more metric on local"
    )
    for shown in (told.text, _rendered_text(told.markdown)):
        assert "also across these commits:" in shown
        assert (
            "regression: checksum.rate: 10.0 MB/s → 17.9 MB/s, ▼ -44.0 % (series 1), "
            "95 % interval -46.0 %" in shown
        )


def _rendered_text(markdown: str) -> str:
    """What a reader sees of ``markdown``: its text, tags and word joiners left out."""
    return _strip_tags(MarkdownIt("commonmark").render(markdown))


def _strip_tags(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html)).replace("\u2060", "")


def test_hostile_text_stays_text() -> None:
    hostile = replace(
        CASES["culprit"],
        series_name=HOSTILE,
        name=HOSTILE,
        culprit=Culprit(CULPRIT, HOSTILE, HOSTILE, drill=9),
    )
    told = notice(hostile, project=HOSTILE, host=HOSTILE, links=LINKS)
    assert "\n" not in told.title
    assert "\x1b" not in told.title + told.text + told.markdown
    text_lines = told.text.splitlines()
    assert len(text_lines) == len(
        notice(CASES["culprit"], project="p", host="h", links=LINKS).text.splitlines()
    )
    html = Html()
    rendered = MarkdownIt("commonmark").enable("strikethrough").render(told.markdown)
    html.feed(rendered)
    assert set(html.tags) <= {"p", "ul", "li", "a", "code", "strong"}
    assert all(
        h.startswith(("https://perf.example.org/", "https://git.example.org/")) for h in html.hrefs
    )
    assert "@everyone" not in unescape(re.sub(r"<[^>]+>", "", rendered))  # a word joiner after @
    assert "alert" not in "".join(html.hrefs)
