"""A variant's runtime modifier is never left in place without a word: a walk records
it in the store before applying it and clears it once undone; a walk killed with
``kill -9`` while it holds leaves the record, and the next walk on the host undoes it
before it measures, and says so (or refuses to start when the undo fails). Real
perfwalk processes, a real git repository, SQLite."""

from __future__ import annotations

import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.services.conftest import MakeConfig
from tests.services.walks import finished, lines, perfwalk, wait_for
from tests.store.conftest import _pg_schema_url, pg_admin

__all__ = ["pg_admin"]

#: the plain walks and the variant's: two checkouts before the broken build
TO = "2024-01-02"


def _modified(marks: Path, undo: str = "") -> str:
    """Variant v1: a modifier that writes ``applied`` (the state a sysctl would leave)."""
    applied = marks / "applied"
    return f"""
[[variant]]
name = "v1"
[[variant.modifier]]
apply = ["echo modified > {applied}"]
undo = [{undo or f'"rm -f {applied}"'}]
"""


def _command(marks: Path) -> str:
    """The test: slow while the modifier holds and ``slow`` exists (the variant's walk,
    to be killed there); without ``slow``, a test that finds the modifier in place
    notes it and fails (what a plain walk must never measure with)."""
    applied, slow, events = marks / "applied", marks / "slow", marks / "events"
    return (
        f"if [ -e {applied} ]; then if [ -e {slow} ]; then echo waiting >> {events}; "
        f"sleep 60; else echo measured-modified >> {events}; exit 9; fi; fi; sh bench.sh"
    )


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    yield from _pg_schema_url(request)


@pytest.fixture
def marks(tmp_path: Path) -> Path:
    found = tmp_path / "marks"
    found.mkdir()
    (found / "slow").touch()
    return found


def _applied(url: str) -> list[tuple[str, int, tuple[str, ...]]]:
    with Store.open(url) as store:
        return [(m.variant, m.modifier, m.undo) for m in store.modifiers.on()]


@pytest.mark.slow
def test_a_modifier_a_killed_walk_left_is_undone_before_the_next_walk_measures(
    make_config: MakeConfig, marks: Path
) -> None:
    config = make_config(command=_command(marks), extra=_modified(marks))
    cfg = str(config.path)
    walk = perfwalk("run", "-c", cfg, "--to", TO, "--variants", "v1", capture=False)
    wait_for(lambda: "waiting" in lines(marks / "events"), "the variant's test, modified")
    assert (marks / "applied").exists()
    walk.kill()
    assert walk.wait(timeout=30) == -signal.SIGKILL
    assert (marks / "applied").exists(), "kill -9: nothing undid it"

    (marks / "slow").unlink()
    code, out, err = finished("run", "-c", cfg, "--to", TO)
    assert lines(marks / "events") == ["waiting"], "the plain walk measured with the modifier"
    assert code == 0, out + err
    assert not (marks / "applied").exists()
    (said,) = [line for line in out.splitlines() if line.startswith("undid ")]
    assert said.startswith("undid the modifier 0 of variant 'v1' on host local")
    assert f"(pid {walk.pid} on " in said
    assert said.endswith(f"left in place by a walk that is gone: rm -f {marks / 'applied'}")
    assert _applied(config.store.url) == []
    # once undone, never again
    code, out, err = finished("run", "-c", cfg, "--to", TO)
    assert code == 0, out + err
    assert "undid" not in out


@pytest.mark.slow
def test_a_walk_stopped_by_sigterm_undoes_its_modifier_and_leaves_no_record(
    make_config: MakeConfig, marks: Path
) -> None:
    config = make_config(command=_command(marks), extra=_modified(marks))
    cfg = str(config.path)
    walk = perfwalk("run", "-c", cfg, "--to", TO, "--variants", "v1")
    wait_for(lambda: "waiting" in lines(marks / "events"), "the variant's test, modified")
    # recorded before it was applied, with its undo as it runs
    assert _applied(config.store.url) == [("v1", 0, (f"rm -f {marks / 'applied'}",))]
    walk.send_signal(signal.SIGTERM)
    _out, err = walk.communicate(timeout=60)
    assert walk.returncode == 128 + signal.SIGTERM, err
    assert not (marks / "applied").exists(), "SIGTERM: the reset phase did not undo it"
    assert _applied(config.store.url) == []


@pytest.mark.slow
def test_a_modifier_whose_undo_fails_stops_the_next_walk_until_it_is_forgotten(
    make_config: MakeConfig, marks: Path
) -> None:
    # its undo fails while `stuck` exists (a sysctl that cannot be set back)
    stuck = marks / "stuck"
    undo = f'"test ! -e {stuck} && rm -f {marks / "applied"}"'
    config = make_config(command=_command(marks), extra=_modified(marks, undo))
    cfg = str(config.path)
    walk = perfwalk("run", "-c", cfg, "--to", TO, "--variants", "v1", capture=False)
    wait_for(lambda: "waiting" in lines(marks / "events"), "the variant's test, modified")
    walk.kill()
    walk.wait(timeout=30)
    (marks / "slow").unlink()
    stuck.touch()

    code, out, err = finished("run", "-c", cfg, "--to", TO)
    assert code == 2, out + err
    assert "1 runtime modifier left in place by an earlier walk could not be undone" in err
    assert "the modifier 0 of variant 'v1' on host local" in err
    assert f"(record 1): `test ! -e {stuck} && rm -f {marks / 'applied'}`: exit 1" in err
    assert "hint: undo it by hand on its host, then forget its record: " in err
    assert "`perfwalk hosts --forget-modifier 1`" in err
    assert lines(marks / "events") == ["waiting"], "it measured with the modifier in place"
    with Store.open(config.store.url) as store:
        assert len(store.list_series()) == 2  # the variant walk's two; nothing new

    code, out, err = finished("hosts", "-c", cfg)
    assert code == 0, err
    assert "modifiers left in place:" in out
    (row,) = [line.split() for line in out.splitlines() if line.strip().startswith("1 ")]
    assert row[:5] == ["1", f"local:{socket.gethostname()}", "(local)", "v1", "[0]"], out

    (marks / "applied").unlink()  # by hand
    code, out, err = finished("hosts", "-c", cfg, "--forget-modifier", "1")
    assert code == 0, err
    assert "forgot the record 1: the modifier 0 of variant 'v1' on host local" in out
    code, out, err = finished("hosts", "-c", cfg, "--forget-modifier", "1")
    assert code == 2
    assert "no record 1 of a modifier left in place" in err
    stuck.unlink()
    code, out, err = finished("run", "-c", cfg, "--to", TO)
    assert code == 0, out + err
    assert "undid" not in out


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.timeout(180)
def test_a_modifier_a_killed_worker_left_is_undone_by_the_next_job_on_its_host(
    tmp_path: Path, marks: Path, known_values_repo_copy: KnownHistory, pg_url: str
) -> None:
    """The same, in team mode: a worker killed while its variant walk holds the
    modifier; the next job on that host (another worker) undoes it before measuring."""
    pytest.importorskip("procrastinate", reason="team mode needs procrastinate")
    from perfwalk.composites.jobs import cancel_job, jobs, submit
    from tests.fixtures.team import Worker, team_config

    config = team_config(
        tmp_path / "team",
        known_values_repo_copy,
        pg_url,
        "pool-a",
        command=_command(marks),
        extra=_modified(marks),
    )
    walked = {"from_": "2024-01-01", "to": "2024-01-08"}
    first = submit(config, "run", {**walked, "variants": ["v1"]})
    one = Worker(config, "pool-a", tmp_path / "one.log")
    try:
        wait_for(lambda: "waiting" in lines(marks / "events"), "the variant's test, modified")
        one.process.kill()
        one.process.wait(timeout=30)
    finally:
        one.stop()
    assert (marks / "applied").exists(), "kill -9: nothing undid it"
    cancel_job(config, first)  # not to be taken again: a plain walk comes next
    (marks / "slow").unlink()
    second = submit(config, "run", walked)
    two = Worker(config, "pool-a", tmp_path / "two.log")
    try:
        wait_for(
            lambda: {r.id: r.state for r in jobs(config)}.get(second) in ("done", "failed"),
            "the plain job",
            timeout=120,
        )
    finally:
        two.stop()
    said = two.said()
    assert f"job {second}: series" in said, said
    assert {r.id: r.state for r in jobs(config)}[second] == "done", said
    assert lines(marks / "events") == ["waiting"], "the plain job measured with the modifier"
    assert not (marks / "applied").exists()
    assert "undid the modifier 0 of variant 'v1' on host bench-pool-a" in said, said
    assert f"rm -f {marks / 'applied'}" in said
