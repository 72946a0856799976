"""The same walk on both back-ends: a SQLite file and a real PostgreSQL server."""

from __future__ import annotations

from pathlib import Path

from perfwalk.config import load_config
from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.store.conftest import pg_admin, store_url

__all__ = ["pg_admin", "store_url"]  # fixtures: store_url runs each test on both back-ends

CONFIG = """\
[project]
repo = "{repo}"
[store]
url = "{url}"
[build]
steps = ["sh build.sh"]
[run]
step = "commit/5"
repetitions = 2
[[test]]
name = "latency"
command = "sh bench.sh"
parser = "value"
"""


def test_walk_stores_every_value(
    tmp_path: Path, known_values_repo_copy: KnownHistory, store_url: str
) -> None:
    known = known_values_repo_copy
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG.format(repo=known.path, url=store_url))
    result = run_series(load_config(path), RunOptions())
    with Store.open(store_url) as store:
        rows = store.checkouts(result.series_id)
        values = store.values(result.series_id)
        assert len(rows) == 9  # commits 0, 5, …, 35 and the last one
        assert all(r.build_status is Status.PASS for r in rows)
        assert sorted((v.sha, v.value) for v in values) == sorted(
            (r.sha, float(known.value_of(r.sha))) for r in rows for _ in range(2)
        )
        assert store.series(result.series_id).state == "finished"
