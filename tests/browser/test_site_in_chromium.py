"""The published site in a real browser: the three clicks from the index to a log
line, a click on a plot point, no console error, and hostile text that stays text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from perfwalk.report import layout
from tests.fixtures.chromium import Watched
from tests.report.conftest import Published, publish_fixed
from tests.report.history import HOSTILE

PAINT_TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Published:
    return publish_fixed(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from perfwalk.services.demo import run_demo

    return run_demo(tmp_path_factory.mktemp("demo") / "demo").site


def _wait_for_plots(page: Any) -> None:
    page.wait_for_function(
        "() => [...document.querySelectorAll('div.plot')].slice(0, 1)"
        ".every(el => el.dataset.painted)",
        timeout=PAINT_TIMEOUT_MS,
    )
    assert page.evaluate("document.querySelector('div.plot').dataset.painted") != "error"


def _point_on(page: Any) -> tuple[float, float, int]:
    """Screen position of a repetition point of the first plot, and its checkout."""
    found = page.evaluate(
        """() => {
          const el = document.querySelector('div.plot');
          const chart = echarts.getInstanceByDom(el);
          const series = chart.getOption().series;
          const at = series.findIndex(s => s.type === 'scatter');
          const data = series[at].data;
          const point = data[Math.floor(data.length / 2)];
          const [x, y] = chart.convertToPixel({seriesIndex: at}, [point[0], point[1]]);
          const box = el.getBoundingClientRect();
          return [box.left + x, box.top + y, point[2]];
        }"""
    )
    return float(found[0]), float(found[1]), int(found[2])


@pytest.mark.slow
def test_demo_site_from_the_index_to_a_log_line(demo_site: Path, watched: Watched) -> None:
    page = watched.page
    page.goto((demo_site / layout.INDEX).as_uri())
    _wait_for_plots(page)
    watched.shot("1-index")
    page.click("table.series thead a")  # the series
    assert page.url.endswith(layout.series_page(1))
    _wait_for_plots(page)
    watched.shot("2-series")
    x, y, checkout = _point_on(page)
    page.mouse.move(x, y)
    page.wait_for_selector("text=repetition", timeout=5000)  # the tooltip
    watched.shot("3-tooltip")
    with page.expect_navigation():
        page.mouse.click(x, y)
    assert page.url.endswith(layout.checkout_page(1, checkout)), page.url
    watched.shot("4-checkout")
    page.click("table.repetitions td.PASS a >> nth=0")  # a repetition's status → its log
    assert "/" + layout.logs_page(1, checkout) + "#result-" in page.url
    line = page.locator("section.result:target pre.log > a >> nth=0")
    assert line.count() == 1
    anchor = line.get_attribute("id")
    line.click()
    assert page.url.endswith("#" + anchor)
    watched.shot("5-log")
    assert not watched.errors, watched.errors


def test_hostile_history_runs_no_script(hostile: Published, watched: Watched) -> None:
    page = watched.page
    daily = hostile.fixed.daily
    for path in (
        layout.INDEX,
        layout.series_page(daily),
        layout.checkout_page(daily, 3),
        layout.logs_page(daily, 3),
        layout.logs_page(daily, 1),
        layout.commits_page(daily, 3),
        layout.setup_page(daily),
    ):
        page.goto((hostile.site / path).as_uri())
        if path in (layout.INDEX, layout.series_page(daily)):
            _wait_for_plots(page)
            watched.shot("hostile-" + path.replace("/", "-"))
        else:
            page.wait_for_load_state("load")
        assert page.evaluate("typeof window.pwned") == "undefined", path
        text = page.inner_text("body")
        assert HOSTILE in text or "&lt;script" not in text, path
    page.goto((hostile.site / layout.commits_page(daily, 3)).as_uri())
    text = page.inner_text("body")
    assert f"Fix {HOSTILE}" in text  # the commit subject, shown as written
    assert "\\x1b[1mbold\\x1b[0m" in text  # ANSI codes visible, not interpreted
    page.goto((hostile.site / layout.logs_page(daily, 3)).as_uri())
    text = page.inner_text("body")
    assert "<script>window.pwned=3</script>" in text
    assert "invalid utf-8: \ufffd\ufffd end" in text
    assert "\\x1b[31mred\\x1b[0m <b onmouseover='x'>" in text
    lines = page.evaluate(  # each line follows its anchor, as written
        "[...document.querySelectorAll('pre.log > a')]"
        ".map(a => a.nextSibling ? a.nextSibling.textContent.split('\\n')[0] : '')"
    )
    assert "<script>window.pwned=3</script>" in lines
    assert "\\x1b[31mred\\x1b[0m <b onmouseover='x'>" in lines
    assert "invalid utf-8: \ufffd\ufffd end" in lines
    watched.shot("hostile-logs")
    assert not watched.dialogs
    assert not watched.errors, watched.errors
