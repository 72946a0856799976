"""The whole way with the real perf: a walk of a C project under ``perf record``, a
drill to the commit that made a function slower, ``perfwalk report``; in chromium the
drill's page draws the differential flame graph of the culprit against its parent with
that function in it and first in the table, and a checkout of the walk links its
profile's flame graph, which draws; no console error. Skipped where perf cannot
sample."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from perfwalk.cli.main import main
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.report import layout
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.browser.test_site_in_chromium import PAINT_TIMEOUT_MS, _uri
from tests.fixtures.chromium import Watched
from tests.fixtures.profiled_repo import COMMITS, HOT, SLOWER_AT, profiled_history
from tests.services.test_profiles import _config, needs_perf


def _drawn(page: Any, name: str) -> None:
    page.wait_for_function(
        "() => [...document.querySelectorAll('div.pw-flame')].every(b => b.dataset.drawn)",
        timeout=PAINT_TIMEOUT_MS,
    )
    page.wait_for_function(
        "name => [...document.querySelectorAll('svg g.frame')]"
        ".some(g => g.getAttribute('name') === name)",
        arg=name,
        timeout=PAINT_TIMEOUT_MS,
    )


@pytest.mark.slow
@needs_perf
def test_a_drilled_slowdown_draws_its_differential_profile(
    tmp_path: Path, watched: Watched, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    ids = profiled_history(repo)
    config = _config(tmp_path, repo)
    walk = run_series(config, RunOptions(step=f"commit/{COMMITS - 1}"))
    args = ["--between", ids[0], ids[-1], "--test", "crc", "--value", "cpu"]
    assert main(["drill", *args, "-c", str(config.path)]) == 0
    site = tmp_path / "site"
    assert main(["report", "-c", str(config.path), "--out", str(site)]) == 0
    capsys.readouterr()
    with Store.open(config.store.url) as store:
        [drill] = store.drills.all()
        assert drill.answer is not None
        assert drill.answer["culprit"] == ids[SLOWER_AT]
        profiled = store.profiles.listed(walk.series_id)
    page = watched.page
    page.goto(_uri(site, layout.series_page(drill.series_id)))
    _drawn(page, HOT)
    assert HOT in page.locator("svg.d3-flame-graph").text_content()
    first = page.locator("table.profile-changes tbody tr").first.locator("td").first
    assert first.text_content() == HOT
    assert page.locator("table.profile-changes td.flame-grew").count() >= 1
    watched.shot("drill")
    assert watched.errors == [], watched.errors
    # a checkout of the walk links its profile's flame graph
    idx = min(profiled)
    page.goto(_uri(site, layout.checkout_page(walk.series_id, idx)))
    page.wait_for_function(
        "() => document.getElementById('pw-page').dataset.drawn", timeout=PAINT_TIMEOUT_MS
    )
    link = page.locator("p.pw-profiles a").first
    assert link.text_content() == "crc"
    link.click()
    _drawn(page, HOT)
    assert page.url.endswith(f"profile.html#p={profiled[idx][0][1]}")
    assert watched.errors == [], watched.errors
    assert watched.dialogs == []
