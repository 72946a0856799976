"""``perfwalk submit run`` takes what ``perfwalk run`` takes to choose its tests
(``--tests``) and to extend a stored series (``--extend SERIES -n N``, ``--variants``):
submitted from the command line, checked where submitted, carried in the job and run
by a real ``perfwalk worker`` process on a real PostgreSQL store."""

from __future__ import annotations

import signal
from collections import Counter
from pathlib import Path

import pytest

from perfwalk.composites.jobs import jobs
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.fixtures.team import (
    Worker,
    job_series,
    measured,
    perfwalk,
    pg_url,
    states,
    team_config,
    wait_for,
    workers,
)
from tests.services.test_variants import _command
from tests.store.conftest import pg_admin

__all__ = ["pg_admin", "pg_url", "workers"]

pytest.importorskip("procrastinate", reason="team mode needs procrastinate (pip install .)")

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(240)]

#: a second test in a group of its own (bench.sh's value plus what a state file
#: says), and a variant that adds 5 ms while it holds
EXTRA = """
[[test]]
name = "latency-b"
group = "net"
command = "{command}"
parser = "value"

[[walk]]
name = "nightly"
from = "2024-01-08"

[[variant]]
name = "loaded"
[[variant.modifier]]
apply = ["echo 5 > {state}"]
undo = ["rm {state}"]
"""


def _submitted(path: str, *argv: str) -> int:
    done = perfwalk("submit", "run", "-c", path, *argv)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_a_submitted_walk_of_some_tests_and_its_extension_run_on_a_worker(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str, workers: list[Worker]
) -> None:
    state = tmp_path / "modifier.state"
    command = _command(state)
    config = team_config(
        tmp_path / "a",
        known_values_repo_copy,
        pg_url,
        "pool-a",
        extra=EXTRA.format(state=state, command=command),
    )
    path = str(config.path)
    walk = _submitted(path, "--from", "2024-01-01", "--to", "2024-01-05", "--tests", "net")
    (row,) = jobs(config)
    assert row.options == {"from_": "2024-01-01", "to": "2024-01-05", "tests": ["net"]}
    workers.append(Worker(config, "pool-a", tmp_path / "worker.log"))
    wait_for("the walk", lambda: states(config).get(walk) == "done", timeout=120)
    series_id = job_series(pg_url, walk)
    with Store.open(pg_url) as store:
        walked = store.checkouts(series_id)
        tests = {v.test for v in store.values(series_id)}
    assert tests == {"latency-b"}  # the group's test alone
    assert len(walked) >= 2

    extend = _submitted(path, "--extend", str(series_id), "-n", "2", "--variants", "loaded")
    listed = {r.id: r.options for r in jobs(config)}
    assert listed[extend] == {"extend": series_id, "repetitions": 2, "variants": ["loaded"]}
    wait_for("the extension", lambda: states(config).get(extend) == "done", timeout=120)
    workers[0].says(f"job {extend}: series {series_id} extended at")
    with Store.open(pg_url) as store:
        assert job_series(pg_url, extend) == series_id  # extended, not a new series
        base = store.series(series_id)
        (variant,) = store.variant_series(series_id)
        per_checkout = Counter(v.sha for v in store.values(series_id))
        variant_values = store.values(variant.id)
        assert {v.test for v in store.values(series_id)} == {"latency-b"}
    assert (variant.variant, base.state, variant.state) == ("loaded", "finished", "finished")
    # each checkout: its first repetition and 2 more beside the variant's 2
    assert per_checkout == {c.sha: 3 for c in walked}
    assert Counter(v.sha for v in variant_values) == {c.sha: 2 for c in walked}
    assert all(v.value == known_values_repo_copy.value_of(v.sha) + 5 for v in variant_values), (
        "the variant's modifier held while it was measured"
    )
    assert not state.exists()  # and was undone


def test_a_walk_of_some_tests_whose_worker_was_killed_is_finished_by_another(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str, workers: list[Worker]
) -> None:
    """The second worker continues the series with the tests it started with (a resume
    with --tests given again would be refused)."""
    slow = "sh bench.sh && sleep 0.3"
    extra = EXTRA.format(state=tmp_path / "unused", command=slow)
    config = team_config(
        tmp_path / "a", known_values_repo_copy, pg_url, "pool-a", repetitions=3, extra=extra
    )
    job_id = _submitted(
        str(config.path), "--from", "2024-01-01", "--to", "2024-01-08", "--tests", "net"
    )
    first = Worker(config, "pool-a", tmp_path / "first.log")
    workers.append(first)
    wait_for("the walk to start", measured(pg_url, job_id, 2))
    first.process.send_signal(signal.SIGKILL)
    first.process.wait()
    series_id = job_series(pg_url, job_id)
    second = Worker(config, "pool-a", tmp_path / "second.log")
    workers.append(second)
    wait_for("the job done elsewhere", lambda: states(config).get(job_id) == "done", timeout=120)
    second.says(f"job {job_id}: continues series {series_id}")
    second.says(f"job {job_id}: series {series_id} resumed and finished")
    with Store.open(pg_url) as store:
        assert store.series(series_id).state == "finished"
        values = store.values(series_id)
        checkouts = store.checkouts(series_id)
    assert {v.test for v in values} == {"latency-b"}
    # every checkout measured 3 times, none twice
    assert Counter((v.sha, v.repetition_idx) for v in values) == {
        (c.sha, n): 1 for c in checkouts for n in range(3)
    }


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("--tests", "nosuch"), "params.tests: tests nosuch: no group, test or sweep"),
        (("--extend", "0"), "bad options for a run job: --extend 0"),
        (
            ("--extend", "3", "--from", "2024-01-01"),
            "--from cannot be given with it",
        ),
        (("--extend", "3", "--tests", "net"), "--tests cannot be given with it"),
        (("--variants", "nosuch"), "no variant 'nosuch'"),
        (("--resume", "--tests", "net"), "params.tests: cannot be given with resume"),
        (("--walk", "nightly", "--tests", "net"), "params.tests: cannot be given with walk"),
    ],
)
def test_a_run_job_asked_wrong_is_refused_where_it_is_submitted(
    tmp_path: Path,
    known_values_repo_copy: KnownHistory,
    pg_url: str,
    argv: tuple[str, ...],
    said: str,
) -> None:
    config = team_config(
        tmp_path / "a",
        known_values_repo_copy,
        pg_url,
        "pool-a",
        extra=EXTRA.format(state="x", command="sh bench.sh"),
    )
    done = perfwalk("submit", "run", "-c", str(config.path), *argv)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert jobs(config) == []  # nothing queued
