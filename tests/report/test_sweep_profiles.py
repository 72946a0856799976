"""A sweep family drawn as one profile on its series' page: the value against the
swept parameter (``size`` on x), one line per range of checkouts between the changes
found in the family's members, one profile per value of the other parameters. A real
walk of a real git repository whose small packets got twice as fast at one commit;
published by ``publish_site`` (its change detection and levels)."""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from perfwalk.config import load_config
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.report import layout
from perfwalk.services.publish import publish_site
from perfwalk.services.run import run_series
from tests.fixtures.synthetic_repo import CommitSpec, make_repo

CONFIG = """\
[project]
repo = "{repo}"

[build]
steps = ["true"]

[run]
step = "commit"
repetitions = 3

[[test]]
name = "udp"
command = {command}
parser = "value"
[test.sweep]
size = [64, 512, 1500]
streams = [1, 10]

[[test]]
name = "words"
command = "echo VALUE 5 s t"
parser = "value"
[test.sweep]
mode = ["fast", "slow"]
"""

#: size × streams, times 2 for the sizes whose file d<size> says 50
COMMAND = (
    "echo VALUE $(( {sweep.size} * {sweep.streams} * 100 / "
    "$(cat d{sweep.size} 2>/dev/null || echo 100) )) B/s receiver"
)

#: the commit from which packets of 64 bytes are twice as fast (d64 from 100 to 50)
STEP = 6
COMMITS = 12


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("profiles")
    start = datetime(2025, 3, 1, tzinfo=UTC)
    make_repo(
        folder / "repo",
        [
            CommitSpec(
                start + timedelta(hours=i), f"c{i}", {"d64": "50\n" if i >= STEP else "100\n"}
            )
            for i in range(COMMITS)
        ],
    )
    path = folder / "perfwalk.toml"
    path.write_text(
        CONFIG.format(repo=folder / "repo", command=json.dumps(COMMAND)), encoding="utf-8"
    )
    config = load_config(path)
    run_series(config, RunOptions())
    publish_site(config, folder / "site")
    return folder / "site"


def _profiles(site: Path) -> list[dict[str, Any]]:
    text = (site / layout.series_page(1)).read_text(encoding="utf-8")
    return [json.loads(html.unescape(p)) for p in re.findall(r'data-profile="([^"]*)"', text)]


def test_each_family_is_a_profile_per_held_parameter_with_a_line_per_level(site: Path) -> None:
    found = _profiles(site)
    # the words of mode are no axis: that family has its members' plots only
    assert [p["title"] for p in found] == [
        "udp[streams=1] receiver per size",
        "udp[streams=10] receiver per size",
    ]
    for profile, streams in zip(found, (1, 10), strict=True):
        assert profile["xs"] == [64, 512, 1500]
        assert profile["unit"] == "B/s"
        assert profile["parameter"] == "size"
        before, after = profile["lines"]  # cut where 64's change was found
        assert before["label"].startswith("checkouts 0–")
        assert after["label"].endswith(")")
        assert before["values"] == [64 * streams, 512 * streams, 1500 * streams]
        # the small packets doubled, the large did not move
        assert after["values"] == [128 * streams, 512 * streams, 1500 * streams]
    page = (site / layout.series_page(1)).read_text(encoding="utf-8")
    assert '<script src="sweep.js" defer></script>' in page
    assert page.index('class="sweep-plot"') < page.index('class="plot"')  # above the members'


def test_a_page_without_a_sweep_loads_no_sweep_script(site: Path) -> None:
    index = (site / layout.INDEX).read_text(encoding="utf-8")
    assert "sweep.js" not in index
    assert 'class="sweep-plot"' not in index
