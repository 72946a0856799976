"""Structural checks of the fixed store's site: every link and anchor resolves,
every test and checkout has its pages, every plot its data, nothing executes."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from perfwalk.report import layout
from perfwalk.report.pages.table import row_anchor
from perfwalk.store import Store
from tests.report.conftest import Published


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.scripts: list[str | None] = []
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "a" and found.get("href"):
            self.links.append(found["href"] or "")
        if tag == "link" and found.get("href"):
            self.links.append(found["href"] or "")
        if tag == "script":
            self.scripts.append(found.get("src"))
        if found.get("id"):
            self.ids.add(found["id"] or "")
        self.handlers += [name for name, _ in attrs if name.startswith("on")]


def _parse(path: Path) -> _Page:
    parsed = _Page()
    parsed.feed(path.read_text(encoding="utf-8"))
    return parsed


def test_every_link_and_anchor_resolves(published: Published) -> None:
    site = published.site
    pages = {p: _parse(p) for p in site.rglob("*.html")}
    external = 0
    for page, parsed in pages.items():
        for href in parsed.links:
            if href.startswith("data:"):  # the empty icon
                continue
            if href.startswith("https://git.example.org/"):
                external += 1
                continue
            assert "://" not in href, (page, href)  # offline: nothing from elsewhere
            path, _, anchor = href.partition("#")
            target = (page.parent / path).resolve() if path else page
            assert target.exists(), (page, href)
            if anchor and target.suffix == ".html":
                assert anchor in pages[target].ids, (page, href)
    assert external > 0  # commit links to the web viewer


def test_no_inline_script_and_no_event_handler(published: Published) -> None:
    allowed = {layout.LIBRARY_JS, layout.PLOT_JS}
    for page in published.site.rglob("*.html"):
        parsed = _parse(page)
        assert not parsed.handlers, page
        for src in parsed.scripts:
            assert src is not None, page
            assert Path(src).name in allowed, (page, src)
        assert "Content-Security-Policy" in page.read_text(encoding="utf-8")


def test_every_test_and_checkout_has_its_pages(published: Published) -> None:
    site = published.site
    with Store.open(published.fixed.url) as store:
        for series in store.list_series():
            series_page = (site / layout.series_page(series.id)).read_text(encoding="utf-8")
            tests = {r.test for r in store.results(series.id)}
            for test in tests:
                assert f'id="{row_anchor(test)}"' in series_page, (series.id, test)
            for row in store.checkouts(series.id):
                for path in (
                    layout.checkout_page(series.id, row.idx),
                    layout.logs_page(series.id, row.idx),
                    layout.commits_page(series.id, row.idx),
                ):
                    assert (site / path).is_file(), path


def test_every_plot_has_its_data(published: Published) -> None:
    site = published.site
    for page in (site / "index.html", *site.glob("series-*.html")):
        text = page.read_text(encoding="utf-8")
        plots = re.findall(r'data-series="([^"]+)" data-key="([^"]+)"', text)
        assert plots, page
        for members, key in plots:
            found = False
            for sid in members.split():
                meta = (site / layout.series_meta(int(sid))).read_text(encoding="utf-8")
                found |= f'"{key}"' in meta
                for block in re.findall(rf'"{key}":{{[^}}]*"blocks":\[([0-9,]*)\]', meta):
                    for b in block.split(","):
                        assert (site / layout.plot_data(int(sid), key, int(b))).is_file()
            assert found, (page, key)


def test_large_log_is_cut_with_a_download_of_the_whole(published: Published) -> None:
    site = published.site
    daily = published.fixed.daily
    texts = sorted((site / layout.series_dir(daily)).glob("log-*.txt"))
    assert len(texts) == 1
    whole = texts[0].read_bytes()
    assert whole.count(b"\n") == 1200
    page = texts[0].with_suffix(".html").read_text(encoding="utf-8")
    assert 'id="log-' in page
    assert "-L1200" in page
    logs = (site / layout.logs_page(daily, 5)).read_text(encoding="utf-8")
    assert '-L50"' in logs
    assert '-L51"' not in logs
    assert texts[0].name in logs


def test_marks_unstable_outliers_and_changes(published: Published) -> None:
    daily = published.fixed.daily
    table = (published.site / layout.series_page(daily)).read_text(encoding="utf-8")
    assert re.search(r'class="[a-z ]*outlier" title="[^"]*outlier: a value [0-9.]+% from', table)
    assert 'class="unstable' in table
    assert "regression: -20.0% between checkouts 2 and 3" in table
    checkout = (published.site / layout.checkout_page(daily, 2)).read_text(encoding="utf-8")
    assert re.search(r'<td class="outlier" title="[0-9.]+% from the summary', checkout)
    zoom = f'<a href="{layout.series_page(published.fixed.fine)}">2024-03-03/6hour</a>'
    assert zoom in table
