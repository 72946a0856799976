"""`perfwalk report` as a person runs it after a walk: the site it writes (the configured
one, wherever the command runs) and what its plots draw (not a metric marked
``ignore``). Real perfwalk processes, a real git repository, SQLite."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.report import layout
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.services.conftest import MakeConfig

#: bench.sh's latency, and a jitter the configuration marks ``ignore``
TWO_METRICS = "sh bench.sh; echo VALUE 5 ms jitter"
IGNORED = """
[test.metrics.jitter]
ignore = true
"""


def _report(config: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``perfwalk report -c CONFIG ARGS`` run in ``cwd``."""
    cwd.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "perfwalk", "report", "-c", str(config), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_metric_marked_ignore_is_kept_and_tabled_but_not_drawn_on_the_plots(
    make_config: MakeConfig, tmp_path: Path
) -> None:
    config = make_config(command=TWO_METRICS, extra=IGNORED)
    result = run_series(config, RunOptions(to="2024-01-02"))
    with Store.open(config.store.url) as store:
        stored = {row.name for row in store.values(result.series_id)}
    assert stored == {"latency", "jitter"}  # kept

    site = tmp_path / "published"
    done = _report(config.path, tmp_path, "--out", str(site))
    assert done.returncode == 0, done.stderr
    data = (site / layout.series_dir(result.series_id) / "data").glob("*.js")
    texts = [path.read_text() for path in sorted(data)]
    # perfwalk.block(ID,"KEY",N,{...});: the lines of a plot's block
    blocks = [t for t in texts if t.startswith("perfwalk.block(")]
    assert blocks
    for text in blocks:
        payload = json.loads(text.strip().removesuffix(");").split(",", 3)[3])
        assert set(payload["n"]) == {"latency"}, text
    meta = (site / layout.series_meta(result.series_id)).read_text()
    assert '"names":["latency"]' in meta
    assert "jitter" not in meta
    page = (site / layout.series_page(result.series_id)).read_text()
    (names,) = re.findall(r'data-names="([^"]*)"', page)
    assert names == "latency"
    table = (site / layout.table_page(result.series_id, 0)).read_text()
    assert "jitter" in table  # its values are still shown in the table


def test_report_without_out_publishes_the_configured_site_wherever_it_runs(
    make_config: MakeConfig, tmp_path: Path
) -> None:
    config = make_config()
    run_series(config, RunOptions(to="2024-01-02"))
    elsewhere = tmp_path / "elsewhere"

    done = _report(config.path, elsewhere)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "index.html").exists()  # [watch] site: next to the file
    assert not (elsewhere / "site").exists(), "a second site in the current folder"
    assert f"site: {tmp_path / 'site' / 'index.html'}" in done.stdout

    # a configured [watch] site, as `perfwalk watch` publishes it
    text = config.path.read_text(encoding="utf-8")
    config.path.write_text(text + '\n[watch]\nsite = "public/site"\n', encoding="utf-8")
    done = _report(config.path, elsewhere)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "public" / "site" / "index.html").exists()
    assert not (elsewhere / "site").exists()
    # --out still chooses
    done = _report(config.path, elsewhere, "--out", "mine")
    assert done.returncode == 0, done.stderr
    assert (elsewhere / "mine" / "index.html").exists()
