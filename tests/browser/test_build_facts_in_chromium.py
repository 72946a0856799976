"""What a checkout ran, in a real browser: from the series table's symbols cell to
the diff, and the checkout page's "What it ran" drawn by pages.js."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.report import layout
from perfwalk.services.publish import publish_site
from perfwalk.services.run import run_series
from tests.fixtures.chromium import Watched
from tests.services.test_build_facts import c_config, c_project

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None or shutil.which("nm") is None, reason="needs cc and nm"
)


def test_the_checkout_page_tells_what_it_ran(tmp_path: Path, watched: Watched) -> None:
    repo, _commits = c_project(tmp_path)
    config = load_config(c_config(tmp_path, repo, "prog"))
    result = run_series(config, RunOptions())
    assert result.worst is Status.PASS
    site = tmp_path / "site"
    publish_site(config, site)
    page = watched.page
    page.goto((site / layout.series_page(result.series_id)).as_uri())
    cell = page.locator("table.checkouts td.changed a", has_text="+1")
    assert cell.count() == 1
    with page.expect_navigation():
        cell.click()
    assert re.search(r"^\+[0-9a-f]{16} T helper$", page.inner_text("body"), re.M)
    checkout = (site / layout.checkout_shell(result.series_id)).as_uri() + "#c=2"
    page.goto(checkout)
    page.wait_for_function("() => document.getElementById('pw-page').dataset.drawn", timeout=15_000)
    facts = page.inner_text("div.pw-facts")
    assert "What it ran" in facts
    assert "symbols of prog" in facts
    assert "+1 \u22120 ~" in facts
    assert page.locator("p.pw-symbols a", has_text="+1").count() == 1
    assert not watched.errors
    assert not watched.dialogs
