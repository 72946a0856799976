"""Stacks 1 000 to 5 000 frames deep, a function of 100 000 characters, the whole way
in chromium: a walk whose profiler writes them, a drill, ``perfwalk report``; the
drill's page draws the differential flame graph down to the deepest leaf (the stacks
bounded to 1 024 frames, the rest folded into one), the walk's profile page draws
and shows the note of what was folded; no console error."""

from __future__ import annotations

from pathlib import Path

from perfwalk.report import layout
from perfwalk.store import Store
from tests.browser.test_profiled_drill_in_chromium import _drawn
from tests.browser.test_site_in_chromium import _uri
from tests.fixtures.chromium import Watched
from tests.services.test_profile_bounds import project
from tests.services.walks import finished


def test_deep_stacks_draw(tmp_path: Path, watched: Watched) -> None:
    made = project(tmp_path, "deep")
    c = str(made.config.path)
    assert finished("run", "-c", c)[0] == 0
    between = ("--between", made.ids[1], made.ids[2], "--test", "lat", "--value", "latency")
    assert finished("drill", *between, "-c", c)[0] == 0
    site = tmp_path / "site"
    assert finished("report", "-c", c, "--out", str(site))[0] == 0
    with Store.open(made.config.store.url) as store:
        [drill] = store.drills.all()
        profiled = store.profiles.listed(1)
    page = watched.page
    page.goto(_uri(site, layout.series_page(drill.series_id)))
    _drawn(page, "leaf_c")
    watched.shot("drill")
    assert watched.errors == [], watched.errors
    page.goto(_uri(site, layout.profile_page(1, profiled[0][0][1])))
    _drawn(page, "leaf_c")
    assert "folded into one" in page.locator("p.flame-facts").text_content()
    assert watched.errors == [], watched.errors
    assert watched.dialogs == []
