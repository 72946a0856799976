"""Histograms in Debian's headless chromium: the walk of a real repository whose
program records latencies with HdrHistogram (tests/services/test_histogram_walk.py),
published; the series page draws the heatmap over the checkouts with the plotting
library, a click on a cell opens the checkout, and the checkout page shows each
repetition's histogram; no error on either page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from perfwalk.config import load_config
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.report import layout
from perfwalk.services.publish import publish_site
from perfwalk.services.run import run_series
from tests.fixtures.chromium import Watched
from tests.fixtures.latency_recorder import require_hdr
from tests.services.test_histogram_walk import COMMITS, latency_config, latency_repo

TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_hdr()
    folder = tmp_path_factory.mktemp("histograms")
    latency_repo(folder / "repo")
    config = load_config(latency_config(folder))
    run_series(config, RunOptions())
    publish_site(config, folder / "site")
    return folder / "site"


def test_the_heatmap_is_drawn_and_opens_a_checkout_with_its_histograms(
    watched: Watched, site: Path
) -> None:
    page: Any = watched.page
    page.goto((site / layout.series_page(1)).as_uri())
    page.wait_for_load_state("load")
    page.locator("div.heatmap").scroll_into_view_if_needed()
    page.wait_for_function(
        "() => { const el = document.querySelector('div.heatmap');"
        " const chart = el && window.echarts && echarts.getInstanceByDom(el);"
        " return chart && el.querySelector('canvas'); }",
        timeout=TIMEOUT_MS,
    )
    drawn = page.evaluate(
        """() => { const el = document.querySelector('div.heatmap');
        const option = echarts.getInstanceByDom(el).getOption();
        const series = option.series[0];
        return [option.xAxis[0].data.length, series.type, series.data.length]; }"""
    )
    print(drawn)
    watched.shot("series")
    assert drawn[0] == COMMITS
    assert drawn[1] == "heatmap"
    assert drawn[2] > COMMITS  # several ranges per checkout
    # a click on a cell of the last checkout opens its page
    x, y = page.evaluate(
        f"""() => {{ const el = document.querySelector('div.heatmap');
        const chart = echarts.getInstanceByDom(el);
        const cell = chart.getOption().series[0].data.find(c => c[0] === {COMMITS - 1});
        const at = chart.convertToPixel({{seriesIndex: 0}}, [cell[0], cell[1]]);
        const box = el.getBoundingClientRect();
        return [box.left + at[0], box.top + at[1]]; }}"""
    )
    page.mouse.click(x, y)
    page.wait_for_url(f"**/checkout.html#c={COMMITS - 1}", timeout=TIMEOUT_MS)
    page.wait_for_selector("#histograms table.histogram", timeout=TIMEOUT_MS)
    captions = page.locator("#histograms caption").all_inner_texts()
    print(captions)
    watched.shot("checkout")
    assert captions == [f"rpc · repetition {r} · latency [us] · 10000 samples" for r in range(3)]
    assert watched.errors == []
