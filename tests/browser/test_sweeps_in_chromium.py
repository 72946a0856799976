"""A sweep's plots in Debian's headless chromium, at a laptop's width and a phone's: a
real walk of a sweep of 3 × 2 published; each member's plot is titled by its name and
shows its test's description under the title, and the plot data carry the member's
sweep and family (what a page groups them by); the filter box finds the family."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from perfwalk.config import load_config
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.report import layout
from perfwalk.services.publish import publish_site
from perfwalk.services.run import run_series
from tests.browser.test_widths_in_chromium import page
from tests.fixtures.synthetic_repo import CommitSpec, make_repo

__all__ = ["page"]  # a fixture of this module too: each test at both widths
TIMEOUT_MS = 15_000
DESCRIPTION = "UDP <b>throughput</b> & loss at each size"  # shown as text, never markup

CONFIG = """\
[project]
repo = "{repo}"

[build]
steps = ["true"]

[run]
step = "commit"
repetitions = 2

[[test]]
name = "udp"
group = "net"
description = {description}
command = "echo VALUE $(( {{sweep.size}} * {{sweep.streams}} )) B/s receiver"
parser = "value"
[test.sweep]
size = [64, 512, 1500]
streams = [1, 10]
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sweeps")
    start = datetime(2025, 3, 1, tzinfo=UTC)
    make_repo(
        folder / "repo",
        [CommitSpec(start + timedelta(hours=i), f"c{i}", {"n": f"{i}\n"}) for i in range(3)],
    )
    path = folder / "perfwalk.toml"
    text = CONFIG.format(repo=folder / "repo", description=json.dumps(DESCRIPTION))
    path.write_text(text, encoding="utf-8")
    config = load_config(path)
    run_series(config, RunOptions())
    publish_site(config, folder / "site")
    return folder / "site"


def test_each_member_has_its_plot_with_the_description_under_its_title(
    page: Any, site: Path
) -> None:
    page.goto((site / layout.series_page(1)).as_uri())
    page.wait_for_load_state("load")
    plots = page.locator("div.plot")
    for n in range(plots.count()):  # each is drawn once in view
        plots.nth(n).scroll_into_view_if_needed()
        page.wait_for_function(
            f"() => document.querySelectorAll('div.plot')[{n}].dataset.painted",
            timeout=TIMEOUT_MS,
        )
    drawn: list[dict[str, Any]] = page.evaluate(
        """() => [...document.querySelectorAll('div.plot')].map(el => {
          const option = echarts.getInstanceByDom(el).getOption();
          return {title: option.title[0].text, subtext: option.title[0].subtext,
                  key: el.dataset.key};
        })"""
    )
    print(drawn)
    assert [d["title"] for d in drawn] == [
        "udp[size=64,streams=1] [B/s]",  # a family in the order of its parameters
        "udp[size=64,streams=10] [B/s]",
        "udp[size=512,streams=1] [B/s]",
        "udp[size=512,streams=10] [B/s]",
        "udp[size=1500,streams=1] [B/s]",
        "udp[size=1500,streams=10] [B/s]",
    ]
    assert {d["subtext"] for d in drawn} == {DESCRIPTION}

    meta = (site / "series-1" / "data" / "meta.js").read_text(encoding="utf-8")
    keys = json.loads(meta[meta.index(",") + 1 : meta.rindex(")")])["keys"]
    facts = {k["test"]: (k["family"], k["sweep"], k["group"]) for k in keys.values()}
    assert facts["udp[size=64,streams=10]"] == ("udp", {"size": 64, "streams": 10}, "net")
    assert {family for family, _sweep, _group in facts.values()} == {"udp"}

    page.fill("p.pw-plot-filter input", "udp[size=64")
    shown = page.eval_on_selector_all(
        "div.plot", "els => els.filter(el => !el.hidden).map(el => el.dataset.title)"
    )
    assert shown == ["udp[size=64,streams=1] [B/s]", "udp[size=64,streams=10] [B/s]"]


def test_each_family_is_drawn_as_a_profile_of_its_swept_parameter(page: Any, site: Path) -> None:
    """Above the members' plots, a profile per held parameter: size on a log x axis
    (64 … 1500 spans a decade), the value on y, a line per checkout range."""
    page.goto((site / layout.series_page(1)).as_uri())
    page.wait_for_load_state("load")
    profiles = page.locator("div.sweep-plot")
    assert profiles.count() == 2
    for n in range(2):
        page.wait_for_function(
            f"() => document.querySelectorAll('div.sweep-plot')[{n}].dataset.painted",
            timeout=TIMEOUT_MS,
        )
    drawn: list[dict[str, Any]] = page.evaluate(
        """() => [...document.querySelectorAll('div.sweep-plot')].map(el => {
          const option = echarts.getInstanceByDom(el).getOption();
          return {title: option.title[0].text, x: option.xAxis[0].type,
                  name: option.xAxis[0].name,
                  lines: option.series.map(s => [s.name, s.data])};
        })"""
    )
    assert [d["title"] for d in drawn] == [
        "udp[streams=1] receiver per size",
        "udp[streams=10] receiver per size",
    ]
    assert {(d["x"], d["name"]) for d in drawn} == {("log", "size (log)")}
    for d, streams in zip(drawn, (1, 10), strict=True):
        ((label, points),) = d["lines"]  # no change: one range
        assert label.startswith("checkouts 0–2 (")
        assert points == [[64, 64 * streams], [512, 512 * streams], [1500, 1500 * streams]]
