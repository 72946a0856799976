"""Team mode under faults, with real ``perfwalk worker`` processes on real PostgreSQL:
secrets kept out of the worker's output and the queue's tables when jobs fail; a
PostgreSQL restart of a server of the test's own under a running walk; hosts held by
another run; a walk that stops beating; a variants job put back in the queue; a job
cancelled after its worker was killed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfwalk.composites.jobs import cancel_job, jobs, submit
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.fixtures.team import (
    Worker,
    has_series,
    job_series,
    measured,
    own_pg_server,
    perfwalk,
    pg_url,
    queue_rows,
    rows,
    states,
    team_config,
    wait_for,
    workers,
)
from tests.store.conftest import _pg_schema_url, pg_admin

__all__ = ["pg_admin", "pg_url", "workers"]

pytest.importorskip("procrastinate", reason="team mode needs procrastinate (pip install .)")

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(240)]

PASSWORD = "TeamPassw0rdXyz"
HOOK = "NotifyHookS3cret"
MATTERMOST = "3ccdd113474722377935511fc85d3dd4"
BUILD_TOKEN = "BuildEnvS3cretValue"


def _with_secrets(folder: Path, repo: KnownHistory, url: str) -> tuple[Config, list[str]]:
    """A configuration whose store URL has a password, whose [notify] URLs hold
    secrets and whose build has a secret environment value; and those secrets."""
    with_password = url.replace("://postgres@", f"://postgres:{PASSWORD}@", 1)
    assert with_password != url
    hook = f"json://hook:{HOOK}@127.0.0.1:9/ok"
    mattermost = f"mmost://127.0.0.1:9/{MATTERMOST}"
    config = team_config(
        folder,
        repo,
        with_password,
        "pool-a",
        extra=f'\n[notify]\nurls = ["{hook}", "{mattermost}"]\n',
    )
    path = Path(config.path)
    path.write_text(
        path.read_text().replace(
            'steps = ["sh build.sh"]',
            f'steps = ["sh build.sh"]\nenv = {{ UPLOAD_TOKEN = "{BUILD_TOKEN}" }}',
        )
    )
    return load_config(path), [PASSWORD, HOOK, MATTERMOST, BUILD_TOKEN, hook, mattermost]


def test_no_secret_in_the_worker_s_output_the_queue_or_an_error(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str, workers: list[Worker]
) -> None:
    """Jobs that fail (an unknown change, commits that do not exist): each is one line
    of the worker's output, without a traceback; no secret of the configuration is in
    that output, in any row of the queue's tables, or in the errors of the commands."""
    config, secrets = _with_secrets(tmp_path / "team", known_values_repo_copy, pg_url)
    path = str(config.path)
    failing = [
        submit(config, "drill", {"change": "99:99"}),
        submit(config, "drill", {"between": ["nosuchgood", "nosuchbad"]}),
        submit(config, "run", {"from_": "nosuchcommit"}),
        submit(config, "run", {"from_": "2024-01-09", "to": "nosuchtip"}),
        submit(config, "try", {"base": "nosuchbase"}),
    ]
    worker = Worker(config, "pool-a", tmp_path / "worker.log")
    workers.append(worker)
    wait_for(
        "the jobs to fail",
        lambda: all(states(config).get(job) == "failed" for job in failing),
        timeout=120,
    )
    outputs: list[str] = []
    codes: list[tuple[tuple[str, ...], int, int]] = []
    bad = Path(path).with_name("bad.toml")
    bad.write_text(Path(path).read_text().replace("/perfwalk_test?", "/nosuchdb?"))
    for argv, code in [
        (("jobs", "-c", path), 0),
        (("jobs", "cancel", "999999", "-c", path), 2),
        (("submit", "run", "--between", "touch x", "-c", path), 2),
        (("submit", "drill", "--change", "1:1\x1b[2J", "-c", path), 2),
        (("jobs", "-c", str(bad)), 2),
        (("submit", "watch", "-c", str(bad)), 2),
        (("status", "-c", str(bad)), 2),
    ]:
        done = perfwalk(*argv)
        outputs.append(done.stdout + done.stderr)
        codes.append((argv, code, done.returncode))
    worker.stop()
    said = worker.said()
    tables = queue_rows(config.store.url)
    assert {"procrastinate_jobs", "procrastinate_events"} <= set(tables)
    texts = [said, *outputs, *(row for found in tables.values() for row in found)]
    hits = sum(text.count(secret) for text in texts for secret in secrets)
    assert hits == 0, [s for s in secrets if any(s in t for t in texts)]
    assert [(argv, code) for argv, code, _ in codes] == [(argv, got) for argv, _, got in codes]
    assert "Traceback" not in said
    for job in failing:
        told = [line for line in said.splitlines() if line.startswith(f"job {job}: failed: ")]
        assert len(told) == 1, said
    assert "no change '99:99'" in said
    assert "postgresql+psycopg://postgres:***@" in said  # the store named, its password masked


def _known_rows(url: str, series_id: int, repo: KnownHistory, each: int, add: int = 0) -> None:
    """Every checkout of the series has ``each`` repetitions, each once, with the
    value its commit is known to have (plus ``add``)."""
    with Store.open(url) as store:
        checkouts = store.checkouts(series_id)
        values = store.values(series_id)
    assert checkouts
    for checkout in checkouts:
        mine = [v for v in values if v.sha == checkout.sha]
        if checkout.build_status is not None and checkout.build_status.name == "NOEXIST":
            assert mine == []
            continue
        assert sorted(v.repetition_idx for v in mine) == list(range(each)), checkout
        assert {v.value for v in mine} == {repo.value_of(checkout.sha) + add}, checkout


@pytest.mark.slow
def test_a_postgresql_restart_under_a_walk_puts_the_job_back_and_it_resumes(
    tmp_path: Path, known_values_repo_copy: KnownHistory, workers: list[Worker]
) -> None:
    """A restart of the store's PostgreSQL (a server of the test's own) while a worker
    walks, the server down until the job has stopped at the store error and waited for
    it a while: the job goes back in the queue once the server answers, and continues
    its series (each repetition stored once); its lease is given back (another job
    queued meanwhile runs, not refused by it); nothing is left running."""
    with own_pg_server() as server:
        config = team_config(
            tmp_path / "a",
            known_values_repo_copy,
            server.url,
            "pool-a",
            repetitions=3,
            command="sh bench.sh && sleep 0.7",
            lease_expiry=300,
        )
        url = config.store.url
        job_id = submit(config, "run", {"from_": "2024-01-01", "to": "2024-01-08"})
        worker = Worker(config, "pool-a", tmp_path / "worker.log")
        workers.append(worker)
        wait_for("the walk to measure", measured(url, job_id, 2))
        series_id = job_series(url, job_id)
        server.stop()
        # down until the job stopped at the store error, then a few of its polls more
        worker.says(f"job {job_id}: waits for the store to answer again", timeout=120)
        time.sleep(3)
        server.start()
        later = submit(config, "run", {"from_": "2024-01-08", "to": "2024-01-09"})
        wait_for(
            "both jobs done",
            lambda: {states(config).get(job_id), states(config).get(later)} <= {"done", "failed"},
            timeout=180,
        )
        said = worker.said()
        assert states(config)[job_id] == "done", said
        assert states(config)[later] == "done", said
        assert f"job {job_id}: stopped: result store postgresql+psycopg://postgres@" in said
        assert f"job {job_id}: queued again: it continues where it stopped" in said
        assert f"job {job_id}: continues series {series_id}" in said
        assert (
            f"job {job_id}: series {series_id} left running by its walk: marked interrupted" in said
        )
        assert "Traceback" not in said
        assert ": failed: " not in said
        (row,) = [r for r in jobs(config) if r.id == job_id]
        assert row.tries == 2
        _known_rows(url, series_id, known_values_repo_copy, 3)
        with Store.open(url) as store:
            assert store.series(series_id).state == "finished"
            assert store.leases.list() == []
        assert worker.process.poll() is None  # the worker lives on
        worker.stop()


def test_a_job_waits_for_hosts_another_run_holds(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str, workers: list[Worker]
) -> None:
    """A direct walk holds the hosts: a job waits for them instead of failing; one
    cancelled while it waits ends cancelled; the next runs once the walk is over."""
    hold = tmp_path / "hold"
    hold.touch()
    command = f"sh bench.sh; while [ -e {hold} ]; do sleep 0.1; done"
    config = team_config(tmp_path / "a", known_values_repo_copy, pg_url, "pool-a", command=command)
    with (tmp_path / "direct.log").open("wb") as out:
        direct = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "perfwalk",
                "run",
                "-c",
                str(config.path),
                "--from",
                "2024-01-09",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:

        def leased() -> bool:
            with Store.open(pg_url) as store:
                return bool(store.leases.list())

        wait_for("the direct walk's lease", leased)
        first = submit(config, "run", {"from_": "2024-01-09"})
        worker = Worker(config, "pool-a", tmp_path / "worker.log")
        workers.append(worker)
        waits = f"job {first}: waits for its hosts: host leased by another run: box-pool-a held by"
        wait_for("the job to wait", lambda: waits in worker.said())
        assert cancel_job(config, first).state == "cancelling"
        wait_for("the job cancelled", lambda: states(config).get(first) == "cancelled")
        second = submit(config, "run", {"from_": "2024-01-09"})
        wait_for("the next to wait", lambda: f"job {second}: waits for its hosts" in worker.said())
        hold.unlink()
        assert direct.wait(timeout=60) == 0
        wait_for("the next job done", lambda: states(config).get(second) == "done")
        assert ": failed: " not in worker.said()
    finally:
        if direct.poll() is None:
            direct.kill()
            direct.wait()


def test_status_tells_a_walk_that_stopped_beating_from_one_that_runs(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str
) -> None:
    """A walk whose process lives but no longer walks (stopped: SIGSTOP) stops renewing
    its leases: once they expire, `perfwalk status` shows it interrupted, without an
    ETA; going on again, it renews them and is shown running, then finished."""
    hold, first = tmp_path / "hold", tmp_path / "first"
    # every repetition after the first waits while the hold is there: one is stored,
    # then the walk waits (were the hold made after the first value is seen, a fast
    # walk could finish before)
    command = (
        f"sh bench.sh; if [ -e {first} ]; then while [ -e {hold} ]; do sleep 0.1; done; fi; "
        f"touch {first}"
    )
    hold.touch()
    config = team_config(
        tmp_path / "a", known_values_repo_copy, pg_url, "pool-a", repetitions=2, command=command
    )
    path = str(config.path)
    with (tmp_path / "direct.log").open("wb") as out:
        direct = subprocess.Popen(
            [sys.executable, "-m", "perfwalk", "run", "-c", path, "--from", "2024-01-09"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:

        def values() -> int:
            with Store.open(pg_url) as store:
                found = store.list_series()
                return len(store.values(found[0].id)) if found else 0

        wait_for("a repetition", lambda: values() >= 1)
        wait_for(
            "a repetition held", lambda: "running (pid" in perfwalk("status", "-c", path).stdout
        )
        running = perfwalk("status", "-c", path).stdout
        assert f"running (pid {direct.pid} on " in running
        os.kill(direct.pid, signal.SIGSTOP)

        def stopped() -> str:
            return perfwalk("status", "-c", path).stdout

        wait_for(
            "status to see the walk stopped",
            lambda: "stopped: no heartbeat on its hosts' leases since" in stopped(),
            timeout=60,
        )
        shown = stopped()
        assert re.search(rf"interrupted: its walk \(pid {direct.pid} on .*\) stopped: ", shown)
        assert "ETA" not in shown
        os.kill(direct.pid, signal.SIGCONT)
        wait_for("the walk running again", lambda: "running (pid" in stopped(), timeout=60)
        hold.unlink()
        assert direct.wait(timeout=60) == 0
        assert perfwalk("status", "-c", path).stdout.split("\n")[0].endswith(": finished")
    finally:
        if direct.poll() is None:
            os.kill(direct.pid, signal.SIGCONT)
            direct.kill()
            direct.wait()


def _variants_walk(
    folder: Path, repo: KnownHistory, url: str, workers: list[Worker]
) -> tuple[Config, int, Worker]:
    """A variants walk queued as a job and taken by a worker, measuring: its
    configuration (the test command reads a modifier's state file; [[variant]]
    "loaded" writes 7 there: its values are the known ones + 7), the job, the worker."""
    folder.mkdir()
    state = folder / "state"
    command = (
        "v=$(sh bench.sh | cut -d' ' -f2); "
        f"e=$(cat {state} 2>/dev/null || echo 0); "
        'echo \\"VALUE $((v + e)) ms latency\\"; sleep 0.4'
    )
    variant = (
        f'\n[[variant]]\nname = "loaded"\n[[variant.modifier]]\n'
        f'apply = ["echo 7 > {state}"]\nundo = ["rm -f {state}"]\n'
    )
    config = team_config(folder, repo, url, "pool-a", repetitions=2, command=command, extra=variant)
    job_id = submit(
        config, "run", {"from_": "2024-01-01", "to": "2024-01-06", "variants": ["loaded"]}
    )
    first = Worker(config, "pool-a", folder.parent / "first.log")
    workers.append(first)
    wait_for("the walk to measure", measured(url, job_id, 2))
    return config, job_id, first


@pytest.mark.parametrize("stop", ["sigterm", "kill"])
def test_a_variants_job_put_back_in_the_queue_finishes_with_its_variants(
    stop: str,
    tmp_path: Path,
    known_values_repo_copy: KnownHistory,
    pg_url: str,
    workers: list[Worker],
) -> None:
    """A variants walk whose worker stops (SIGTERM) or is killed (kill -9): another
    worker continues its series with the variant it started with, to the end."""
    folder = tmp_path / "a"
    config, job_id, first = _variants_walk(folder, known_values_repo_copy, pg_url, workers)
    series_id = job_series(pg_url, job_id)
    if stop == "sigterm":
        first.process.send_signal(signal.SIGTERM)
        assert first.process.wait(timeout=60) == 0
    else:
        first.process.send_signal(signal.SIGKILL)
        first.process.wait()
        (folder / "state").unlink(missing_ok=True)  # a killed walk's modifier: not this test's
    second = Worker(config, "pool-a", tmp_path / "second.log")
    workers.append(second)
    wait_for("the job done", lambda: states(config).get(job_id) in ("done", "failed"), timeout=120)
    said = second.said()
    assert states(config)[job_id] == "done", said
    assert f"job {job_id}: continues series {series_id}" in said
    with Store.open(pg_url) as store:
        (varied,) = store.variant_series(series_id)
        assert varied.variant_name == "loaded"
        assert store.series(series_id).state == "finished"
        assert store.series(varied.id).state == "finished"
    _known_rows(pg_url, series_id, known_values_repo_copy, 2)
    _known_rows(pg_url, varied.id, known_values_repo_copy, 2, add=7)


def test_a_job_cancelled_after_its_worker_was_killed_ends_cancelled(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str, workers: list[Worker]
) -> None:
    """kill -9 of the worker of a variants walk, then `perfwalk jobs cancel`: the other
    worker ends the job cancelled (not failed), its series and its variant's left
    interrupted (not running)."""
    config, job_id, first = _variants_walk(tmp_path / "a", known_values_repo_copy, pg_url, workers)
    first.process.send_signal(signal.SIGKILL)
    first.process.wait()
    cancelled = perfwalk("jobs", "cancel", str(job_id), "-c", str(config.path))
    assert f"job {job_id}: cancelling" in cancelled.stdout, cancelled.stderr
    second = Worker(config, "pool-a", tmp_path / "second.log")
    workers.append(second)
    wait_for("the job ended", lambda: states(config).get(job_id) != "cancelling", timeout=60)
    (row,) = [r for r in jobs(config) if r.id == job_id]
    assert (row.state, row.tries) == ("cancelled", 1)
    series_id = job_series(pg_url, job_id)
    second.says(f"job {job_id}: its worker is lost and it was cancelled: cancelled; series ")
    with Store.open(pg_url) as store:
        (varied,) = store.variant_series(series_id)
        assert store.series(series_id).state == "interrupted"
        assert store.series(varied.id).state == "interrupted"
    assert has_series(pg_url, job_id)
    assert rows(pg_url, series_id)


@pytest.fixture
def other_pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A second store in the same database: a schema of its own."""
    yield from _pg_schema_url(request)


def test_a_cancel_in_another_store_of_the_database_stops_only_its_own_job(
    tmp_path: Path,
    known_values_repo_copy: KnownHistory,
    pg_url: str,
    other_pg_url: str,
    workers: list[Worker],
) -> None:
    """Two stores in one database (two schemas), each with a job 1 on pool ``pool-a``
    run by a worker of its own: the queue tells a cancel to every worker of the
    database by the job's id alone, so cancelling store A's job 1 reached store B's
    job 1 too, which stopped "cancelled" though nobody cancelled it. A's job is
    cancelled; B's walks to its end."""
    slow = "sh bench.sh; sleep 0.3"
    a = team_config(tmp_path / "a", known_values_repo_copy, pg_url, "pool-a", command=slow)
    b = team_config(tmp_path / "b", known_values_repo_copy, other_pg_url, "pool-a", command=slow)
    walked = {"from_": "2024-01-01", "to": "2024-01-06"}
    first, second = submit(a, "run", walked), submit(b, "run", walked)
    assert first == second  # the same id, in two stores
    workers.append(Worker(a, "pool-a", tmp_path / "a.log"))
    workers.append(Worker(b, "pool-a", tmp_path / "b.log"))
    wait_for(
        "both walks measuring",
        lambda: measured(pg_url, first, 1)() and measured(other_pg_url, second, 1)(),
    )
    cancel_job(a, first)
    wait_for("job 1 of store A cancelled", lambda: states(a).get(first) == "cancelled")
    wait_for("job 1 of store B ended", lambda: states(b).get(second) not in ("queued", "running"))
    assert states(b)[second] == "done", workers[1].said()
    with Store.open(other_pg_url) as store:
        assert store.series(job_series(other_pg_url, second)).state == "finished"
