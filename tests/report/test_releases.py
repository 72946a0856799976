"""Releases on the site: resolved when it is published (a tag to its commit's date, a
date as it is), written with their places to each series' plot metadata, offered as
windows above the plots; quirks over a range shaded over it, each once per page with
a link to its commands and patch."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.config.model import Config, ReleaseConfig
from perfwalk.errors import ConfigError
from perfwalk.report import layout
from perfwalk.report.pages.setup import setup_page
from perfwalk.report.releases import Release, Releases, resolve_releases
from perfwalk.report.site import PublishOptions, publish
from perfwalk.report.times import UTC_TIMES
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import CommitSpec, git, make_repo
from tests.report.conftest import Published, publish_fixed
from tests.report.history import HOSTILE, T0, config_for

RELEASES = Releases(
    (
        Release("7.4", datetime(2024, 3, 2, tzinfo=UTC), "ab" * 20, "LTS"),
        Release(f"7.5 {HOSTILE}", datetime(2024, 3, 4, tzinfo=UTC), None, HOSTILE),
        Release("8.0", datetime(2030, 1, 1, tzinfo=UTC)),  # after every checkout
    )
)


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Published:
    return publish_fixed(tmp_path_factory.mktemp("released"), releases=RELEASES)


def _meta(site: Path, sid: int) -> dict[str, object]:
    text = (site / layout.series_meta(sid)).read_text(encoding="utf-8")
    found = re.fullmatch(rf"perfwalk\.meta\({sid},(.*)\);\n", text, re.S)
    assert found is not None
    meta = json.loads(found.group(1))
    assert isinstance(meta, dict)
    return meta


def test_the_plot_metadata_has_the_releases_at_their_places(released: Published) -> None:
    meta = _meta(released.site, 1)
    releases = meta["releases"]
    assert isinstance(releases, list)
    assert [r[0] for r in releases] == ["7.4", f"7.5 {HOSTILE}", "8.0"]
    assert releases[0][1] == int(datetime(2024, 3, 2, tzinfo=UTC).timestamp() * 1000)
    assert releases[0][4] == "ab" * 6  # its commit, short
    assert releases[1][3] == HOSTILE  # JSON data, shown as text by the plots
    # the first checkout at or after each: T0 (day 0) is before 7.4, which is before day 1
    assert releases[0][2] is not None
    assert releases[0][2] >= 1
    assert releases[1][2] is not None
    assert releases[1][2] > releases[0][2]
    assert releases[2][2] is None  # after the last checkout: no place in commit order


def test_a_quirk_over_a_range_is_shaded_from_its_start_to_its_last_checkout(
    released: Published,
) -> None:
    meta = _meta(released.site, 1)
    quirks = meta["quirks"]
    assert isinstance(quirks, list)
    [quirk] = quirks
    letter, at, _comment, pos, span = quirk
    assert letter == "A"
    assert span is not None
    start, end, first, last = span
    assert start == at  # from where it starts
    assert end > start
    assert first <= pos <= last


def test_the_window_selector_offers_each_release_to_the_next_and_the_last_to_now(
    released: Published,
) -> None:
    for path in (layout.INDEX, layout.series_page(1)):
        text = (released.site / path).read_text(encoding="utf-8")
        select = text[text.index('<select id="release-window">') :]
        select = select[: select.index("</select>")]
        options = re.findall(r'<option value="([0-9:]*)">([^<]*)</option>', select)
        assert [value for value, _ in options] == ["", "0:1", "1:2", "2:"]
        assert options[1][1].startswith("release 7.4 → release 7.5 &lt;script&gt;")
        assert options[3][1] == "release 8.0 → now"
        assert "<script>window" not in select  # escaped


def test_a_site_without_releases_has_no_window_selector(published: Published) -> None:
    text = (published.site / layout.series_page(1)).read_text(encoding="utf-8")
    assert "release-window" not in text
    assert '"releases":[]' in (published.site / layout.series_meta(1)).read_text()


def test_the_legends_are_collapsed_and_quirks_link_their_setup(released: Published) -> None:
    text = (released.site / layout.series_page(1)).read_text(encoding="utf-8")
    assert text.count("<summary><h2>Quirks</h2></summary>") == 1
    assert text.count("<summary><h2>Statuses</h2></summary>") == 1
    assert 'href="series-1/setup.html#quirk-A"' in text
    setup = (released.site / layout.setup_page(1)).read_text(encoding="utf-8")
    assert '<h3 id="quirk-A">' in setup


def test_the_index_lists_a_quirk_shared_by_series_once(tmp_path: Path) -> None:
    published = publish_fixed(tmp_path)
    index = (published.site / layout.INDEX).read_text(encoding="utf-8")
    legend = index[index.index("<summary><h2>Quirks</h2>") :]
    legend = legend[: legend.index("</details>")]
    rows = re.findall(r'<td class="quirk">([^<]*)</td>', legend)
    assert len(rows) == len(set(rows))  # each quirk once, whichever series it marks


def test_a_release_changes_every_page_at_the_next_publish(tmp_path: Path) -> None:
    first = publish_fixed(tmp_path)
    assert first.report.warnings == ()
    options = PublishOptions(changes=first.fixed.changes, episodes=first.fixed.episodes)
    with Store.open(first.fixed.url) as store:
        same = publish(store, first.config, first.site, options)
        again = publish(
            store, first.config, first.site, dataclasses.replace(options, releases=RELEASES)
        )
    assert not same.full
    assert again.full  # the releases are drawn on every plot
    assert "release-window" in (first.site / layout.series_page(1)).read_text(encoding="utf-8")


# -- resolving ----------------------------------------------------------------------


def _repo(path: Path) -> list[str]:
    ids = make_repo(
        path,
        [
            CommitSpec(date=T0, message="one", files={"a": "1"}),
            CommitSpec(date=T0.replace(day=5), message="two", files={"a": "2"}),
        ],
    )
    git(path, "tag", "v1.0", ids[1])
    return ids


def _config(repo: Path, *releases: ReleaseConfig) -> Config:
    config = config_for("sqlite:///unused.db", repo)
    return dataclasses.replace(config, releases=releases)


def test_a_tag_resolves_to_its_commits_date_and_a_date_to_itself(tmp_path: Path) -> None:
    ids = _repo(tmp_path / "repo")
    config = _config(
        tmp_path / "repo",
        ReleaseConfig("1.0", "v1.0", "first"),
        ReleaseConfig("0.9", "2024-03-02"),
    )
    found = resolve_releases(config)
    assert found.warnings == ()
    assert [(r.name, r.at, r.commit) for r in found.found] == [
        ("0.9", datetime(2024, 3, 2, tzinfo=UTC), None),  # in date order
        ("1.0", T0.replace(day=5), ids[1]),
    ]
    assert found.found[1].comment == "first"


def test_an_unknown_commit_ish_names_the_release(tmp_path: Path) -> None:
    _repo(tmp_path / "repo")
    config = _config(tmp_path / "repo", ReleaseConfig("1.0", "v1.0"), ReleaseConfig("2.0", "v2.0"))
    with pytest.raises(ConfigError) as caught:
        resolve_releases(config)
    assert caught.value.key == "release[1].at"
    assert "release '2.0'" in caught.value.message
    assert "v2.0" in caught.value.message
    assert caught.value.hint


def test_without_a_repository_releases_by_commit_are_left_out_with_a_warning(
    tmp_path: Path,
) -> None:
    (tmp_path / "plain").mkdir()
    config = _config(
        tmp_path / "plain", ReleaseConfig("1.0", "v1.0"), ReleaseConfig("0.9", "2024-03-02")
    )
    found = resolve_releases(config)
    assert [r.name for r in found.found] == ["0.9"]
    [warning] = found.warnings
    assert "release '1.0'" in warning
    assert "release[0].at" in warning


def test_the_setup_page_shows_a_quirks_patch_escaped_under_its_anchor(
    released: Published,
) -> None:
    with Store.open(released.fixed.url) as store:
        series = store.series(1)
    told = {"A": {"commands": [], "range": True, "patch": "fix.diff", "patch_text": HOSTILE}}
    page = setup_page(
        dataclasses.replace(series, commands={**series.commands, "quirks": told}), UTC_TIMES
    )
    section = page[page.index('<h3 id="quirk-A">') :]
    assert '<p>patch fix.diff:</p><pre class="patch">&lt;script&gt;' in section
    assert "<script>window" not in page
    assert "patch_text" not in section  # the text itself, not in the JSON above it
