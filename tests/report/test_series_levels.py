"""The levels of a whole series as its pages give them: the series page lists them
all, a table page the level of each row's last checkout (whole, or the newest level
as far as the page goes), and a page's key changes only when what it shows does."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from perfwalk.analysis.levels import MetricPoints
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.pages.series import levels_section
from perfwalk.report.series_levels import MetricLevels
from perfwalk.report.site import drill_level_starts
from perfwalk.store import SeriesRow

NAN = math.nan


def _points(values: list[float], idxs: list[int] | None = None) -> MetricPoints:
    return MetricPoints("t", "v", "ms", "lower", tuple(idxs or range(len(values))), tuple(values))


def test_levels_begin_at_the_starts_and_a_start_without_a_value_at_the_next() -> None:
    found = MetricLevels.of(_points([1.0, 1.0, 2.0, 2.0], [0, 1, 3, 4]), [2])
    assert [(found.idxs[x.first], found.idxs[x.last]) for x in found.levels] == [(0, 1), (3, 4)]
    assert found.levels[1].change == pytest.approx(1.0)
    nan_dropped = MetricLevels.of(_points([1.0, NAN, 2.0]), [2])
    assert nan_dropped.idxs == (0, 2)
    assert [x.n for x in nan_dropped.levels] == [1, 1]


def test_a_page_gives_a_closed_level_whole_and_the_newest_as_far_as_it_goes() -> None:
    values = [10.0, 10.0, 20.0, 21.0, 22.0, 30.0, 30.0, 31.0, 32.0]
    found = MetricLevels.of(_points(values), [2, 5])
    # page 0–3: its last checkout is in the level 2–4, closed by the change at 5
    closed = found.shown(0, 3)
    assert closed is not None
    assert closed.whole
    assert (closed.first, closed.last, closed.level.n) == (2, 4, 3)
    assert closed.level.median == 21.0
    # page 4–6: the newest level began on it and goes on: as far as 6
    cut = found.shown(4, 6)
    assert cut is not None
    assert not cut.whole
    assert (cut.first, cut.last, cut.level.n, cut.level.median) == (5, 6, 2, 30.0)
    assert cut.level.change == pytest.approx(30.0 / 21.0 - 1)
    # the newest page: the newest level whole, from where it began
    newest = found.shown(7, 8)
    assert newest is not None
    assert newest.whole
    assert (newest.first, newest.last, newest.level.n) == (5, 8, 4)
    assert newest.level.median == 30.5
    assert found.shown(9, 12) is None  # no checkout with a value there


def test_a_pages_key_moves_only_with_what_it_shows() -> None:
    base = [10.0, 10.0, 10.0, 10.0]
    before = MetricLevels.of(_points(base), [])
    grown = MetricLevels.of(_points([*base, 10.0, 10.0]), [])
    assert before.page_key(0, 1) == grown.page_key(0, 1)  # a new checkout: same older page
    assert before.page_key(2, 3) == grown.page_key(2, 3)
    closed = MetricLevels.of(_points([*base, 20.0, 20.0]), [4])
    assert closed.page_key(0, 1) != grown.page_key(0, 1)  # closed: given whole now
    again = MetricLevels.of(_points([10.0, 11.0, 10.0, 10.0]), [])
    assert again.page_key(2, 3) != before.page_key(2, 3)  # a value measured again
    assert before.page_key(7, 9) is None


def test_the_levels_section_lists_every_level_newest_first_escaped() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    series = SeriesRow(
        id=3,
        name="walk",
        project="p",
        repo="/r",
        from_spec="",
        to_spec="main",
        step="1day",
        repetitions=2,
        between="keep",
        host="local",
        state="finished",
        started_at=t0,
        finished_at=t0,
        config_hash="h",
        config_text="",
        commands={},
        fingerprint={},
        parent_id=None,
        kind="walk",
    )
    hostile = MetricPoints(
        "<script>x</script>",
        "a&b \"q\" 'v'" + "n" * 80,
        "<u>",
        "higher",
        (0, 1, 2, 3),
        (5.0, 5.0, 4.0, 4.0),
    )
    ctx = SeriesContext(series, ())
    levels = {("t", "v"): MetricLevels.of(hostile, [2])}
    html = levels_section(layout.series_page(3), SeriesContext(series, (), levels=levels))
    assert levels_section(layout.series_page(3), ctx) == ""  # no levels: no section
    assert "<script>x" not in html
    assert "&lt;script&gt;x&lt;/script&gt;" in html
    assert "a&amp;b &quot;q&quot; &#x27;v&#x27;" in html
    assert "4.00 &lt;u&gt;" in html
    assert '<table class="levels">' in html  # its names wrap (style.css)
    newest, older = html.split("<tbody>", 1)[1].split("</tr>")[:2]
    assert "#2</a>–<a" in newest
    assert "latest" in newest
    assert 'href="series-3/checkout.html#c=0"' in older
    assert (
        'class="regression">▼ -20.0 % <span class="worse">worse</span>' in older
    )  # higher is better


def test_a_drills_levels_are_split_by_its_answer_for_every_metric() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    drill = SeriesRow(
        id=9,
        name="drill",
        project="p",
        repo="/r",
        from_spec="",
        to_spec="main",
        step="drill",
        repetitions=3,
        between="keep",
        host="local",
        state="finished",
        started_at=t0,
        finished_at=t0,
        config_hash="h",
        config_text="",
        commands={},
        fingerprint={},
        parent_id=1,
        kind="drill",
    )
    ctx = SeriesContext(
        drill, (), drilled=drill_level_starts("culprit", {"lo_position": 2, "hi_position": 3})
    )
    other = MetricPoints("t", "other", "s", "lower", (0, 2, 3, 5), (1.0, 1.0, 2.0, 2.0))
    levels = {("t", "other"): MetricLevels.of(other, ctx.level_starts("t", "other"))}
    html = levels_section(layout.series_page(9), replace(ctx, levels=levels))
    assert "split by the drill&#x27;s answer" in html
    newest, older = html.split("<tbody>", 1)[1].split("</tr>")[:2]
    assert "#3</a>–<a" in newest  # from its culprit on
    assert "#0</a>–<a" in older
    assert "#2</a>" in older  # up to the last commit placed before the step
    assert "▲ +100 %" in older
