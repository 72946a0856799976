"""Retention on a store filled by a real walk of every third commit of the known-values
project (a build broken at commit 12, a step of +30 % at commit 20): ``perfwalk prune``
says what it would drop and changes nothing; with --apply it drops the outputs of the old
checkouts, keeps every value, summary and change, and the logs a change points at and
of the newest checkout; on SQLite and on PostgreSQL."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import signal
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, func, select

from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.orchestrate.findings.changes import find_all
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.prune import CHANGE, NEWEST, Rule, prune
from perfwalk.services.run import run_series
from perfwalk.store import Store, schema
from tests.fixtures.synthetic_repo import KnownHistory
from tests.services import walks
from tests.store.conftest import pg_admin, store_url

__all__ = ["pg_admin", "store_url"]  # fixtures: store_url runs a test on both back-ends

CONFIG = """\
[project]
repo = "{repo}"
{store}
[build]
steps = ["seq 1 500; sh build.sh"]
timeout = 30

[run]
step = "commit/3"
repetitions = 2

[analysis]
# the values are bench.sh's, known: the load of a machine shared with other tests
# must not make the change suspect
suspect_load = false

[[test]]
name = "latency"
command = "sh bench.sh; seq 1 3000"
parser = "value"
timeout = 30
{extra}"""


#: a profiler (``[test.profile] tool = "command"``) that writes the same stacks at each
#: checkout, then runs the test
PROFILER = """\
out=$1; shift
printf 'main;work;crc 90\\nmain;idle 10\\n' > "$out"
exec "$@"
"""


def profiled(tmp_path: Path) -> str:
    """The [test.profile] of a walk whose every checkout gets one profiled run."""
    script = tmp_path / "profiler.sh"
    script.write_text(PROFILER, encoding="utf-8")
    return f'\n[test.profile]\ntool = "command"\ncommand = "sh {script} {{profile}}"\n'


def _walked(tmp_path: Path, repo: Path, url: str = "", extra: str = "") -> Config:
    """A walk of ``repo``, stored at ``url`` (default: perfwalk.db beside it)."""
    path = tmp_path / "perfwalk.toml"
    store = f'[store]\nurl = "{url}"\n' if url else ""
    path.write_text(CONFIG.format(repo=repo, store=store, extra=extra), encoding="utf-8")
    config = load_config(path)
    run_series(config, RunOptions())
    return config


def _rows(url: str) -> dict[str, Any]:
    """Every table's row count, and a digest of every log's and profile's bytes."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            counts: dict[str, Any] = {
                name: conn.scalar(select(func.count()).select_from(table))
                for name, table in schema.metadata.tables.items()
            }
            digest = hashlib.sha256()
            for log_id, data in conn.execute(
                select(schema.log.c.id, schema.log.c.data).order_by(schema.log.c.id)
            ):
                digest.update(f"{log_id}:{len(data)}:".encode() + bytes(data))
            counts["log data"] = digest.hexdigest()
    finally:
        engine.dispose()
    return counts


def _changes(store: Store, config: Config) -> list[tuple[int, int, int]]:
    found = find_all(store, config)
    events = [*found.changes, *found.breaks]
    return sorted((e.series_id, e.before.idx, e.after.idx) for e in events)


def test_a_dry_run_says_what_it_would_drop_and_changes_nothing(
    tmp_path: Path, known_values_repo_copy: KnownHistory, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _walked(tmp_path, known_values_repo_copy.path)
    db = tmp_path / "perfwalk.db"
    before, file_before = _rows(config.store.url), hashlib.sha256(db.read_bytes()).hexdigest()
    assert main(["prune", "-c", str(config.path), "--max-size", "20k"]) == exits.OK
    out = capsys.readouterr().out
    print(out)
    assert "would prune the outputs of " in out
    assert "(beyond 20.0 KiB): " in out
    assert "  series 1 'project commit/3': checkouts " in out
    assert f"kept: 10 logs {CHANGE} (checkouts 1:3, 1:4, 1:6, 1:7)" in out
    assert f"kept: 3 logs {NEWEST} (checkout 1:13)" in out
    assert "a dry run: nothing was dropped (perfwalk prune --apply drops them)" in out
    assert _rows(config.store.url) == before
    assert hashlib.sha256(db.read_bytes()).hexdigest() == file_before

    assert main(["prune", "-c", str(config.path), "--older-than", "1"]) == exits.OK
    assert "nothing to prune (older than 1 day)" in capsys.readouterr().out
    # what a user can get wrong: exit 2, a message that says how to fix it
    for argv, said in (
        ([], "nothing says what to prune: "),
        (["--older-than", "1", "--series", "9"], "--series 9: the store "),
        (["--max-size", "lots"], "argument --max-size: expected a size such as 500M"),
        (["--older-than", "0"], "argument --older-than: expected 1 to 36500"),
    ):
        with contextlib.suppress(SystemExit):
            assert main(["prune", "-c", str(config.path), *argv]) == exits.USER
        assert said in capsys.readouterr().err
    assert _rows(config.store.url) == before


def test_an_apply_drops_old_outputs_and_keeps_every_value(
    tmp_path: Path, known_values_repo_copy: KnownHistory, store_url: str
) -> None:
    config = _walked(tmp_path, known_values_repo_copy.path, store_url, profiled(tmp_path))
    before = _rows(store_url)
    with Store.open(store_url) as store:
        values = store.values(1)
        packs = store.site.packs(1, 0, 13)
        changes = _changes(store, config)
    assert changes == [(1, 3, 4), (1, 6, 7)]  # the build broken at commit 12, the step at 20
    later = datetime.now(UTC) + timedelta(days=60)
    report = prune(config, Rule.of(config, older_than=30), apply=True, clock=lambda: later)
    kept = {c.idx for k in report.plan.kept for c in k.checkouts}
    assert kept == {3, 4, 6, 7, 13}
    assert [c.idx for c in report.plan.dropped] == [0, 1, 2, 5, 8, 9, 10, 11, 12]
    assert report.done.logs == report.plan.logs > 0
    assert report.done.profiles == report.plan.profiles == 9  # one per checkout dropped
    assert report.reclaimed is not None
    print(report.plan.logs, report.done, report.reclaimed)

    after = _rows(store_url)
    assert {k: after[k] for k in before if k not in ("log data", "prune")} == {
        k: v for k, v in before.items() if k not in ("log data", "prune")
    }  # every row: values, results, repetitions, logs (emptied), profiles
    assert after["prune"] == 1
    with Store.open(store_url) as store:
        assert store.values(1) == values
        assert store.site.packs(1, 0, 13) == packs
        assert _changes(store, config) == changes
        rows = store.checkouts(1)
        assert [r.idx for r in rows if r.pruned is not None] == [0, 1, 2, 5, 8, 9, 10, 11, 12]
        for row in rows:
            log = store.log(row.build_log_id or 0)
            if row.idx in kept:
                assert log.pruned is None
                assert log.data
            else:
                assert log.data == b""
                assert log.pruned is not None
                assert log.pruned.said("log") == (
                    f"log pruned on {later:%Y-%m-%d} (retention: older than 30 days)"
                )
        outputs = store.retention.outputs()
        (profile,) = store.profiles.at(rows[0].id)
        assert (profile.pruned, profile.stacks, profile.samples) == (rows[0].pruned, {}, 100)
        assert sorted(store.profiles.listed(1)) == [3, 6, 7, 13]  # the kept that were built
    assert [o.idx for o in outputs if o.logs] == sorted(kept)


def _whole(url: str) -> dict[int, tuple[bool, int, int]]:
    """Per checkout: whether it is marked pruned, its outputs pruned and not pruned."""
    engine = create_engine(url)
    t = schema.metadata.tables
    try:
        with engine.connect() as conn:
            outputs = select(
                t["checkout"].c.id,
                t["checkout"].c.prune_id,
                t["log"].c.prune_id.label("log_prune"),
            ).join(t["checkout"], t["checkout"].c.build_log_id == t["log"].c.id)
            runs = (
                select(t["checkout"].c.id, t["checkout"].c.prune_id, t["log"].c.prune_id)
                .join(t["repetition"], t["repetition"].c.checkout_id == t["checkout"].c.id)
                .join(t["result"], t["result"].c.repetition_id == t["repetition"].c.id)
                .join(t["log"], t["log"].c.id == t["result"].c.stdout_log_id)
            )
            found: dict[int, tuple[bool, int, int]] = {}
            for checkout_id, marked, log_prune in [*conn.execute(outputs), *conn.execute(runs)]:
                _, pruned, kept = found.get(checkout_id, (False, 0, 0))
                gone = log_prune is not None
                found[checkout_id] = (marked is not None, pruned + gone, kept + (not gone))
    finally:
        engine.dispose()
    return found


def _consistent(url: str) -> tuple[int, int]:
    """(checkouts pruned, checkouts kept); every checkout whole: all its outputs
    pruned and itself marked, or none of them."""
    found = _whole(url)
    for checkout_id, (marked, pruned, kept) in found.items():
        assert (marked, pruned, kept) in ((True, pruned, 0), (False, 0, kept)), checkout_id
    pruned_n = sum(1 for marked, _, _ in found.values() if marked)
    return pruned_n, len(found) - pruned_n


def test_a_prune_stopped_midway_leaves_every_checkout_whole(
    tmp_path: Path, known_values_repo_copy: KnownHistory, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _walked(tmp_path, known_values_repo_copy.path)
    run_series(config, RunOptions(name="again"))  # a second series: a second batch
    before = _rows(config.store.url)

    def interrupted(line: str) -> None:  # Ctrl-C as the first series is done
        raise KeyboardInterrupt(line)

    rule = Rule.of(config, max_size=1)
    with pytest.raises(KeyboardInterrupt, match="series 1: the outputs of 9 checkouts pruned"):
        prune(config, rule, apply=True, say=interrupted)
    assert _consistent(config.store.url) == (9, 28 - 9)
    after = _rows(config.store.url)
    assert {k: v for k, v in after.items() if k not in ("log data", "prune")} == {
        k: v for k, v in before.items() if k not in ("log data", "prune")
    }
    with Store.open(config.store.url) as store:
        (stopped,) = store.retention.prunes()
        assert (stopped.finished_at, stopped.dropped.checkouts) == (None, 9)

    assert main(["prune", "-c", str(config.path), "--max-size", "1", "--apply"]) == exits.OK
    out = capsys.readouterr().out
    assert "an earlier prune (beyond 1.00 B, " in out
    assert " was stopped after 9 checkouts: they stay pruned" in out
    assert "pruned the outputs of 9 checkouts (beyond 1.00 B): " in out  # series 2's
    assert _consistent(config.store.url) == (18, 10)
    assert main(["prune", "-c", str(config.path), "--max-size", "1"]) == exits.OK
    assert "earlier prune" not in capsys.readouterr().out  # one finished since

    # the commands that show outputs say what was pruned
    assert main(["log", "-c", str(config.path), "1:0"]) == exits.OK
    out = capsys.readouterr().out
    said = f"pruned on {datetime.now(UTC):%Y-%m-%d} (retention: beyond 1.00 B)"
    assert out.count(f"\nlog {said}\n") == 2  # each repetition's output
    assert "VALUE" not in out
    assert main(["log", "-c", str(config.path), "1:0", "--build"]) == exits.OK
    out = capsys.readouterr().out
    assert re.search(rf"\n== build · PASS \(\d+ bytes\)\nlog {re.escape(said)}\n$", out), out
    assert main(["show", "-c", str(config.path), "2"]) == exits.OK
    out = capsys.readouterr().out
    assert out.endswith(f"logs and profiles {said}: checkouts 0-2, 5, 8-12\n")


def test_a_prune_killed_any_time_leaves_every_checkout_whole(
    tmp_path: Path, known_values_repo_copy: KnownHistory
) -> None:
    config = _walked(tmp_path, known_values_repo_copy.path)
    for name in ("second", "third"):
        run_series(config, RunOptions(name=name))
    values = _rows(config.store.url)["value"]
    db = tmp_path / "perfwalk.db"
    args = ("prune", "-c", str(config.path), "--max-size", "1", "--apply")
    victim = walks.perfwalk(*args, capture=False)
    try:  # killed once its first transaction is in: a series pruned, the others not yet
        walks.wait_for(lambda: _started(db) or victim.poll() is not None, "the prune's start")
        os.kill(victim.pid, signal.SIGKILL)
    finally:
        victim.wait(timeout=60)
    pruned, kept = _consistent(config.store.url)
    print(f"killed after {pruned} checkouts pruned, {kept} kept")
    assert _rows(config.store.url)["value"] == values
    assert main(["prune", "-c", str(config.path), "--max-size", "1", "--apply"]) == exits.OK
    assert _consistent(config.store.url) == (27, 15)


def _started(db: Path) -> bool:
    """Whether a prune dropped the outputs of a checkout of the SQLite store ``db``."""
    with sqlite3.connect(db, timeout=5) as connection:
        query = "select count(*) from checkout where prune_id is not null"
        return int(connection.execute(query).fetchone()[0]) > 0


def test_a_drill_keeps_its_culprit_and_parent(
    tmp_path: Path, known_values_repo_copy: KnownHistory, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _walked(tmp_path, known_values_repo_copy.path)
    assert main(["drill", "1:7", "-c", str(config.path)]) == exits.OK  # the step at 20
    with Store.open(config.store.url) as store:
        (drill,) = store.drills.all()
        answer = drill.answer or {}
        shas = {c.sha: c.idx for c in store.checkouts(drill.series_id)}
    ends = sorted((shas[answer["lo"]], shas[answer["hi"]]))
    capsys.readouterr()
    assert main(["prune", "-c", str(config.path), "--max-size", "1"]) == exits.OK
    out = capsys.readouterr().out
    s = drill.series_id
    assert f"of a drill's culprit or parent (checkouts {s}:{ends[0]}, {s}:{ends[1]})" in out
    assert f"kept: 10 logs {CHANGE} (checkouts 1:3, 1:4, 1:6, 1:7)" in out
