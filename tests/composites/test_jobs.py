"""Team mode on a real PostgreSQL server: walks submitted as jobs, taken by
``perfwalk worker`` processes by host pool; a worker killed with ``kill -9`` mid-walk
leaves its job to another worker, which continues the series without a duplicate
or a missing row."""

from __future__ import annotations

import itertools
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfwalk.composites.jobs import cancel_job, jobs, submit
from perfwalk.errors import UsageError
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.fixtures.team import (
    Worker,
    has_series,
    job_series,
    perfwalk,
    pg_url,
    rows,
    states,
    team_config,
    wait_for,
    workers,
)
from tests.store.conftest import pg_admin

__all__ = ["pg_admin", "pg_url", "workers"]

pytest.importorskip("procrastinate", reason="team mode needs procrastinate (pip install .)")

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(120)]


def test_two_workers_take_the_walks_of_their_pools(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str, workers: list[Worker]
) -> None:
    a = team_config(tmp_path / "a", known_values_repo_copy, pg_url, "pool-a")
    b = team_config(tmp_path / "b", known_values_repo_copy, pg_url, "pool-b")
    ids = {
        submit(a, "run", {"from_": "2024-01-01", "to": "2024-01-05"}): a,
        submit(a, "run", {"from_": "2024-01-05", "to": "2024-01-09"}): a,
        submit(b, "run", {"from_": "2024-01-01", "to": "2024-01-05", "step": "commit/8"}): b,
        submit(b, "run", {"from_": "2024-01-05", "to": "2024-01-10"}): b,
    }
    assert set(states(a).values()) == {"queued"}
    workers.append(Worker(a, "pool-a", tmp_path / "worker-a.log"))
    workers.append(Worker(b, "pool-b", tmp_path / "worker-b.log"))
    wait_for("the four jobs", lambda: set(states(a).values()) == {"done"})
    listed = {row.id: row for row in jobs(a)}
    for job_id, config in ids.items():
        row = listed[job_id]
        assert row.queue == ("pool-a" if config is a else "pool-b")
        assert row.hosts == (f"box-{row.queue}",)
        assert row.tries == 1  # taken once, by the worker of its pool
        series_id = job_series(pg_url, job_id)
        with Store.open(pg_url) as store:
            checkouts = store.checkouts(series_id)
            values = store.values(series_id)
            assert store.series(series_id).state == "finished"
        # each checkout measured once, with its known value
        assert sorted(v.sha for v in values) == sorted(c.sha for c in checkouts)
        assert all(v.value == known_values_repo_copy.value_of(v.sha) for v in values)
        worker = workers[0] if config is a else workers[1]
        worker.says(f"job {job_id}: series {series_id} finished")
    # one job at a time per pool: the two jobs of a pool did not overlap
    for pool in ("pool-a", "pool-b"):
        spans = sorted((r.started_at, r.ended_at) for r in listed.values() if r.queue == pool)
        assert spans[0][1] is not None
        assert spans[1][0] is not None
        assert spans[0][1] <= spans[1][0]


def test_a_killed_worker_s_walk_is_finished_by_another(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str, workers: list[Worker]
) -> None:
    slow = "sh bench.sh && sleep 0.3"
    config = team_config(
        tmp_path / "a", known_values_repo_copy, pg_url, "pool-a", repetitions=3, command=slow
    )
    reference = run_series(config, RunOptions(from_="2024-01-01", to="2024-01-08"))
    job_id = submit(config, "run", {"from_": "2024-01-01", "to": "2024-01-08"})
    first = Worker(config, "pool-a", tmp_path / "first.log")
    workers.append(first)
    wait_for(
        "the walk to start",
        lambda: (
            f"job {job_id}: continues" in first.said()
            or (has_series(pg_url, job_id) and len(rows(pg_url, job_series(pg_url, job_id))) >= 2)
        ),
    )
    first.process.send_signal(signal.SIGKILL)
    first.process.wait()
    series_id = job_series(pg_url, job_id)
    measured = len(rows(pg_url, series_id))
    second = Worker(config, "pool-a", tmp_path / "second.log")
    workers.append(second)
    wait_for("the job done elsewhere", lambda: states(config).get(job_id) == "done", timeout=90)
    assert f"job {job_id}: its worker is lost; queued again" in second.said()
    assert f"job {job_id}: continues series {series_id}" in second.said()
    assert 0 < measured < len(rows(pg_url, reference.series_id))
    assert rows(pg_url, series_id) == rows(pg_url, reference.series_id)
    with Store.open(pg_url) as store:
        assert store.series(series_id).state == "finished"


def test_a_running_job_cancelled_stops_at_a_repetition_and_keeps_what_it_measured(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str, workers: list[Worker]
) -> None:
    """``perfwalk jobs cancel`` of a running walk: the worker stops it at the next
    repetition boundary, the series is left interrupted with every repetition it
    finished, the job cancelled; ``run --resume`` then finishes it with the rows of an
    uninterrupted walk."""
    slow = "sh bench.sh && sleep 0.3"
    config = team_config(
        tmp_path / "a", known_values_repo_copy, pg_url, "pool-a", repetitions=3, command=slow
    )
    reference = run_series(config, RunOptions(from_="2024-01-01", to="2024-01-08"))
    job_id = submit(config, "run", {"from_": "2024-01-01", "to": "2024-01-08"})
    workers.append(Worker(config, "pool-a", tmp_path / "worker.log"))
    wait_for(
        "the walk to measure",
        lambda: has_series(pg_url, job_id) and len(rows(pg_url, job_series(pg_url, job_id))) >= 2,
    )
    cancelled = perfwalk("jobs", "cancel", str(job_id), "-c", str(config.path))
    assert cancelled.returncode == 0, cancelled.stderr
    assert f"job {job_id}: cancelling; it stops at its next repetition" in cancelled.stdout
    wait_for("the job cancelled", lambda: states(config).get(job_id) == "cancelled")
    series_id = job_series(pg_url, job_id)
    kept = rows(pg_url, series_id)
    whole = rows(pg_url, reference.series_id)
    assert 0 < len(kept) < len(whole)
    assert set(kept) <= set(whole)  # what it measured is kept, as measured
    with Store.open(pg_url) as store:
        assert store.series(series_id).state == "interrupted"
    resumed = perfwalk("run", "--resume", "-c", str(config.path))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert rows(pg_url, series_id) == whole


@pytest.mark.slow
def test_a_worker_stopped_by_sigterm_leaves_its_walk_to_another_whole(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str, workers: list[Worker]
) -> None:
    """SIGTERM to the worker running a walk (what `systemctl stop` sends): the running
    repetition finishes (its reset phase runs), even when it outlasts ``--stall`` (the
    stopping worker still beats: no other worker takes the job meanwhile); the worker
    takes no other job, puts the walk back in the queue and exits 0; the other worker
    continues the series: every repetition once, as an uninterrupted walk has them."""
    marks = tmp_path / "marks"
    marks.mkdir()
    hold = marks / "hold"
    slow = (
        f"echo $PERFWALK_CHECKOUT >> {marks}/started; sh bench.sh && sleep 0.4; "
        f"if [ -e {hold} ]; then echo held > {marks}/held; "
        f"while [ -e {hold} ]; do sleep 0.1; done; fi"
    )
    reset = f'\n[test.roles.dut]\nreset = ["echo reset >> {marks}/resets"]\n'
    config = team_config(
        tmp_path / "a",
        known_values_repo_copy,
        pg_url,
        "pool-a",
        repetitions=3,
        command=slow,
        extra=reset,
        roles='["dut"]',
    )
    reference = run_series(config, RunOptions(from_="2024-01-01", to="2024-01-08"))
    (marks / "started").unlink()
    (marks / "resets").unlink()
    job_id = submit(config, "run", {"from_": "2024-01-01", "to": "2024-01-08"})
    later = submit(config, "run", {"from_": "2024-01-08", "to": "2024-01-09"})
    one = Worker(config, "pool-a", tmp_path / "one.log")
    two = Worker(config, "pool-a", tmp_path / "two.log")
    workers.extend([one, two])
    wait_for(
        "the walk to measure",
        lambda: has_series(pg_url, job_id) and len(rows(pg_url, job_series(pg_url, job_id))) >= 2,
    )
    # the next repetition is held past --stall (3 s) after the SIGTERM
    hold.touch()
    wait_for("a held repetition", (marks / "held").exists)
    first, other = (one, two) if f"job {job_id}: run of" in one.said() else (two, one)
    first.process.send_signal(signal.SIGTERM)
    time.sleep(6)
    assert first.process.poll() is None  # it waits for its repetition
    assert f"job {job_id}" not in other.said()
    hold.unlink()
    assert first.process.wait(timeout=30) == 0
    said = first.said()
    assert f"job {job_id}: its worker stops: queued again" in said
    assert f"job {later}:" not in said  # a stopping worker takes no other job
    series_id = job_series(pg_url, job_id)
    wait_for("the job done by the other", lambda: states(config).get(job_id) == "done", 90)
    assert f"job {job_id}: continues series {series_id}" in other.said()
    assert "its worker is lost" not in other.said()
    assert rows(pg_url, series_id) == rows(pg_url, reference.series_id)
    with Store.open(pg_url) as store:
        assert store.series(series_id).state == "finished"
    # every repetition that started ran to its end and its reset: none was cut short
    assert len(lines(marks / "resets")) == len(lines(marks / "started"))
    assert len(lines(marks / "started")) == len(rows(pg_url, series_id))
    (row,) = [r for r in jobs(config) if r.id == job_id]
    assert row.tries == 2  # one each worker


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_a_cancelled_job_does_not_run(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str
) -> None:
    config = team_config(tmp_path / "a", known_values_repo_copy, pg_url, "pool-a")
    job_id = submit(config, "run", {})
    assert cancel_job(config, job_id).state == "cancelled"
    with pytest.raises(UsageError, match="cancelled already"):
        cancel_job(config, job_id)
    with pytest.raises(UsageError, match=r"params\.frm: a run job takes no parameter"):
        submit(config, "run", {"frm": "x"})


def test_a_sqlite_store_has_no_queue(tmp_path: Path, known_values_repo_copy: KnownHistory) -> None:
    config = team_config(tmp_path / "a", known_values_repo_copy, f"sqlite:///{tmp_path}/s.db", "p")
    with pytest.raises(UsageError, match="need a PostgreSQL store"):
        submit(config, "run", {})


def test_the_commands_submit_list_and_cancel(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str
) -> None:
    config = team_config(tmp_path / "a", known_values_repo_copy, pg_url, "pool-a")
    path = str(config.path)
    submitted = perfwalk("submit", "run", "-c", path, "--from", "2024-01-02", "-n", "2")
    assert submitted.returncode == 0, submitted.stderr
    job_id = int(submitted.stdout)
    listed = perfwalk("jobs", "-c", path)
    assert listed.returncode == 0, listed.stderr
    rows = [line.split()[:5] for line in listed.stdout.splitlines()[1:]]
    assert [str(job_id), "run", "queued", "pool-a", "box-pool-a"] in rows
    (row,) = jobs(config)
    assert row.options == {"from_": "2024-01-02", "repetitions": 2}
    cancelled = perfwalk("jobs", "cancel", str(job_id), "-c", path)
    assert cancelled.returncode == 0, cancelled.stderr
    assert f"job {job_id}: cancelled" in cancelled.stdout
    refused = perfwalk("submit", "try", "HEAD", "--patch", "x.diff", "-c", path)
    assert refused.returncode == 2
    assert "cannot carry patch files" in refused.stderr


def test_help_and_sqlite_commands_do_not_import_the_queue() -> None:
    probe = (
        "import sys, contextlib, io\n"
        "from perfwalk.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print('procrastinate' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "False", done.stderr


#: ``[watch] schedule`` with a sixth field, the seconds: a cycle every PERIOD seconds.
PERIOD = 4


def _scheduled(url: str) -> dict[int, list[str]]:
    """The scheduled watch jobs by the time of their period: their states."""
    import psycopg

    from perfwalk.orchestrate.session.queue import SCHEDULED_WATCH, conninfo, ensure_schema

    ensure_schema(url)
    with psycopg.connect(conninfo(url)) as conn:
        rows = conn.execute(
            "SELECT (args->>'timestamp')::bigint, status::text FROM procrastinate_jobs "
            "WHERE task_name = %s ORDER BY id",
            (SCHEDULED_WATCH,),
        ).fetchall()
    found: dict[int, list[str]] = {}
    for timestamp, status in rows:
        found.setdefault(int(timestamp), []).append(status)
    return found


def test_the_schedule_runs_one_watch_cycle_per_period_however_many_workers_are_up(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str, workers: list[Worker]
) -> None:
    """Two workers, both on every queue, each deferring ``[watch] schedule``'s cycles:
    one job per period, no period missed, each cycle run once (a cycle publishes the
    site), whichever worker took it."""
    schedule = (
        '\n[[walk]]\nname = "nightly"\nfrom = "2024-01-08"\n'
        f'\n[watch]\nschedule = "* * * * * */{PERIOD}"\nsite = "{tmp_path}/site"\n'
    )
    config = team_config(tmp_path / "a", known_values_repo_copy, pg_url, "pool-a", extra=schedule)
    workers.append(Worker(config, None, tmp_path / "one.log"))
    workers.append(Worker(config, "watch,pool-a", tmp_path / "two.log"))

    def cycles_done() -> int:
        return sum(states.count("succeeded") for states in _scheduled(pg_url).values())

    wait_for("four watch cycles", lambda: cycles_done() >= 4, timeout=90)
    for worker in workers:
        worker.stop()
    scheduled = _scheduled(pg_url)
    # exactly one job per period, the periods one after the other: none twice, none missed
    assert all(len(states) == 1 for states in scheduled.values()), scheduled
    times = sorted(scheduled)
    assert [b - a for a, b in itertools.pairwise(times)] == [PERIOD] * (len(times) - 1)
    assert len(times) >= 4
    # each ran once: done, or (the last ones) still queued when the workers stopped
    assert all(s[0] in ("succeeded", "todo", "doing") for s in scheduled.values()), scheduled
    said = workers[0].said() + workers[1].said()
    assert said.count("watch cycle: ") == cycles_done()
    assert (tmp_path / "site" / "index.html").is_file()
    with Store.open(pg_url) as store:  # the cycles continued one walk
        assert [s.walk for s in store.list_series()] == ["nightly"]
    listed = [row for row in jobs(config) if row.owner == "(schedule)"]
    assert {row.kind for row in listed} == {"watch"}
    assert {row.queue for row in listed} == {"watch"}


def test_the_jobs_listed_first_on_an_empty_database_leave_it_a_store(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str
) -> None:
    """`perfwalk jobs` may be the first team command to meet the database: the queue's
    tables come with the store's, never alone (the store would not know the database)."""
    config = team_config(tmp_path / "a", known_values_repo_copy, pg_url, "pool-a")
    assert jobs(config) == []
    with Store.open(pg_url) as store:
        assert store.list_series() == []
