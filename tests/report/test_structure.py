"""Structural checks of the fixed store's site: every link and anchor resolves,
every test and checkout has its pages, every plot its data, nothing executes."""

from __future__ import annotations

import base64
import re
import zlib
from html.parser import HTMLParser
from pathlib import Path

from perfwalk.report import layout
from perfwalk.report.pages.table import row_anchor
from perfwalk.store import Store
from tests.report.conftest import Published
from tests.report.history import HOSTILE_LOG
from tests.report.site_data import read_data

#: the pages that draw what their link names (``#c=3``) from the data files
DRAWN = {"checkout.html", "logs.html", "commits.html", "log.html"}


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


def _drawn_target(site: Path, page: Path, anchor: str) -> None:
    """A link into a drawn page (``checkout.html#c=3&to=…``): its checkout is in the
    data of its block, and the element it names is one the page draws."""
    found = re.fullmatch(r"(c|log)=(\d+)(?:&to=([\w-]+))?", anchor)
    assert found, (page, anchor)
    key, number, to = found.group(1), int(found.group(2)), found.group(3)
    series = page.parent
    if key == "log":
        assert (series / "data" / f"log-{number}.js").is_file(), (page, anchor)
        return
    _, meta = read_data(series / "data" / "meta.js")
    block = next(b for b, (lo, hi) in enumerate(meta["pages"]["blocks"]) if lo <= number <= hi)
    _, data = read_data(series / "data" / f"checkouts-{block}.js")
    checkout = next(c for c in data["c"] if c["idx"] == number)
    if to is None:
        return
    results = {f"result-{r[0]}" for r in (checkout["d"] or {"results": []})["results"]}
    _, logs = read_data(series / "data" / f"logs-{block}.js")
    log_ids = {f"log-{i}" for i in [*logs["ids"], *map(int, logs["large"])]}
    _, commits = read_data(series / "data" / f"commits-{block}.js")
    shas = [c[0] for c in commits[str(number)][3]]
    known = set(data["anchors"].values()) | results | log_ids
    known |= {layout.commit_anchor(sha) for sha in shas}  # pages.js gives commits these ids
    assert to in known or to.rpartition("-L")[0] in log_ids, (page, anchor)


def test_every_link_and_anchor_resolves(published: Published) -> None:
    site = published.site
    pages = {p: _parse(p) for p in site.rglob("*.html")}
    external = 0
    drawn = 0
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
            if anchor and target.name in DRAWN:
                _drawn_target(site, target, anchor)
                drawn += 1
            elif anchor and target.suffix == ".html":
                assert anchor in pages[target].ids, (page, href)
    assert external > 0  # commit links to the web viewer
    assert drawn > 0  # links to checkouts, logs and commits


def test_no_inline_script_and_no_event_handler(published: Published) -> None:
    allowed = {
        layout.LIBRARY_JS,
        layout.PLOT_JS,
        layout.PAGES_JS,
        layout.FORMAT_JS,
        layout.SCALES_JS,
        layout.TICKS_JS,
        layout.NIGHT_JS,
    }
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
            shells = [
                layout.checkout_shell(series.id),
                layout.logs_shell(series.id),
                layout.commits_shell(series.id),
                layout.log_shell(series.id),
            ]
            for path in shells:
                assert (site / path).is_file(), path
            rows = store.checkouts(series.id)
            for block in range(0, (len(rows) + layout.PLOT_BLOCK - 1) // layout.PLOT_BLOCK):
                part = rows[block * layout.PLOT_BLOCK : (block + 1) * layout.PLOT_BLOCK]
                _, checkouts = read_data(site / layout.checkout_data(series.id, block))
                assert [c["idx"] for c in checkouts["c"]] == [r.idx for r in part]
                _, commits = read_data(site / layout.commits_data(series.id, block))
                for row in part:
                    shas = [c[0] for c in commits[str(row.idx)][3]]
                    assert shas[-1] == row.sha, (series.id, row.idx)
                assert read_data(site / layout.logs_data(series.id, block))[0] == "logs"


def test_every_plot_has_its_data(published: Published) -> None:
    site = published.site
    tried = site / layout.series_page(published.fixed.tried)
    for page in (site / "index.html", *site.glob("series-*.html")):
        text = page.read_text(encoding="utf-8")
        plots = re.findall(r'data-series="([^"]+)" data-key="([^"]+)"', text)
        if page == tried:  # a try: no plot of its two checkouts
            assert not plots, page
            assert 'class="plot"' not in text, page
            continue
        assert plots, page
        for members, key in plots:
            found = False
            for sid in members.split():
                meta = (site / layout.series_meta(int(sid))).read_text(encoding="utf-8")
                found |= f'"{key}"' in meta
                spec = read_data(site / layout.series_meta(int(sid)))[1]["keys"].get(key)
                for b in spec["blocks"] if spec else ():
                    own = site / layout.plot_data(int(sid), key, b)
                    sealed = site / layout.sealed_data(int(sid), key, b // spec["seal"])
                    assert own.is_file() != (b // spec["seal"] in spec["sealed"]), (key, b)
                    assert own.is_file() or sealed.is_file(), (key, b)
            assert found, (page, key)


def test_large_log_is_cut_with_a_download_of_the_whole(published: Published) -> None:
    site = published.site
    daily = published.fixed.daily
    texts = sorted((site / layout.series_dir(daily)).glob("log-*.txt"))
    assert len(texts) == 1
    whole = texts[0].read_bytes()
    assert whole.count(b"\n") == 1200
    log_id = int(texts[0].stem.split("-")[1])
    call, big = read_data(site / layout.large_log_data(daily, log_id))
    assert (call, big["c"], big["lines"]) == ("log", 5, 1200)
    assert zlib.decompress(base64.b64decode(big["z"])) == whole
    _, logs = read_data(site / layout.logs_data(daily, 0))
    assert logs["large"] == {str(log_id): 1200}  # not in the bundle: on its own page
    assert log_id not in logs["ids"]


def test_logs_are_kept_compressed_as_stored(published: Published) -> None:
    _, logs = read_data(published.site / layout.logs_data(published.fixed.daily, 0))
    raw = base64.b64decode(logs["z"])
    offset = 0
    texts = []
    for length, size in zip(logs["len"], logs["size"], strict=True):
        text = zlib.decompress(raw[offset : offset + length])
        assert len(text) == size
        texts.append(text)
        offset += length
    assert offset == len(raw)
    assert HOSTILE_LOG in b"".join(texts)


def test_marks_unstable_outliers_and_changes(published: Published) -> None:
    daily = published.fixed.daily
    table = (published.site / layout.series_page(daily)).read_text(encoding="utf-8")
    assert re.search(r'class="[a-z ]*outlier" title="[^"]*outlier: a value [0-9.]+ % from', table)
    assert 'class="unstable' in table
    assert (
        f"regression: ▼ -19.8 % (drill {published.fixed.fine}) worse between checkouts 2 and 3"
        in table
    )
    _, data = read_data(published.site / layout.checkout_data(daily, 0))
    checkout = next(c for c in data["c"] if c["idx"] == 2)
    metrics = [data["metrics"][m] for m in data["layouts"][checkout["m"]]]
    marked = {(metrics[m][1], rep) for m, rep in checkout["o"]}
    assert ("sender", 4) in marked  # the outlier of repetition 4
    zoom = f'<a href="{layout.series_page(published.fixed.fine)}">2024-03-03/6hour</a>'
    assert zoom in table
