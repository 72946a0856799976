"""A parser that would run for ever: the test is FAIL at its parse_timeout, the walk goes on."""

from __future__ import annotations

import time
from pathlib import Path

from perfwalk.config import load_config
from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory


def test_a_catastrophic_regex_is_stopped_at_its_limit_and_the_walk_goes_on(
    tmp_path: Path, known_values_repo_copy: KnownHistory
) -> None:
    known = known_values_repo_copy
    path = tmp_path / "perfwalk.toml"
    path.write_text(
        f"""\
[project]
repo = "{known.path}"

[build]
steps = []

[run]
step = "1day"
repetitions = 2

[[test]]
name = "spin"
command = "printf '{"a" * 40}!\\\\n'"
parser = "regex"
parse_timeout = 0.5
parser_options = {{ pattern = '(?P<value>(a+)+)$', unit = "ms" }}

[[test]]
name = "latency"
command = "sh bench.sh"
parser = "value"
""",
        encoding="utf-8",
    )
    config = load_config(path)
    started = time.monotonic()
    result = run_series(config, RunOptions(from_="2024-01-09"))
    elapsed = time.monotonic() - started
    assert elapsed < 120  # each parse is stopped after 0.5 s, not after hours of backtracking
    store = Store.open(config.store.url)
    try:
        checkouts = store.checkouts(result.series_id)
        assert len(checkouts) >= 2
        for checkout in checkouts:
            repetitions = store.repetitions(checkout.id)
            assert len(repetitions) == 2
            for rep in repetitions:
                spin, latency = rep.results
                assert spin.status is Status.FAIL
                assert (
                    "parser 'regex' of test spin: no answer after 0.5 s"
                    " (test.spin.parse_timeout); the parse was stopped"
                ) in spin.message
                assert latency.status is Status.PASS
        values = store.values(result.series_id)
        assert {v.test for v in values} == {"latency"}
        assert {v.value for v in values} == {float(known.value_of(c.sha)) for c in checkouts}
        assert store.series(result.series_id).state == "finished"
    finally:
        store.close()
