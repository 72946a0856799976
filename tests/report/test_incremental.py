"""Incremental publishing: one new checkout rewrites only the pages it affects, and
the site is then the same as one published from scratch."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwalk.config.model import Config
from perfwalk.orchestrate.findings.changes import find_all
from perfwalk.report import layout
from perfwalk.report.site import PublishOptions, publish
from perfwalk.store import Store
from tests.fixtures.site_digests import site_digests
from tests.report.history import (
    FixedStore,
    add_daily_checkout,
    add_fast_checkout,
    config_for,
    make_fixed_store,
)


def _large_logs(site: Path) -> list[int]:
    return [int(p.stem.split("-")[1]) for p in site.glob("series-1/log-*.txt")]


@pytest.fixture(params=["default", "tiny"])
def paging(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The default layout, and one so small that the fixed store has several table
    pages, plot blocks and sealed data files."""
    if request.param == "tiny":
        monkeypatch.setattr(layout, "TABLE_COLUMNS", 1)
        monkeypatch.setattr(layout, "PLOT_BLOCK", 2)
        monkeypatch.setattr(layout, "SEAL", 2)
    return str(request.param)


def test_one_new_checkout_rewrites_only_its_pages(tmp_path: Path, paging: str) -> None:
    fixed = make_fixed_store(tmp_path / "store.db", daily_checkouts=5)
    config = config_for(fixed.url, tmp_path)
    site = tmp_path / "site"
    with Store.open(fixed.url) as store:
        options = _options(store, config, fixed)
        first = publish(store, config, site, options)
        assert first.full
        again = publish(store, config, site, options)
        assert (again.written, again.checkouts) == (0, 0)  # nothing changed: nothing written
        before = site_digests(site)
        add_daily_checkout(store, fixed.daily, 5)  # joins the newest level of each metric
        after_one = publish(store, config, site, _options(store, config, fixed))
    after = site_digests(site)
    changed = {name for name in after if before.get(name) != after[name]}
    d = fixed.daily
    block = 0 if paging == "default" else 2  # tiny: checkouts 4 and 5 share block 2
    expected = {
        layout.checkout_data(d, block),  # the new checkout, and its neighbour's "next"
        layout.logs_data(d, block),
        layout.commits_data(d, block),
        layout.table_page(d, 0) if paging == "default" else layout.table_page(d, 5),
        layout.table_page(d, 4),  # tiny: gains its "newer" link
        layout.series_page(d),
        layout.series_meta(d),
        layout.setup_page(d),
        layout.INDEX,
        "series-1/data/",  # the plot data of the block, whatever their keys
        f"{layout.STATE_DIR}/manifest.json",
    }
    rewritten = {name for name in changed if name in before}  # new files apart
    unexpected = {
        name for name in rewritten if name not in expected and not name.startswith("series-1/data/")
    }
    assert not unexpected, unexpected
    assert layout.checkout_data(d, block) in changed
    new = changed - rewritten
    assert layout.log_text(d, max(_large_logs(site))) in new  # the large log, written once
    assert not any(name.startswith("series-2") for name in changed)  # the other series
    assert after_one.checkouts == 2
    assert not after_one.full

    scratch = tmp_path / "scratch"
    with Store.open(fixed.url) as store:
        publish(store, config, scratch, _options(store, config, fixed))
    assert site_digests(scratch) == after  # incremental = from scratch, byte for byte


def _options(store: Store, config: Config, fixed: FixedStore) -> PublishOptions:
    """The fixed changes, and the summaries as the publish's detection reads them."""
    points = find_all(store, config).points
    return PublishOptions(changes=fixed.changes, episodes=fixed.episodes, points=points)


def test_a_change_found_later_rewrites_the_older_pages_of_its_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table page gives the newest level as far as it goes; once a change closes that
    level, the older pages give it whole, and are written again though none of their
    checkouts changed."""
    monkeypatch.setattr(layout, "TABLE_COLUMNS", 1)
    monkeypatch.setattr(layout, "PLOT_BLOCK", 2)
    monkeypatch.setattr(layout, "SEAL", 2)
    fixed = make_fixed_store(tmp_path / "store.db", daily_checkouts=6)
    config = config_for(fixed.url, tmp_path)
    site = tmp_path / "site"
    d = fixed.daily
    with Store.open(fixed.url) as store:
        points = find_all(store, config).points
        real = [c for c in fixed.changes if c.series_id == d and c.name == "real"]
        kept = tuple(c for c in fixed.changes if c not in real)
        publish(store, config, site, PublishOptions(changes=kept, points=points))
        first, newest = site / layout.table_page(d, 0), site / layout.table_page(d, 4)
        assert "checkouts 0–0:" in _real_row(first)  # one level, as far as page 0 goes
        assert "checkouts 0–4:" in _real_row(newest)
        publish(store, config, site, PublishOptions(changes=fixed.changes, points=points))
        assert "checkouts 0–2:" in _real_row(first)  # closed at the change at 3: whole
        assert "checkouts 3–4:" in _real_row(newest)  # the level from 3, as far as 4
        scratch = tmp_path / "scratch"
        publish(store, config, scratch, PublishOptions(changes=fixed.changes, points=points))
    assert site_digests(scratch) == site_digests(site)


def test_changed_settings_rewrite_everything(tmp_path: Path) -> None:
    fixed = make_fixed_store(tmp_path / "store.db", daily_checkouts=3)
    site = tmp_path / "site"
    with Store.open(fixed.url) as store:
        publish(store, config_for(fixed.url, tmp_path), site)
        report = publish(store, None, site)  # no commit links any more
    assert report.full
    assert "git.example.org" not in (site / layout.series_meta(fixed.daily)).read_text()


def test_workers_publish_the_same_site(tmp_path: Path) -> None:
    fixed = make_fixed_store(tmp_path / "store.db", daily_checkouts=6)
    config = config_for(fixed.url, tmp_path)
    with Store.open(fixed.url) as store:
        publish(
            store,
            config,
            tmp_path / "one",
            PublishOptions(changes=fixed.changes, episodes=fixed.episodes),
        )
        publish(
            store,
            config,
            tmp_path / "two",
            PublishOptions(
                changes=fixed.changes, episodes=fixed.episodes, workers=2, store_url=fixed.url
            ),
        )
    assert site_digests(tmp_path / "one") == site_digests(tmp_path / "two")


def test_new_findings_rewrite_only_the_pages_that_show_them(tmp_path: Path) -> None:
    """An excursion found since the last publish: its cells' table page, the series page
    (listed), the plot metadata (drawn) and the index (counted); nothing else of it."""
    fixed = make_fixed_store(tmp_path / "store.db")
    config = config_for(fixed.url, tmp_path)
    site = tmp_path / "site"
    (excursion,) = [e for e in fixed.episodes if e.test == "make"]
    with Store.open(fixed.url) as store:
        publish(store, config, site, PublishOptions(changes=fixed.changes))
        before = site_digests(site)
        found = PublishOptions(changes=fixed.changes, episodes=(excursion,))
        report = publish(store, config, site, found)
        after = site_digests(site)
        publish(store, config, tmp_path / "scratch", found)
    changed = {name for name in after if before.get(name) != after[name]}
    d = fixed.daily
    assert {layout.table_page(d, 0), layout.series_page(d), layout.series_meta(d)} <= changed
    assert layout.INDEX in changed
    assert not any(name.startswith("series-2") for name in changed)
    for untouched in (
        layout.checkout_data(d, 0),
        layout.logs_data(d, 0),
        layout.commits_data(d, 0),
    ):
        assert untouched not in changed, untouched
    assert not report.full
    assert 'class="excursion"' in (site / layout.table_page(d, 0)).read_text(encoding="utf-8")
    assert site_digests(tmp_path / "scratch") == after  # incremental = from scratch


def test_a_variants_new_checkout_rewrites_its_walks_table_not_the_walks_data(
    tmp_path: Path, paging: str
) -> None:
    """The walk's table shows its variants' columns: a checkout the variant measured
    since the last publish rewrites the walk's table and page (and the variant's own
    files), never the walk's checkout, log or commit data."""
    fixed = make_fixed_store(tmp_path / "store.db", daily_checkouts=5)
    config = config_for(fixed.url, tmp_path)
    site = tmp_path / "site"
    options = PublishOptions(changes=fixed.changes, episodes=fixed.episodes)
    d, fast = fixed.daily, fixed.fast
    assert fast is not None
    with Store.open(fixed.url) as store:
        add_daily_checkout(store, d, 5)  # the walk is one checkout ahead of its variant
        publish(store, config, site, options)
        before = site_digests(site)
        add_fast_checkout(store, fast, 5)
        report = publish(store, config, site, options)
    after = site_digests(site)
    changed = {name for name in after if before.get(name) != after[name]}
    table = layout.table_page(d, 0) if paging == "default" else layout.table_page(d, 5)
    assert {table, layout.series_page(d), layout.INDEX} <= changed
    block = 0 if paging == "default" else 2
    for untouched in (
        layout.checkout_data(d, block),
        layout.logs_data(d, block),
        layout.commits_data(d, block),
    ):
        assert untouched not in changed, untouched
    walks = {name for name in changed if name.startswith(layout.series_dir(d) + "/")}
    assert walks <= {table} | {n for n in walks if n.startswith("series-1/data/")}
    assert not {n for n in walks if n.startswith("series-1/data/checkouts")}
    assert layout.checkout_data(fast, block) in changed
    assert report.checkouts == 2  # the variant's new one and its neighbour, none of the walk
    cell = (site / table).read_text(encoding="utf-8")
    assert f'href="{layout.href(table, layout.checkout_page(fast, 5))}"' in cell
    scratch = tmp_path / "scratch"
    with Store.open(fixed.url) as store:
        publish(store, config, scratch, options)
    assert site_digests(scratch) == after  # incremental = from scratch, byte for byte


def _real_row(page: Path) -> str:
    return next(line for line in page.read_text().splitlines() if ">real <" in line)
