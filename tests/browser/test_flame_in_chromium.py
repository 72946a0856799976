"""Flame graphs in a real browser, from file:// under the site's CSP: a profile's page
and a drill's differential draw the hot function, a hostile function name shows as
text and runs nothing, no console error (a CSP violation is one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from perfwalk.analysis.profile_diff import differential
from perfwalk.quantities import format_share
from perfwalk.report import layout
from perfwalk.report.assets import site_assets
from perfwalk.report.collect import Policies, read_block
from perfwalk.report.context import SeriesContext
from perfwalk.report.flame_data import compress_folded, profile_data_file
from perfwalk.report.pages.checkout import checkout_data_file
from perfwalk.report.pages.drill import drill_section
from perfwalk.report.pages.profiles import ProfilePair, profile_diff_file, profile_shell_page
from perfwalk.report.pages.series import series_page
from perfwalk.store import Store
from tests.browser.test_site_in_chromium import PAINT_TIMEOUT_MS, _uri
from tests.fixtures.chromium import Watched
from tests.report.conftest import publish_fixed
from tests.report.test_drill_page import _series
from tests.report.test_profile_trust_pages import _published

HOT = "hot_function"
SCRIPT = "<script>window.__pwned=1</script>"
IMAGE = '<img src=x onerror="window.__pwned=2">'
BEFORE = {
    f"main;work;{HOT}": 100,
    "main;work;cold": 300,
    f"main;{SCRIPT}": 80,
    f"main;{IMAGE};leaf": 60,
}
AFTER = {**BEFORE, f"main;work;{HOT}": 600, "main;new\x1b[31m": 5}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site's own files, a drill series' page with the differential of AFTER against
    BEFORE, and the series' profile page with AFTER as profile 7."""
    out = tmp_path_factory.mktemp("flame")
    files = dict(site_assets())
    ctx = SeriesContext(_series(), ())
    at = layout.series_page(7)
    pair = ProfilePair.of(f"net {SCRIPT}", "1111aaaa", "2222bbbb", differential(BEFORE, AFTER))
    drill = {"test": "net", "name": "x", "change": {}, "verdict": None, "steps": []}
    files[at] = series_page(ctx, [], "", drill_section(at, ctx, drill, {}, pair)).encode()
    path, text = profile_diff_file(7, pair, differential(BEFORE, AFTER).tree)
    files[path] = text.encode()
    files[layout.profile_shell(7)] = profile_shell_page(ctx).encode()
    files[layout.profile_data(7, 7)] = profile_data_file(
        7, compress_folded(AFTER), test=f"net {IMAGE}", checkout=4
    ).encode()
    for name, data in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    return out


def _drawn(page: Any) -> None:
    page.wait_for_function(
        "() => [...document.querySelectorAll('div.pw-flame')].every(b => b.dataset.drawn)",
        timeout=PAINT_TIMEOUT_MS,
    )
    # the renderer writes the frames' labels at the end of its transition
    page.wait_for_function(
        f"() => [...document.querySelectorAll('div.d3-flame-graph-label')]"
        f".some(d => d.textContent === {HOT!r})",
        timeout=PAINT_TIMEOUT_MS,
    )


def _frame_names(page: Any) -> list[str]:
    names: list[str] = page.evaluate(
        "() => [...document.querySelectorAll('svg g.frame')].map(g => g.getAttribute('name'))"
    )
    return names


def test_a_profile_page_draws_its_flame_graph_and_shows_names_as_text(
    site: Path, watched: Watched
) -> None:
    page = watched.page
    page.goto(_uri(site, layout.profile_page(7, 7)))
    _drawn(page)
    assert HOT in page.locator("svg.d3-flame-graph").text_content()
    names = _frame_names(page)
    assert {SCRIPT, IMAGE, "new\\x1b[31m", HOT} <= set(names)
    assert page.locator("h1").text_content() == f"profile of net {IMAGE} at checkout 4 of series 7"
    assert page.locator("nav.crumbs a", has_text="checkout 4").get_attribute("href") == (
        "checkout.html#c=4"
    )
    hot = page.locator(f'svg g.frame[name="{HOT}"] title').text_content()
    assert hot == f"{HOT}: 600 samples, {format_share(600 / 1045)}"
    # search marks the frames whose name holds the text; a click zooms into a frame
    page.fill("p.flame-controls input", "HOT_f")
    page.click("text=search")
    details = page.locator("p.flame-details")
    assert details.text_content().startswith("search: 600 of 1045 total samples")
    before = page.locator('svg g.frame[name="work"] rect').get_attribute("width")
    page.locator('svg g.frame[name="work"]').click()
    page.wait_for_function(
        "w => document.querySelector('svg g.frame[name=\"work\"] rect').getAttribute('width')"
        " !== w",
        arg=before,
        timeout=PAINT_TIMEOUT_MS,
    )
    watched.shot("profile")
    _harmless(page, watched)


def _harmless(page: Any, watched: Watched) -> None:
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.querySelectorAll('svg script').length") == 0
    assert page.evaluate("document.querySelectorAll('div.pw-flame img').length") == 0
    assert watched.dialogs == []
    assert watched.errors == [], watched.errors


def test_the_drill_page_draws_the_differential_coloured_by_the_change(
    site: Path, watched: Watched
) -> None:
    page = watched.page
    page.goto(_uri(site, layout.series_page(7)))
    _drawn(page)
    assert HOT in page.locator("svg.d3-flame-graph").text_content()
    assert {SCRIPT, IMAGE, HOT} <= set(_frame_names(page))

    def fill(name: str) -> tuple[int, int, int]:
        text = page.locator(f'svg g.frame[name="{name}"] rect').get_attribute("fill")
        red, green, blue = (int(v) for v in text.removeprefix("rgb(").rstrip(")").split(","))
        return red, green, blue

    red, _, blue = fill(HOT)
    assert red > blue  # a larger share: red
    red, _, blue = fill("cold")
    assert blue > red  # a smaller share: blue
    tip = page.locator(f'svg g.frame[name="{HOT}"] title').text_content()
    assert tip.startswith(f"{HOT}: 2222bbbb 600 samples")
    assert "1111aaaa 100 samples" in tip
    first = page.locator("table.profile-changes tbody tr").first.locator("td").first
    assert first.text_content() == HOT
    assert page.locator("table.profile-changes", has_text=SCRIPT).count() == 1
    watched.shot("differential")
    _harmless(page, watched)


def test_a_checkout_page_links_its_profile_to_its_flame_graph(
    tmp_path: Path, watched: Watched
) -> None:
    """The fixed store's site, with the daily walk's first checkout given a profile
    (the checkouts' data file written again with it): its page links the flame graph,
    which draws."""
    published = publish_fixed(tmp_path)
    sid = published.fixed.daily
    with Store.open(published.fixed.url) as store:
        series = next(s for s in store.list_series() if s.id == sid)
        checkouts = store.checkouts(sid)
        first = checkouts[0].idx
        ctx = SeriesContext(series, checkouts, profiles={first: ((f"net {SCRIPT}", 9),)})
        rows = list(ctx.checkouts[: layout.PLOT_BLOCK])
        block = read_block(store, sid, rows, Policies(published.config))
    files = {
        layout.checkout_data(sid, 0): checkout_data_file(ctx, 0, block),
        layout.profile_shell(sid): profile_shell_page(ctx),
        layout.profile_data(sid, 9): profile_data_file(
            9, compress_folded(AFTER), test=f"net {SCRIPT}", checkout=first
        ),
    }
    for name, text in files.items():
        (published.site / name).write_text(text, encoding="utf-8")
    page = watched.page
    page.goto(_uri(published.site, layout.checkout_page(sid, first)))
    page.wait_for_function(
        "() => document.getElementById('pw-page').dataset.drawn", timeout=PAINT_TIMEOUT_MS
    )
    profile = page.locator("p.pw-profiles a")
    assert profile.text_content() == f"net {SCRIPT}"
    profile.click()
    _drawn(page)
    assert page.url.endswith("profile.html#p=9")
    assert page.locator("h1").text_content().endswith(f"at checkout {first} of series {sid}")
    _harmless(page, watched)


def test_an_unknown_frame_on_one_side_leaves_a_function_coloured_as_its_row(
    tmp_path: Path, watched: Watched
) -> None:
    """A drill whose culprit's stacks all pass through an [unknown] frame (53 vs 74
    samples): crc32_block, whose share fell, is drawn blue as its row's self Δ says,
    cksum_update red; no [unknown] box; the warning and the hidden rows are on the page."""
    site, drill, _tried = _published(tmp_path)
    page = watched.page
    page.goto(_uri(site, layout.series_page(drill)))
    page.wait_for_function(
        "() => [...document.querySelectorAll('div.d3-flame-graph-label')]"
        ".some(d => d.textContent === 'crc32_block')",
        timeout=PAINT_TIMEOUT_MS,
    )

    def fill(name: str) -> tuple[int, int, int]:
        text = page.locator(f'svg g.frame[name="{name}"] rect').get_attribute("fill")
        red, green, blue = (int(v) for v in text.removeprefix("rgb(").rstrip(")").split(","))
        return red, green, blue

    red, _, blue = fill("crc32_block")
    assert blue > red  # a smaller share: blue
    red, _, blue = fill("cksum_update")
    assert red > blue
    assert "[unknown]" not in _frame_names(page)
    row = page.locator("table.profile-changes tr", has_text="crc32_block")
    assert row.locator("td.flame-shrank").first.text_content() == "-20.6"
    assert page.locator("p.flame-warning").is_visible()
    assert "raise [test.profile] frequency" in page.locator("p.flame-warning").text_content()
    noise = page.locator("span.profile-noise").text_content()
    assert noise.endswith("7 rows within the noise of 53 vs 74 samples hidden")
    watched.shot("differential-unknown")
    _harmless(page, watched)
