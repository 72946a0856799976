"""The levels per release (``releases.html``, linked from the index): one column per
release window, newest first, the checkouts of every walk in it merged; per test its
worst status, per metric the median of the checkouts' summaries with its unit, its
change from the older release's column and the changes found inside; a page per
release window with a column per walk; escaped; and a site without releases says so
instead of drawing an empty table."""

from __future__ import annotations

import re
import shutil
import statistics
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.analysis.levels import MetricPoints
from perfwalk.model import Status
from perfwalk.orchestrate.findings.changes import find_all
from perfwalk.quantities import format_change, format_value
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.pages.releases import overview_page
from perfwalk.report.release_levels import overview
from perfwalk.report.releases import Release, Releases
from perfwalk.report.series_levels import MetricLevels
from perfwalk.report.site import PublishOptions, publish
from perfwalk.report.times import UTC_TIMES
from perfwalk.store import CheckoutRow, SeriesRow, Store
from tests.report.conftest import Published, publish_fixed
from tests.report.history import HOSTILE
from tests.report.test_releases import RELEASES

GOLDEN = Path(__file__).parents[1] / "golden" / "report_releases"


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Published:
    return publish_fixed(tmp_path_factory.mktemp("released"), releases=RELEASES)


def _text(site: Path, at: str) -> str:
    return (site / at).read_text(encoding="utf-8")


def _cells(page: str, row: str) -> list[str]:
    """The cells of the row whose first cell says ``row`` (tags stripped)."""
    for found in re.findall(r"<tr[^>]*>(.*?)</tr>", page):
        cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", found)]
        if cells and cells[0] == row:
            return cells[2:]  # after the name and the host
    raise AssertionError(f"no row {row!r}")


def test_each_release_window_is_a_column_newest_first_with_the_median_of_its_checkouts(
    released: Published,
) -> None:
    page = _text(released.site, layout.RELEASES)
    heads = re.findall(r'<th><a href="(releases/[^"]+)">', page)
    # 8.0 is after every checkout: its window, and 7.5's up to it, are shown only if
    # they hold a checkout; the checkouts before 7.4 are a window of their own
    assert heads == ["releases/release-1.html", "releases/release-0.html", "releases/before.html"]
    fixed, config = released.fixed, released.config
    with Store.open(fixed.url) as store:
        points = find_all(store, config).points
        walks = [s for s in store.list_series() if s.kind == "walk"]
        dates = {s.id: {c.idx: c.date for c in store.checkouts(s.id)} for s in walks}
    windows = [
        (RELEASES.found[1].at, None),
        (RELEASES.found[0].at, RELEASES.found[1].at),
        (None, RELEASES.found[0].at),
    ]

    def median(name: str, start: object, end: object) -> float:
        values = [
            value
            for s in walks
            for p in points[s.id]
            if (p.test, p.name) == ("iperf", name)
            for idx, value in zip(p.idxs, p.points, strict=True)
            if (start is None or dates[s.id][idx] >= start)
            and (end is None or dates[s.id][idx] < end)
        ]
        return statistics.median(values)

    levels = [median("sender", start, end) for start, end in windows]
    shown = _cells(page, "↳ sender (bits/sec)")
    assert [cell.split(" · ")[0] for cell in shown] == [
        format_value(level, "bits/sec") for level in levels
    ]
    # the change from the older release's column, then the changes found inside
    assert shown[0].split(" · ")[1] == format_change((levels[0] - levels[1]) / levels[1])
    inside = [
        c
        for c in fixed.changes
        if (c.test, c.name) == ("iperf", "sender")
        and not c.refuted
        and c.date >= RELEASES.found[1].at
        and c.series_id in {s.id for s in walks}
    ]
    assert inside, "the fixed store's regression is after 7.5"
    assert shown[0].endswith(f" · {len(inside)} change{'s' if len(inside) > 1 else ''}")
    assert len(shown[2].split(" · ")) == 1  # the oldest: nothing to compare with
    # a drop of a throughput is marked worse
    assert re.search(r'<span class="worse">-[0-9.]+ %</span> · 1 change', page)
    # the worst status of each test, linked to its row on the release's page
    assert _cells(page, "ping")[0] == "NOTERM ×1"
    assert 'href="releases/release-1.html#test-' in page


def test_a_release_s_page_has_its_merged_column_then_each_walk_in_it(
    released: Published,
) -> None:
    page = _text(released.site, layout.release_page(1))
    heads = re.findall(r"<thead><tr>(.*?)</tr></thead>", page)[0]
    columns = re.findall(r"<th>(.*?)</th>", heads)[1:]
    assert columns[0] == "all walks"
    assert [re.search(r'href="([^"]+)"', c).group(1) for c in columns[1:]] == [  # type: ignore[union-attr]
        "../series-2.html",
        "../series-1.html",
    ]
    overview = _cells(_text(released.site, layout.RELEASES), "↳ real (sec)")[0]
    assert _cells(page, "↳ real (sec)")[0] == overview  # the same merged column
    assert 'href="../series-1.html#test-' in page  # a walk's status: its rows


def test_release_names_and_test_names_are_escaped(released: Published) -> None:
    for at in (layout.RELEASES, layout.release_page(0), layout.release_page(1)):
        page = _text(released.site, at)
        assert "<script>window.pwned" not in page
        assert "onerror=" not in page.replace("onerror=&quot;", "")
        assert "7.5 &lt;script&gt;window.pwned=1&lt;/script&gt;" in page
    assert HOSTILE not in _text(released.site, layout.RELEASES)


def test_the_index_links_the_overview(released: Published, published: Published) -> None:
    for site in (released.site, published.site):
        assert '<a href="releases.html">levels per release</a>' in _text(site, layout.INDEX)


def test_a_site_without_releases_says_so_and_draws_no_table(published: Published) -> None:
    page = _text(published.site, layout.RELEASES)
    assert "No releases: declare the project's releases" in page
    assert "<table" not in page
    assert not (published.site / "releases").exists()


def test_the_release_pages_match_their_golden_pages(
    released: Published, regen_golden: bool
) -> None:
    produced = {
        at: _text(released.site, at)
        for at in (
            layout.RELEASES,
            *(f"releases/{p.name}" for p in (released.site / "releases").iterdir()),
        )
    }
    if regen_golden:
        shutil.rmtree(GOLDEN, ignore_errors=True)
        for at, text in produced.items():
            (GOLDEN / at).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / at).write_text(text, encoding="utf-8")
    expected = {
        str(p.relative_to(GOLDEN)): p.read_text(encoding="utf-8") for p in GOLDEN.rglob("*.html")
    }
    assert sorted(produced) == sorted(expected), "pages added or missing: run with --regen-golden"
    assert [at for at in produced if produced[at] != expected[at]] == []


def test_the_pages_of_releases_removed_are_removed(tmp_path: Path) -> None:
    first = publish_fixed(tmp_path, releases=RELEASES)
    assert (first.site / layout.release_page(0)).exists()
    fewer = Releases(RELEASES.found[1:])  # 7.4 taken out: 7.5 is now the first
    with Store.open(first.fixed.url) as store:
        options = PublishOptions(points=find_all(store, first.config).points, releases=fewer)
        publish(store, first.config, first.site, options)
    assert sorted(p.name for p in (first.site / "releases").iterdir()) == [
        "before.html",
        "release-0.html",
    ]
    assert "7.4" not in _text(first.site, layout.RELEASES)
    with Store.open(first.fixed.url) as store:
        publish(store, first.config, first.site, PublishOptions(points=options.points))
    assert list((first.site / "releases").iterdir()) == []
    assert "No releases" in _text(first.site, layout.RELEASES)


def _walk(sid: int, host: str, kind: str, values: list[float]) -> SeriesContext:
    """A series of one checkout a day from 2026-01-01 with ``values`` as its summaries
    of ``net``'s ``mbps`` (higher is better)."""
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    series = SeriesRow(
        id=sid,
        name=f"walk on {host}",
        project="p",
        repo="/r",
        from_spec="",
        to_spec="main",
        step="1day",
        repetitions=1,
        between="keep",
        host=host,
        state="finished",
        started_at=t0,
        finished_at=t0,
        config_hash="h",
        config_text="",
        commands={},
        fingerprint={},
        parent_id=None if kind == "walk" else 1,
        kind=kind,
    )
    checkouts = tuple(
        CheckoutRow(
            id=sid * 100 + i,
            series_id=sid,
            idx=i,
            sha=f"{i:040x}",
            date=t0 + timedelta(days=i),
            quirks=(),
            build_status=None,
            build_seconds=None,
            build_log_id=None,
            commit_count=1,
        )
        for i in range(len(values))
    )
    idxs = tuple(range(len(values)))
    points = MetricPoints("net", "mbps", "Mbit/s", "higher", idxs, tuple(values))
    return SeriesContext(series, checkouts, levels={("net", "mbps"): MetricLevels.of(points, [])})


def test_a_level_is_merged_over_the_walks_of_one_host_only() -> None:
    """Two walks on host a, one on host b, a variant of the first: host a's column is
    the median of both its walks' summaries; b is a row of its own; the variant is
    not merged."""
    a1 = _walk(1, "a", "walk", [100, 100, 100, 80, 80])
    a2 = _walk(2, "a", "walk", [100, 100, 100, 90, 90])
    b = _walk(3, "b", "walk", [10, 10, 10, 10, 20])
    variant = _walk(4, "a", "variant", [1, 1, 1, 1, 1])
    statuses = {s.id: {i: {"net": Status.PASS} for i in range(5)} for s in (a1, a2, b)}
    statuses[3][4] = {"net": Status.FAIL}
    releases = [
        Release("1.0", datetime(2025, 12, 1, tzinfo=UTC)),
        Release("1.1", datetime(2026, 1, 4, tzinfo=UTC)),  # before checkout 3
    ]
    newest, oldest = overview(releases, [a1, a2, b, variant], statuses)
    assert (newest.window.name, oldest.window.name) == ("1.1 → now", "1.0 → 1.1")
    assert (newest.checkouts, newest.series) == (6, (1, 2, 3))  # not the variant's
    a = newest.cells[("a", "net", "mbps")]
    assert (a.level, a.summaries) == (85.0, 4)  # median of 80, 80, 90, 90
    assert a.change == pytest.approx(-0.15)
    assert a.worse  # less throughput
    assert newest.cells[("b", "net", "mbps")].level == 15.0
    assert oldest.cells[("a", "net", "mbps")].change is None  # nothing before it
    assert newest.statuses == {("a", "net"): (Status.PASS, 4), ("b", "net"): (Status.FAIL, 1)}
    text = overview_page([newest, oldest], True, 5, UTC_TIMES)
    assert "(5 checkouts left out)" in text
    assert '85.0 Mbit/s · <span class="worse">-15.0 %</span>' in text
