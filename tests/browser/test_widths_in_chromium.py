"""The site at a laptop's width (1366 px) and a phone's (390 px) in Debian's headless
chromium: no page scrolls sideways, tables scroll in their own box (the checkouts'
opening at the newest), plots fit their width (a phone's with the legend below and
no toolbox), the log scale box, the filter box of a page of many plots, and the
regress matrix's cells in view on a phone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from perfwalk.composites.demo import DemoResult
from perfwalk.model import Checkout, Commit, Direction, Log, Status, Value
from perfwalk.report import layout
from perfwalk.report.matrix import MatrixOptions, publish_matrix
from perfwalk.report.matrix_paths import INDEX as MATRIX_INDEX
from perfwalk.report.site import publish
from perfwalk.store import NewRepetition, NewResult, NewSeries, Store
from tests.regress.test_matrix_logs import build as build_regress
from tests.report.conftest import Published, publish_fixed

WIDTHS = ((1366, 768), (390, 844))
TIMEOUT_MS = 15_000
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)

#: the tests of the site of many plots: one plot each (a unit each), "errors" holds 0
MANY = (
    ("latency", "us", 40.0),
    ("throughput", "bytes/sec", 1.2e9),
    ("build", "sec", 85.0),
    ("memory", "bytes", 3.5e8),
    ("errors", "count", 0.0),
    ("startup", "ms", 12.0),
)


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> Published:
    """The report tests' fixed site: a walk with variants, a try, conductor runs."""
    return publish_fixed(tmp_path_factory.mktemp("widths-fixed"))


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A regress matrix of 30 tests × 12 runs on two hosts, with the site's style."""
    folder = tmp_path_factory.mktemp("widths-matrix")
    url = f"sqlite:///{folder / 'store.db'}"
    build_regress(url)
    with Store.open(url) as store:
        publish_matrix(store, folder / "site", MatrixOptions())
    style = Path(layout.__file__).parent / "static" / "style.css"
    (folder / "site" / layout.STYLE).write_text(style.read_text(encoding="utf-8"))
    return folder / "site"


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site whose walk has a plot per test of :data:`MANY` (six plots)."""
    folder = tmp_path_factory.mktemp("widths-many")
    url = f"sqlite:///{folder / 'store.db'}"
    with Store.open(url) as store:
        sid = store.create_series(
            NewSeries(
                name="many metrics",
                project="p",
                repo="/src/p",
                from_spec="2024-05-01",
                to_spec="2024-05-04",
                step="1day",
                repetitions=2,
                between="keep",
                host="local",
                config_hash="0",
                config_text="",
                commands={},
                fingerprint={},
                started_at=T0,
            )
        )
        for idx in range(4):
            when = T0 + timedelta(days=idx)
            commit = Commit(f"{idx + 1:040x}", when, "Dev <d@example.org>", f"c{idx}", "", ())
            checkout = store.add_checkout(sid, Checkout(idx, commit.id, when, (commit,)))
            store.set_build(checkout, Status.PASS, 1.0, Log.of(b"built\n"))
            for rep in range(2):
                results = tuple(
                    NewResult(
                        test=test,
                        status=Status.PASS,
                        message="",
                        duration=0.1,
                        exit_code=0,
                        command=f"run {test}",
                        stdout=Log.of(b""),
                        stderr=Log.of(b""),
                        values=(
                            (
                                Value("value", level * (1 + 0.01 * (idx + rep)), unit),
                                Direction.LOWER,
                            ),
                        ),
                    )
                    for test, unit, level in MANY
                )
                started = when + timedelta(minutes=rep)
                store.add_repetition(
                    checkout,
                    NewRepetition(
                        idx=rep,
                        started_at=started,
                        finished_at=started,
                        results=results,
                        between_status=None,
                        between_log=None,
                    ),
                )
        store.set_series_state(sid, "finished", T0 + timedelta(days=4))
        publish(store, None, folder / "site")
    return folder / "site"


@pytest.fixture(scope="module")
def demo(demo_result: DemoResult) -> DemoResult:
    return demo_result


@pytest.fixture(params=WIDTHS, ids=lambda size: f"{size[0]}px")
def page(request: pytest.FixtureRequest, browser: Any) -> Any:
    width, height = request.param
    context = browser.new_context(viewport={"width": width, "height": height})
    seen = context.new_page()
    errors: list[str] = []
    seen.on("pageerror", lambda e: errors.append(str(e)))
    seen.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield seen
    context.close()
    assert errors == []


def _uri(site: Path, path: str) -> str:
    file, _, anchor = path.partition("#")
    return (site / file).as_uri() + (f"#{anchor}" if anchor else "")


def _open(page: Any, site: Path, path: str) -> None:
    page.goto(_uri(site, path))
    page.wait_for_load_state("load")
    if page.locator("#pw-page").count():  # drawn by pages.js
        page.wait_for_function(
            "() => document.getElementById('pw-page').dataset.drawn", timeout=TIMEOUT_MS
        )
    if page.locator("#pw-matrix").count():  # drawn by matrix.js
        page.wait_for_selector("table.pw-grid td.pw-c", timeout=TIMEOUT_MS)


def _painted(page: Any, nth: int = 0) -> None:
    """Until the ``nth`` plot of the page is drawn."""
    page.locator("div.plot").nth(nth).scroll_into_view_if_needed()
    page.wait_for_function(
        f"() => document.querySelectorAll('div.plot')[{nth}].dataset.painted",
        timeout=TIMEOUT_MS,
    )


def _too_wide(page: Any) -> list[str]:
    """What makes the page wider than its window (empty when nothing does)."""
    found: list[str] = page.evaluate(
        """() => {
          const width = window.innerWidth;
          if (document.documentElement.scrollWidth <= width) return [];
          return [...document.querySelectorAll('body *')]
            .filter(el => el.getBoundingClientRect().right > width + 1)
            .slice(0, 5)
            .map(el => el.tagName + '.' + el.className + ' '
                 + Math.round(el.getBoundingClientRect().right));
        }"""
    )
    return found


def _demo_pages(demo: DemoResult) -> list[str]:
    drill = next(d.series_id for d in demo.drills if d.series_id is not None)
    sid = demo.series_id
    reps = f"series-{sid}"
    return [
        layout.INDEX,
        layout.series_page(sid),
        layout.series_page(drill),
        layout.table_page(sid, 0),
        f"{reps}/checkout.html#c=5",
        f"{reps}/logs.html#c=5",
        f"{reps}/commits.html#c=5",
        layout.setup_page(sid),
    ]


@pytest.mark.slow
def test_no_demo_page_scrolls_sideways(demo: DemoResult, page: Any) -> None:
    for path in _demo_pages(demo):
        _open(page, demo.site, path)
        assert _too_wide(page) == [], path
    # a large log's own page
    _open(page, demo.site, layout.series_page(demo.series_id))
    logs = page.evaluate(
        "() => [...document.querySelectorAll('a')].map(a => a.getAttribute('href'))"
        ".filter(h => h && h.includes('log.html#'))"
    )
    for href in logs[:1]:
        _open(page, demo.site, href)
        assert _too_wide(page) == [], href


def test_no_page_of_variants_tries_or_conductor_runs_scrolls_sideways(
    fixed: Published, page: Any
) -> None:
    site = fixed.site
    daily = fixed.fixed.daily
    paths = [
        layout.INDEX,
        layout.series_page(daily),  # with its variant's columns
        layout.series_page(fixed.fixed.tried),  # a try
        layout.table_page(daily, 0),
        f"series-{daily}/checkout.html#c=3",
        f"series-{daily}/logs.html#c=3",
        f"series-{daily}/log.html#log=123",
        f"series-{daily}/commits.html#c=3",
        layout.setup_page(daily),
        *(f"conduct-{run}.html" for run in fixed.fixed.conduct),
    ]
    for path in paths:
        _open(page, site, path)
        assert _too_wide(page) == [], path


def test_the_regress_matrix_shows_its_cells_without_scrolling_the_page(
    matrix: Path, page: Any
) -> None:
    _open(page, matrix, MATRIX_INDEX)
    assert _too_wide(page) == []
    shown = page.evaluate(
        """() => {
          const box = document.querySelector('.pw-scroll').getBoundingClientRect();
          const cells = [...document.querySelectorAll('table.pw-grid tbody td.pw-c')];
          return cells.filter(td => {
            const r = td.getBoundingClientRect();
            return r.width > 0 && r.left >= box.left && r.right <= box.right;
          }).length;
        }"""
    )
    assert shown >= 2 * 20  # at least two runs' columns of the 20-odd rows in view
    # the grid scrolls in its box (on a phone: at 1366 px the twelve runs fit); the test
    # names stay at its left
    scroller = "document.querySelector('.pw-scroll')"
    if page.evaluate(f"{scroller}.scrollWidth > {scroller}.clientWidth"):
        left = page.evaluate("document.querySelector('th.pw-name').getBoundingClientRect().left")
        page.evaluate(f"{scroller}.scrollLeft = 240")
        page.wait_for_function(f"() => {scroller}.scrollLeft > 0")
        moved = page.evaluate("document.querySelector('th.pw-name').getBoundingClientRect().left")
        assert moved == pytest.approx(left, abs=1)
    else:
        assert page.viewport_size["width"] > 1000
    for run in ("runs/1.html", "host-h1.html"):
        _open(page, matrix, f"regress/{run}")
        assert _too_wide(page) == [], run


@pytest.mark.slow
def test_the_checkouts_table_scrolls_in_its_box_from_the_newest(
    demo: DemoResult, page: Any
) -> None:
    _open(page, demo.site, layout.series_page(demo.series_id))
    box = page.evaluate(
        """() => {
          const box = document.querySelector('div.pw-newest');
          const table = box.querySelector('table.checkouts');
          const label = table.querySelector('tbody tr td:first-child');
          return {
            scroll: box.scrollWidth, client: box.clientWidth,
            box: box.getBoundingClientRect().right,
            table: table.getBoundingClientRect().right,
            sticky: getComputedStyle(label).position,
            page: document.documentElement.scrollWidth, width: window.innerWidth,
          };
        }"""
    )
    assert box["scroll"] > box["client"]  # 45 checkouts do not fit: the box scrolls
    assert box["table"] == pytest.approx(box["box"], abs=2)  # at its right end: the newest
    assert box["sticky"] == "sticky"
    assert box["page"] <= box["width"]
    # scrolled to the oldest, the labels stay in view at the box's left
    moved = page.evaluate(
        """() => {
          const box = document.querySelector('div.pw-newest');
          box.scrollLeft = -box.scrollWidth;
          const label = box.querySelector('tbody tr td:first-child');
          return [label.getBoundingClientRect().left, box.getBoundingClientRect().left];
        }"""
    )
    assert moved[0] == pytest.approx(moved[1], abs=2)


@pytest.mark.slow
def test_plots_fit_their_width_and_a_phone_has_the_compact_layout(
    demo: DemoResult, page: Any
) -> None:
    _open(page, demo.site, layout.series_page(demo.series_id))
    _painted(page)
    found = page.evaluate(
        """() => {
          const el = document.querySelector('div.plot');
          const o = echarts.getInstanceByDom(el).getOption();
          return {
            width: el.getBoundingClientRect().width,
            body: document.body.clientWidth,
            legendBottom: o.legend[0].bottom, legendTop: o.legend[0].top,
            toolbox: o.toolbox[0].show,
          };
        }"""
    )
    assert found["width"] == pytest.approx(found["body"], abs=2)  # the page's width
    if page.viewport_size["width"] < 600:
        assert found["toolbox"] is False
        assert found["legendBottom"] is not None
        assert found["legendTop"] in (None, "auto")
    else:
        assert found["toolbox"] is True
        assert found["legendTop"] == 24


@pytest.mark.slow
def test_a_plot_redraws_compact_when_the_window_narrows(demo: DemoResult, browser: Any) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        page = context.new_page()
        _open(page, demo.site, layout.series_page(demo.series_id))
        _painted(page)
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_function(
            "() => echarts.getInstanceByDom(document.querySelector('div.plot'))"
            ".getOption().toolbox[0].show === false",
            timeout=TIMEOUT_MS,
        )
        width = page.evaluate(
            "echarts.getInstanceByDom(document.querySelector('div.plot')).getWidth()"
        )
        assert width < 390
    finally:
        context.close()


@pytest.mark.slow
def test_the_log_scale_box_makes_the_y_axis_logarithmic(demo: DemoResult, page: Any) -> None:
    _open(page, demo.site, layout.series_page(demo.series_id))
    _painted(page)
    y_type = (
        "echarts.getInstanceByDom(document.querySelector('div.plot')).getOption().yAxis[0].type"
    )
    assert page.evaluate(y_type) == "value"
    page.locator("input.pw-log").first.check()
    page.wait_for_function(f"() => {y_type} === 'log'")
    page.locator("input.pw-log").first.uncheck()
    page.wait_for_function(f"() => {y_type} === 'value'")


def test_a_page_of_many_plots_finds_them_by_name_and_refuses_a_log_scale_of_zeros(
    many: Path, page: Any
) -> None:
    _open(page, many, layout.series_page(1))
    count = page.locator("span.pw-plot-count")
    assert count.text_content() == f"{len(MANY)} of {len(MANY)} plots"
    page.locator("p.pw-plot-filter input").fill("THROUGH")  # case does not matter
    assert count.text_content() == f"1 of {len(MANY)} plots"
    visible = page.evaluate(
        "() => [...document.querySelectorAll('div.plot')].filter(el => !el.hidden)"
        ".map(el => el.dataset.title)"
    )
    assert visible == ["throughput [B/s]"]
    assert page.locator("p.pw-plot-controls:visible").count() == 1
    page.locator("p.pw-plot-filter input").fill("value")  # the value names are found too
    assert count.text_content() == f"{len(MANY)} of {len(MANY)} plots"
    page.locator("p.pw-plot-filter input").fill("errors")
    _painted(page, [t for t, _u, _l in sorted(MANY)].index("errors"))
    plot = "[...document.querySelectorAll('div.plot')].find(el => !el.hidden)"
    page.locator("p.pw-plot-controls:visible input.pw-log").click()  # refused: unticked
    page.wait_for_function(
        "() => document.querySelector('p.pw-plot-controls:not([hidden]) .pw-plot-note')"
        ".textContent !== ''"
    )
    assert page.evaluate(f"echarts.getInstanceByDom({plot}).getOption().yAxis[0].type") == "value"
    assert not page.locator("p.pw-plot-controls:visible input.pw-log").is_checked()
    assert _too_wide(page) == []
