"""The matrix pages in Debian's headless chromium: order, pass rate, filters, the
sticky header, and hostile test names, messages, logs and host names shown as text."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from perfwalk.config.load import load_config
from perfwalk.regress.history import decayed_severity
from perfwalk.report.matrix_paths import INDEX, host_page
from perfwalk.services.publish import publish_regress
from perfwalk.store import Store
from tests.fixtures.chromium import Watched
from tests.fixtures.synthetic_repo import KnownHistory
from tests.regress.history import (
    HOSTILE_HOST,
    HOSTILE_LOG,
    HOSTILE_MESSAGE,
    HOSTILE_TEST,
    NIGHTS,
    Status,
    build_history,
    expected_columns,
)
from tests.regress.test_matrix import CONFIG

ROWS = "els => els.map(e => e.firstChild.textContent)"


@pytest.fixture
def site(tmp_path: Path, known_values_repo: KnownHistory) -> Path:
    config = tmp_path / "perfwalk.toml"
    config.write_text(CONFIG.format(repo=known_values_repo.path, store=tmp_path / "store.db"))
    with Store.open(load_config(config).store.url) as store:
        build_history(store, known_values_repo)
    out = tmp_path / "site"
    publish_regress(load_config(config), out)
    (out / "style.css").write_text("/* the site's style, written by `perfwalk report` */\n")
    return out


def expected_order(columns: list[tuple[str, int]]) -> list[str]:
    names = sorted({name for tests in NIGHTS.values() for name in tests})
    scores = {}
    for name in names:
        history = []
        for host, night in columns:
            status = NIGHTS[host].get(name, [None] * 6)[night]
            history.append(0 if status is None else int(status))
        if any(history):
            scores[name] = decayed_severity(history)
    return sorted(scores, key=lambda n: (-scores[n], n))


def pass_rates(columns: list[tuple[str, int]]) -> list[str]:
    shown = []
    for host, night in columns:
        statuses = [h[night] for h in NIGHTS[host].values() if h[night] is not None]
        counted = [s for s in statuses if s not in (Status.SKIP, Status.XFAIL)]
        shown.append(f"{math.floor(100 * statuses.count(Status.PASS) / len(counted))}%")
    return shown


def open_matrix(watched: Watched, page_file: Path) -> Any:
    page = watched.page
    page.goto(page_file.as_uri())
    page.wait_for_selector("#pw-matrix.pw-ready table.pw-grid")
    return page


def test_all_hosts_order_pass_rate_and_hostile_text(site: Path, watched: Watched) -> None:
    page = open_matrix(watched, site / INDEX)
    columns = expected_columns()
    assert page.eval_on_selector_all("table.pw-grid tbody th.pw-name", ROWS) == expected_order(
        columns
    )
    header = page.eval_on_selector_all(
        "table.pw-grid thead tr:first-child th.pw-c", "els => els.map(e => e.textContent)"
    )
    assert header == pass_rates(columns)
    hosts = page.eval_on_selector_all(
        "table.pw-grid thead tr:last-child th.pw-c", "els => els.map(e => e.textContent)"
    )
    assert hosts == [host for host, _night in columns]
    # hostile names, messages and hosts are text: no element, no script, no dialog
    assert page.locator("img").count() == 0
    assert page.locator("i").count() == 0
    assert page.get_by_text(HOSTILE_TEST, exact=True).count() >= 1
    cell = page.locator("table.pw-grid tbody tr", has_text=HOSTILE_TEST).locator("td.FAIL a")
    assert cell.first.get_attribute("title") == HOSTILE_MESSAGE
    watched.shot("all-hosts")
    cell.first.click()
    page.wait_for_selector("#pw-log pre")
    assert page.locator("#pw-log h2").text_content() == HOSTILE_TEST
    assert "<script>alert('log')</script>" in page.locator("#pw-log pre").text_content()
    assert HOSTILE_LOG[:29].decode() in page.locator("#pw-log pre").text_content()
    assert page.locator("#pw-log script").count() == 0
    watched.shot("log")
    assert watched.dialogs == []
    assert watched.errors == []


def test_filters_recompute_the_order(site: Path, watched: Watched) -> None:
    page = open_matrix(watched, site / INDEX)
    page.locator("label.pw-arch", has_text="arm64").locator("input").uncheck()
    alpha_only = [(host, night) for host, night in expected_columns() if host == "alpha"]
    assert "× 6 runs" in page.locator(".pw-info").text_content()
    assert page.eval_on_selector_all("table.pw-grid tbody th.pw-name", ROWS) == expected_order(
        alpha_only
    )
    page.locator("label.pw-arch", has_text="arm64").locator("input").check()
    page.locator("label.pw-host", has_text="alpha").locator("input").uncheck()
    beta_only = [(host, night) for host, night in expected_columns() if host == HOSTILE_HOST]
    assert page.eval_on_selector_all("table.pw-grid tbody th.pw-name", ROWS) == expected_order(
        beta_only
    )
    page.locator("label.pw-host", has_text="alpha").locator("input").check()
    page.locator("label.pw-failing input").check()
    failing = page.eval_on_selector_all("table.pw-grid tbody th.pw-name", ROWS)
    assert set(failing) == {"hangs", HOSTILE_TEST, "broke-recently", "flaky", "new-test"}
    page.fill("input.pw-search", "ang")
    assert page.eval_on_selector_all("table.pw-grid tbody th.pw-name", ROWS) == ["hangs"]
    assert watched.errors == []


def test_the_header_stays_in_view_while_scrolling(site: Path, watched: Watched) -> None:
    watched.page.set_viewport_size({"width": 700, "height": 420})
    page = open_matrix(watched, site / host_page("alpha"))
    scroller = page.locator(".pw-scroll")
    page.evaluate(
        "() => { const s = document.querySelector('.pw-scroll'); "
        "s.scrollTop = s.scrollHeight; s.scrollLeft = s.scrollWidth; }"
    )
    page.wait_for_timeout(100)
    top = scroller.bounding_box()["y"]
    head = page.locator("table.pw-grid thead").bounding_box()["y"]
    assert abs(head - top) <= 2
    rows = page.eval_on_selector_all("table.pw-grid tbody th.pw-name", ROWS)
    assert rows[-1] == expected_order([("alpha", n) for n in reversed(range(6))])[-1]
    dates = page.eval_on_selector_all(
        "table.pw-grid thead tr:nth-child(2) th.pw-c", "els => els.map(e => e.textContent)"
    )
    assert dates[-1] == "03-01"  # the oldest run, scrolled to
    watched.shot("scrolled")
    assert watched.errors == []


def test_a_host_page_links_the_failing_streak_to_its_commits(
    site: Path, watched: Watched, known_values_repo: KnownHistory
) -> None:
    page = open_matrix(watched, site / host_page("alpha"))
    row = page.locator("table.pw-grid tbody tr", has_text="broke-recently")
    assert "since 2026-03-05" in row.locator("td.pw-since").text_content()
    row.locator("td.pw-since a", has_text="5 commits").click()
    page.wait_for_selector("article.commit")
    assert page.locator("article.commit").count() == 5
    assert (
        known_values_repo.first_parent[20][:12]
        in page.locator("article.commit").first.text_content()
    )
    assert watched.errors == []
    assert watched.dialogs == []
