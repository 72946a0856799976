"""``[retention]`` in the daily loop: a watch cycle prunes the outputs of the checkouts
measured longer ago than ``older_than`` before it publishes (the site says what was
pruned), keeps every value and the logs a change points at; without ``[retention]``,
nothing is ever dropped."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.composites.watch import watch_once
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.report import layout
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory

CONFIG = """\
[project]
repo = "{repo}"

[build]
steps = ["sh build.sh"]
timeout = 30

[run]
repetitions = 2

[analysis]
suspect_load = false  # bench.sh's values are known: no machine can make them suspect

[[test]]
name = "latency"
command = "sh bench.sh; seq 1 1000"
parser = "value"
timeout = 30

[[walk]]
name = "nightly"
from = "{first}"
step = "commit/3"

[watch]
site = "site"
drill_builds = 0
confirm = false
{retention}"""

RETENTION = "\n[retention]\nolder_than = 30\n"


def _config(tmp_path: Path, known: KnownHistory, retention: str) -> Config:
    path = tmp_path / "perfwalk.toml"
    text = CONFIG.format(repo=known.path, first=known.first_parent[0], retention=retention)
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def _values(config: Config) -> list[tuple[int, int, float]]:
    with Store.open(config.store.url) as store:
        return sorted((v.checkout_idx, v.repetition_idx, v.value) for v in store.values(1))


def _data(site: Path, path: str) -> dict[str, object]:
    """The document of a data file of the site (``perfwalk.x(series, n, {...});``)."""
    text = (site / path).read_text(encoding="utf-8")
    return dict(json.loads(text[text.index("{") : text.rindex("}") + 1]))


@pytest.mark.slow
def test_a_watch_cycle_prunes_by_its_policy_and_the_site_says_so(
    tmp_path: Path, known_values_repo_copy: KnownHistory, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, known_values_repo_copy, RETENTION)
    assert main(["watch", "--once", "-c", str(config.path)]) in (exits.OK, exits.FOUND)
    out = capsys.readouterr().out
    assert "retention: nothing to prune (older than 30 days)" in out  # measured just now
    values = _values(config)
    assert len(values) == 2 * 13  # every third commit of 40 and the last, one not built

    # two months later: a cycle finds nothing new to walk, and prunes
    later = datetime.now(UTC) + timedelta(days=60)
    cycle = watch_once(config, clock=lambda: later)
    assert cycle.pruned is not None
    plan = cycle.pruned.plan
    kept = sorted(c.idx for k in plan.kept for c in k.checkouts)
    assert kept == [3, 4, 6, 7, 13]  # the build broken, the step, the newest
    dropped = [c.idx for c in plan.dropped]
    assert dropped == [0, 1, 2, 5, 8, 9, 10, 11, 12]
    assert cycle.pruned.done.logs == plan.logs == 3 * len(dropped)  # a build, two results
    assert cycle.pruned.reclaimed is None  # SQLite reuses the space for the next logs
    assert _values(config) == values

    site = tmp_path / "site"
    said = f"pruned on {later:%Y-%m-%d} (retention: older than 30 days)"
    checkouts = _data(site, layout.checkout_data(1, 0))["c"]
    assert isinstance(checkouts, list)
    notes = {c["idx"]: c.get("pruned") for c in checkouts}
    assert {idx for idx, note in notes.items() if note} == set(dropped)
    assert notes[0] == f"its logs and profiles {said}"
    logs = _data(site, layout.logs_data(1, 0))
    pruned = logs["pruned"]
    assert isinstance(pruned, dict)
    assert len(pruned) == cycle.pruned.done.logs
    assert set(pruned.values()) == {f"log {said}"}

    # the next cycle finds nothing more to prune; a configuration without
    # [retention] prunes nothing, whatever the time
    assert watch_once(config, clock=lambda: later).pruned is not None
    bare = _config(tmp_path, known_values_repo_copy, "")
    much_later = later + timedelta(days=365)
    assert watch_once(bare, clock=lambda: much_later).pruned is None
    assert main(["watch", "--once", "-c", str(bare.path)]) in (exits.OK, exits.FOUND)
    assert "retention:" not in capsys.readouterr().out
    with Store.open(config.store.url) as store:
        (prune,) = store.retention.prunes()
        assert prune.dropped.logs == cycle.pruned.done.logs
        assert [o.idx for o in store.retention.outputs() if o.logs] == kept
