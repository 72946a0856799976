"""Walks of a real repository with real processes (LocalHost, SQLite store)."""

from __future__ import annotations

import resource
import subprocess
import time
from pathlib import Path

from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.services.conftest import MakeConfig


def _open(config_path: Path) -> Store:
    return Store.open(f"sqlite:///{config_path.parent / 'perfwalk.db'}")


def test_walk_measures_the_known_values(
    make_config: MakeConfig, known_values_repo_copy: KnownHistory
) -> None:
    known = known_values_repo_copy
    config = make_config()
    result = run_series(config, RunOptions())
    assert result.worst is Status.NOEXIST  # the broken build
    store = _open(config.path)
    rows = store.checkouts(result.series_id)
    assert len(rows) == 11  # 10 days + the last commit
    assert sum(r.commit_count for r in rows) == len(known.first_parent)
    by_commit: dict[str, list[float]] = {}
    for value in store.values(result.series_id):
        by_commit.setdefault(value.sha, []).append(value.value)
    for row in rows:
        if row.sha == known.broken_build:
            assert row.build_status is Status.NOEXIST
            assert b"exit 1" in store.log(row.build_log_id or 0).data
            assert row.sha not in by_commit
        else:
            assert row.build_status is Status.PASS
            assert by_commit[row.sha] == [known.value_of(row.sha)] * 2
    assert store.series(result.series_id).state == "finished"
    store.close()


def test_users_working_copy_is_never_touched(
    make_config: MakeConfig, known_values_repo_copy: KnownHistory
) -> None:
    dirty = known_values_repo_copy.path / "value.txt"
    dirty.write_text("uncommitted work\n")
    run_series(make_config(), RunOptions(step="commit/10"))
    assert dirty.read_text() == "uncommitted work\n"


def test_quirk_patch_fixes_the_broken_build_and_commands_run_when_crossed(
    make_config: MakeConfig, known_values_repo_copy: KnownHistory, tmp_path: Path
) -> None:
    known = known_values_repo_copy
    broken = known.broken_build
    after = known.first_parent[known.index(broken) + 1]
    diff = subprocess.run(
        ["git", "-C", str(known.path), "diff", broken, after, "--", "build.sh"],
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    (tmp_path / "fix.patch").write_text(diff)
    config = make_config(
        run="",
        extra=f"""
[[quirk]]
at = "{broken}"
until = "{after}"
comment = "build.sh fails at this commit"
patch = "fix.patch"

[[quirk]]
at = "2024-01-05"
comment = "tool rebuilt"
commands = ["echo rebuilding the tool"]
""",
    )
    result = run_series(config, RunOptions(step="commit"))
    store = _open(config.path)
    rows = {r.sha: r for r in store.checkouts(result.series_id)}
    fixed = rows[broken]
    assert fixed.build_status is Status.PASS
    assert fixed.quirks == ("A",)
    crossed = [r for r in rows.values() if "B" in r.quirks]
    assert len(crossed) == 1
    (run,) = [q for q in crossed[0].quirk_runs if q.letter == "B"]
    assert b"rebuilding the tool" in store.log(run.log_id).data
    assert [q.letter for q in store.series(result.series_id).quirks] == ["A", "B"]
    store.close()


def test_hanging_test_is_noterm_within_its_timeout(make_config: MakeConfig) -> None:
    config = make_config(command="echo started; sleep 60", timeout=1)
    started = time.monotonic()
    result = run_series(config, RunOptions(from_="2024-01-10", repetitions=1))
    elapsed = time.monotonic() - started
    assert elapsed < 10
    store = _open(config.path)
    (summary,) = store.results(result.series_id)[:1]
    assert summary.status is Status.NOTERM
    rep = store.repetitions(summary.checkout_id)[0]
    assert store.log(rep.results[0].stdout_log_id).data == b"started\n"
    store.close()


def test_huge_and_binary_output_is_bounded(make_config: MakeConfig) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    config = make_config(command="head -c 100000000 /dev/urandom", timeout=60)
    result = run_series(config, RunOptions(from_="2024-01-10", repetitions=1))
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    store = _open(config.path)
    summary = store.results(result.series_id)[0]
    assert summary.status is Status.FAIL  # garbage holds no VALUE line
    assert result.worst is Status.FAIL
    log = store.log(store.repetitions(summary.checkout_id)[0].results[0].stdout_log_id)
    assert log.truncated
    assert log.total == 100_000_000
    assert len(log.data) <= 2 * config.store.log_limit + 100
    assert grown_kib < 60_000
    store.close()


def test_between_command_runs_between_repetitions_only(
    make_config: MakeConfig, tmp_path: Path
) -> None:
    marks = tmp_path / "between.log"
    config = make_config()
    result = run_series(
        config,
        RunOptions(from_="2024-01-10", repetitions=3, between=f"echo x >> {marks}"),
    )
    assert result.checkouts in {1, 2}
    assert marks.read_text().count("x") == 2 * result.checkouts
