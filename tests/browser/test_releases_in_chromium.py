"""Releases in a real browser: drawn as lines on the plots, and a window chosen above
them (or given in the address) zooms every plot to it; a quirk's letter opens its
commands and patch."""

from __future__ import annotations

from typing import Any

import pytest

from perfwalk.report import layout
from tests.browser.test_site_in_chromium import PAINT_TIMEOUT_MS, _uri
from tests.fixtures.chromium import Watched
from tests.report.conftest import Published, publish_fixed
from tests.report.test_releases import RELEASES


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Published:
    return publish_fixed(tmp_path_factory.mktemp("released"), releases=RELEASES)


def _wait_painted(page: Any) -> None:
    page.locator("div.plot").first.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => document.querySelector('div.plot').dataset.painted", timeout=PAINT_TIMEOUT_MS
    )
    assert page.evaluate("document.querySelector('div.plot').dataset.painted") != "error"


def _zoom(page: Any) -> list[float | None]:
    """The first plot's x window as its slider holds it: [start, end] values."""
    found: list[float | None] = page.evaluate(
        """() => {
          const chart = echarts.getInstanceByDom(document.querySelector('div.plot'));
          const zoom = chart.getOption().dataZoom[1];
          return [zoom.startValue, zoom.endValue, zoom.start, zoom.end];
        }"""
    )
    return found


def _marks(page: Any) -> dict[str, list[str]]:
    """The names of the first plot's mark lines and areas, over all its series."""
    found: dict[str, list[str]] = page.evaluate(
        """() => {
          const chart = echarts.getInstanceByDom(document.querySelector('div.plot'));
          const lines = [], areas = [];
          chart.getOption().series.forEach(s => {
            ((s.markLine || {}).data || []).forEach(d => lines.push(String(d.name)));
            ((s.markArea || {}).data || []).forEach(d => areas.push(String(d[0].name)));
          });
          return {lines, areas};
        }"""
    )
    return found


def test_releases_are_drawn_and_a_window_zooms_the_plots(
    released: Published, watched: Watched
) -> None:
    page = watched.page
    page.goto(_uri(released.site, layout.series_page(1)))
    _wait_painted(page)
    marks = _marks(page)
    names = [r.name for r in RELEASES.found]
    for name in names[:2]:  # the third is after every checkout: off the plot's range
        assert marks["lines"].count(name) == 1  # once per plot, however many lines
    assert marks["lines"].count("A") == 1  # the quirk, once
    assert "A" in marks["areas"]  # shaded over its range
    whole = _zoom(page)
    page.select_option("#release-window", "0:1")
    page.wait_for_function(
        "() => document.querySelector('div.plot').dataset.window === '0:1'",
        timeout=PAINT_TIMEOUT_MS,
    )
    window = _zoom(page)
    assert window[0] == RELEASES.found[0].ms
    assert window[1] == RELEASES.found[1].ms
    assert window != whole
    assert page.evaluate("location.hash") == "#r=0:1"
    watched.shot("release-window")
    page.select_option("#release-window", "")
    page.wait_for_function(
        "() => document.querySelector('div.plot').dataset.window === ''",
        timeout=PAINT_TIMEOUT_MS,
    )
    everything = _zoom(page)
    assert (everything[2], everything[3]) == (0, 100)
    assert not watched.errors, watched.errors


def test_a_window_in_the_address_is_taken_when_the_page_opens(
    released: Published, watched: Watched
) -> None:
    page = watched.page
    page.goto(_uri(released.site, layout.series_page(1) + "#r=1:2"))
    _wait_painted(page)
    assert page.evaluate("document.getElementById('release-window').value") == "1:2"
    page.wait_for_function(
        "() => document.querySelector('div.plot').dataset.window === '1:2'",
        timeout=PAINT_TIMEOUT_MS,
    )
    assert _zoom(page)[0] == RELEASES.found[1].ms
    assert not watched.errors, watched.errors
