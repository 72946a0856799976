"""The pages of a site published, pruned (``perfwalk prune --apply``) and published
again, in Debian's headless chromium: a pruned checkout's page, its logs and a large
log's own page say "log pruned on DATE (retention: RULE)" where the output was, every
link of those pages leads to a file of the site, a kept checkout's logs are whole, and
no console error."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.chromium import Watched
from tests.fixtures.synthetic_repo import KnownHistory
from tests.services.test_prune import profiled

PAINT_TIMEOUT_MS = 15_000

CONFIG = """\
[project]
repo = "{repo}"

[build]
steps = ["sh build.sh"]

[run]
step = "commit/3"
repetitions = 2

[[test]]
name = "latency"
command = "sh bench.sh; seq 1 2000"
parser = "value"
timeout = 30
"""


def _drawn(page: Any, site: Path, path: str) -> str:
    page.goto((site / path.partition("#")[0]).as_uri() + "#" + path.partition("#")[2])
    page.wait_for_function(
        "() => document.getElementById('pw-page').dataset.drawn", timeout=PAINT_TIMEOUT_MS
    )
    page.wait_for_function(
        "() => !document.querySelector('#pw-page .pw-wait')", timeout=PAINT_TIMEOUT_MS
    )
    return str(page.inner_text("#pw-page"))


def _broken_links(page: Any, site: Path, at: str) -> list[str]:
    """The links of the page at ``at`` that lead to no file of the site."""
    hrefs: list[str] = page.eval_on_selector_all(
        "#pw-page a[href]", "els => els.map(a => a.getAttribute('href'))"
    )
    here = (site / at).parent
    assert hrefs, at  # a page with links to check
    return [
        href
        for href in hrefs
        if not href.startswith(("#", "http:", "https:"))
        and not (here / href.partition("#")[0]).resolve().is_file()
    ]


def test_pruned_outputs_are_said_where_they_were(
    tmp_path: Path, known_values_repo_copy: KnownHistory, watched: Watched
) -> None:
    path = tmp_path / "perfwalk.toml"
    text = CONFIG.format(repo=known_values_repo_copy.path) + profiled(tmp_path)
    path.write_text(text, encoding="utf-8")
    config = load_config(path)
    run_series(config, RunOptions())
    site = tmp_path / "site"
    assert main(["report", "-c", str(path), "--out", str(site)]) == exits.OK
    assert main(["prune", "-c", str(path), "--max-size", "10k", "--apply"]) == exits.OK
    assert main(["report", "-c", str(path), "--out", str(site)]) == exits.OK
    with Store.open(config.store.url) as store:
        rows = store.checkouts(1)
        pruned = [r.idx for r in rows if r.pruned is not None]
        run = store.repetitions(rows[0].id)[0].results[0]
        large = run.stdout_log_id  # 2001 lines: a page of its own
    assert pruned == [0, 1, 2, 5, 8, 9, 10, 11, 12]
    said = f"pruned on {datetime.now(UTC):%Y-%m-%d} (retention: beyond 10.0 KiB)"
    page = watched.page

    text = _drawn(page, site, "series-1/checkout.html#c=0")
    assert f"its logs and profiles {said}" in text
    assert "100.0 ms" in text  # its values
    assert "flame graphs" not in text  # its profile's link: gone
    assert _broken_links(page, site, "series-1/checkout.html") == []
    watched.shot("pruned-checkout")
    with page.expect_navigation():
        page.get_by_role("link", name="build log").click()
    page.wait_for_function("() => document.getElementById('pw-page').dataset.drawn === 'c=0'")

    text = _drawn(page, site, "series-1/logs.html#c=0")
    assert text.count(f"log {said}") == 3  # the build, each repetition's output
    assert "(no output)" not in text
    assert "bytes produced" not in text
    assert _broken_links(page, site, "series-1/logs.html") == []
    watched.shot("pruned-logs")

    text = _drawn(page, site, f"series-1/log.html#log={large}")
    assert f"log {said}" in text
    assert "VALUE" not in text
    assert (site / f"series-1/log-{large}.txt").read_text() == f"log {said}\n"
    assert _broken_links(page, site, "series-1/log.html") == []

    text = _drawn(page, site, "series-1/logs.html#c=13")  # the newest: kept
    assert "pruned" not in text
    assert "VALUE 130 ms latency" in text
    text = _drawn(page, site, "series-1/checkout.html#c=13")
    assert "profiles (flame graphs): latency" in text
    assert "pruned" not in text
    assert watched.errors == []
