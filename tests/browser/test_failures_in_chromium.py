"""A failed build in a real browser: a marker on the plot at its checkout (a cross at
the bottom, its tooltip what failed), a gap in the line, a click that opens its
checkout, whose page shows the first error line and the log's last lines as text."""

from __future__ import annotations

import re
from typing import Any

import pytest

from perfwalk.composites.demo import DemoResult
from perfwalk.report import layout
from tests.fixtures.chromium import Watched
from tests.report.conftest import Published, publish_fixed
from tests.report.history import HOSTILE

PAINT_TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> Published:
    return publish_fixed(tmp_path_factory.mktemp("failures"))


def _paint_first_plot(page: Any) -> None:
    page.locator("div.plot").first.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => document.querySelector('div.plot').dataset.painted", timeout=PAINT_TIMEOUT_MS
    )
    assert page.evaluate("document.querySelector('div.plot').dataset.painted") != "error"


def _failure_marks(page: Any, sid: int) -> Any:
    """The first plot's failure markers: [checkout, severity, tooltip text, x, y on
    the screen], and the checkouts where its first line has a gap."""
    return page.evaluate(
        """(sid) => {
          const el = document.querySelector('div.plot');
          el.scrollIntoView();
          const chart = echarts.getInstanceByDom(el);
          const series = chart.getOption().series;
          const at = series.findIndex(s => s.id === 'f|' + sid);
          if (at < 0) return {marks: [], gaps: []};
          const box = el.getBoundingClientRect();
          const marks = series[at].data.map(d => {
            const [x, y] = chart.convertToPixel({seriesIndex: at}, [d.value[0], d.value[1]]);
            return [d.value[2], d.value[3], d.name, box.left + x, box.top + y];
          });
          const line = series.find(s => String(s.id).startsWith('s|' + sid + '|'));
          const gaps = line.data.filter(d => d[1] === null).map(d => d[2]);
          return {marks, gaps};
        }""",
        sid,
    )


def _open_marked_checkout(page: Any, watched: Watched, sid: int, idx: int) -> str:
    found = _failure_marks(page, sid)
    (mark,) = [m for m in found["marks"] if m[0] == idx]
    assert idx in found["gaps"]  # the line is not drawn across the failed checkout
    _idx, severity, tip, x, y = mark
    assert severity == 11  # NOEXIST
    page.mouse.move(x, y)
    page.wait_for_selector(f"text=checkout {idx}: build failed (NOEXIST)", timeout=5000)
    watched.shot(f"failed-{sid}-{idx}-tooltip")
    with page.expect_navigation():
        page.mouse.click(x, y)
    assert page.url.endswith(layout.checkout_page(sid, idx)), page.url
    page.wait_for_function(
        "() => document.getElementById('pw-page').dataset.drawn", timeout=PAINT_TIMEOUT_MS
    )
    box = page.locator("div.pw-failures")
    assert box.locator("h2").inner_text() == "The build failed"
    watched.shot(f"failed-{sid}-{idx}-checkout")
    return str(tip)


def test_a_failed_build_is_marked_on_the_plot_and_explained(
    fixed: Published, watched: Watched
) -> None:
    page = watched.page
    daily = fixed.fixed.daily
    page.goto((fixed.site / layout.series_page(daily)).as_uri())
    _paint_first_plot(page)
    tip = _open_marked_checkout(page, watched, daily, 1)
    assert tip == f"checkout 1: build failed (NOEXIST) — error: {HOSTILE}"
    box = page.locator("div.pw-failures")
    # the hostile error line is shown as text: its tags are characters, not elements
    assert box.locator("p.error-line").inner_text() == "error: " + HOSTILE
    assert box.locator("pre.tail").inner_text() == "error: " + HOSTILE
    assert box.locator("script, img").count() == 0
    assert page.evaluate("window.pwned") is None
    box.locator("a", has_text="the whole log").click()
    assert "logs.html#c=1&to=log-" in page.url
    assert not watched.errors, watched.errors


@pytest.mark.slow
def test_the_demo_s_broken_build_is_on_its_plot(demo_result: DemoResult, watched: Watched) -> None:
    page = watched.page
    (broken,) = [f for f in demo_result.findings if f.event.direction == "broken-build"]
    found = re.search(r"checkout (\d+) did not build", broken.detail)
    assert found, broken.detail
    sid = demo_result.series_id
    page.goto((demo_result.site / layout.series_page(sid)).as_uri())
    _paint_first_plot(page)
    _open_marked_checkout(page, watched, sid, int(found.group(1)))
    line = page.locator("div.pw-failures p.error-line").inner_text()
    assert "fatal error" in line
    assert "No such file or directory" in line
    assert not watched.errors, watched.errors
