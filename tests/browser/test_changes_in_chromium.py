"""The index opens on its "Changes", in a real browser: a real repository walked,
its regression drilled to the culprit (whose subject and author are hostile text),
the site published; the first table names the culprit and its link opens the drill;
a change band on a plot tells the change in its tooltip and opens the drill when
clicked; the checkout after the change carries a banner; the commits page marks
the culprit. And a triaged change shows its state (the fixed store's)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.report import layout
from perfwalk.store import Store
from tests.browser.test_site_in_chromium import (
    PAINT_TIMEOUT_MS,
    _uri,
    _wait_for_drawing,
    _wait_for_plots,
)
from tests.fixtures.chromium import Watched
from tests.fixtures.noisy_repo import BUILD, CONFIG, NOISY_BENCH
from tests.fixtures.synthetic_repo import CommitSpec, add_commits, make_repo
from tests.report.conftest import Published, publish_fixed

SUBJECT = "<script>alert(1)</script> \"'& make it slower"
AUTHOR = "Mallory 'O\"Brien' & co"  # git drops < and > from names


@dataclass(frozen=True)
class Drilled:
    site: Path
    walk: int  # series ids
    drill: int
    culprit: str  # sha


@pytest.fixture(scope="module")
def drilled(tmp_path_factory: pytest.TempPathFactory) -> Drilled:
    """28 commits at 100 ms, 106 ms from commit 13 (the culprit) on, walked every 4th
    commit by two nights of `perfwalk watch --once`: the second finds the change,
    drills it and publishes the site."""
    folder = tmp_path_factory.mktemp("drilled")
    start = datetime(2025, 3, 1, tzinfo=UTC)
    spec = []
    for i in range(28):
        files: dict[str, str | bytes | None] = {
            "value.txt": f"{100 + (6 if i >= 13 else 0)}\n",
            "commit.txt": f"{i}\n",
        }
        if i == 0:
            files |= {
                "bench.sh": NOISY_BENCH,
                "build.sh": BUILD,
                "salt.txt": "5\n",
                "shape.txt": "gaussian\n",
                ".gitignore": "out/\n",
            }
        culprit = i == 13
        spec.append(
            CommitSpec(
                date=start + i * timedelta(hours=1),
                message=SUBJECT if culprit else f"Commit {i}",
                files=files,
                author=f"{AUTHOR} <m@example.org>" if culprit else "Dev <dev@example.org>",
            )
        )
    # the first night knows 12 commits; the next 16 land, the culprit among them, and
    # the second night's watch finds the change, drills it and publishes
    ids = make_repo(folder / "repo", spec[:12])
    path = folder / "perfwalk.toml"
    nightly = f'\n[[walk]]\nname = "nightly"\nfrom = "{ids[0]}"\nstep = "commit/4"\n'
    path.write_text(CONFIG.format(repo=folder / "repo") + nightly, encoding="utf-8")
    config = load_config(path)
    # 3 checkouts: too few to see a change (undecided, exit 4)
    assert main(["watch", "--once", "-c", str(path)]) in (exits.OK, exits.UNDECIDED)
    ids += add_commits(folder / "repo", spec[12:])
    assert main(["watch", "--once", "-c", str(path)]) == 1  # a new untriaged regression
    with Store.open(config.store.url, read_only=True) as store:
        (drill,) = [row for row in store.drills.all() if row.verdict == "culprit"]
        (walk,) = [s.id for s in store.list_series() if s.walk == "nightly"]
    assert drill.answer is not None
    assert drill.answer["culprit"] == ids[13]
    return Drilled(config.watch.site, walk, drill.series_id, ids[13])


def _band(page: Any) -> tuple[float, float]:
    """Screen position inside the first change band of the first plot, above its line."""
    found = page.evaluate(
        """() => {
          const el = document.querySelector('div.plot');
          el.scrollIntoView();
          const chart = echarts.getInstanceByDom(el);
          const series = chart.getOption().series;
          const isChange = a => a[0].pwChange !== undefined;
          const at = series.findIndex(s => s.markArea && s.markArea.data.some(isChange));
          const band = series[at].markArea.data.find(isChange);
          const x0 = chart.convertToPixel({seriesIndex: at}, [band[0].xAxis, 0])[0];
          const x1 = chart.convertToPixel({seriesIndex: at}, [band[1].xAxis, 0])[0];
          const box = el.getBoundingClientRect();
          return [box.left + (x0 + x1) / 2, box.top + 75];
        }"""
    )
    return float(found[0]), float(found[1])


def test_the_index_opens_on_the_changes_and_the_culprit_leads_to_its_drill(
    drilled: Drilled, watched: Watched
) -> None:
    page = watched.page
    page.goto((drilled.site / layout.INDEX).as_uri())
    first = page.locator("table").first
    assert first.get_attribute("class") == "changes groups"
    row = first.locator("tr.group").first
    culprit = row.locator("a.culprit")
    assert culprit.inner_text() == f"{drilled.culprit[:12]} {SUBJECT}"  # as written, escaped
    assert AUTHOR in (culprit.get_attribute("title") or "")
    assert row.locator("span.triage").inner_text() == "untriaged"
    assert "latency.latency" in row.inner_text()
    watched.shot("1-changes")
    with page.expect_navigation():
        culprit.click()
    assert page.url.endswith(layout.series_page(drilled.drill)), page.url
    page.wait_for_selector("text=CULPRIT: the culprit")
    watched.shot("2-drill")
    assert not watched.dialogs
    assert not watched.errors, watched.errors


def test_a_change_band_tells_the_change_and_opens_the_drill(
    drilled: Drilled, watched: Watched
) -> None:
    page = watched.page
    page.goto((drilled.site / layout.series_page(drilled.walk)).as_uri())
    _wait_for_plots(page)
    x, y = _band(page)
    page.mouse.move(x, y)
    tip = page.locator("div:has-text('Δ ▲ +'):has-text('confidence') >> nth=-1")
    tip.wait_for(timeout=PAINT_TIMEOUT_MS)
    text = tip.inner_text()
    assert "regression latency.latency" in text
    assert f"culprit {drilled.culprit[:12]} {SUBJECT}" in text
    assert "triage: untriaged" in text
    watched.shot("3-band-tooltip")
    with page.expect_navigation():
        page.mouse.click(x, y)
    assert page.url.endswith(layout.series_page(drilled.drill)), page.url
    assert not watched.dialogs
    assert not watched.errors, watched.errors


def test_the_checkout_after_the_change_has_a_banner_and_the_commits_mark_the_culprit(
    drilled: Drilled, watched: Watched
) -> None:
    page = watched.page
    page.goto((drilled.site / layout.INDEX).as_uri())
    with page.expect_navigation():  # its date: the checkout after the change
        page.locator("table.changes tbody tr >> nth=0").locator("td >> nth=0").locator("a").click()
    _wait_for_drawing(page)
    banner = page.locator("div.pw-banner")
    text = banner.inner_text()
    assert "regression of latency.latency" in text
    assert f"culprit {drilled.culprit[:12]} {SUBJECT} ({AUTHOR} <m@example.org>)" in text
    assert "triage: untriaged" in text
    watched.shot("4-banner")
    with page.expect_navigation():
        banner.locator(f"a:text-is('{drilled.culprit[:12]}')").click()
    _wait_for_drawing(page)
    marked = page.locator("article.commit.culprit")
    assert marked.count() == 1
    assert marked.get_attribute("id") == layout.commit_anchor(drilled.culprit)
    assert "pw-target" in (marked.get_attribute("class") or "")  # the link jumped to it
    assert SUBJECT in marked.locator("h3").inner_text()
    assert "culprit of latency.latency" in marked.inner_text()
    watched.shot("5-commits")
    assert not watched.dialogs
    assert not watched.errors, watched.errors


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> Published:
    return publish_fixed(tmp_path_factory.mktemp("fixed"))


def test_a_triaged_change_shows_its_state(fixed: Published, watched: Watched) -> None:
    page = watched.page
    page.goto(_uri(fixed.site, layout.INDEX))
    # one group (one culprit): untriaged while a member is; its members behind it
    assert page.locator("tr.group span.triage").all_inner_texts() == ["untriaged"]
    page.locator("tbody.group summary").first.click()
    states = page.locator("table.members span.triage")
    # the walk's two changes, then its variant's (series 3, the same date)
    assert states.all_inner_texts() == ["expected", "untriaged", "untriaged"]
    assert "BUG-1" in (states.first.get_attribute("title") or "")
    page.goto(_uri(fixed.site, layout.checkout_page(fixed.fixed.daily, 3)))
    _wait_for_drawing(page)
    text = page.inner_text("div.pw-banner")
    assert "triage: expected" in text
    assert "triage: untriaged" in text
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert not watched.dialogs
    assert not watched.errors, watched.errors
