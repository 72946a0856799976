"""What ``perfwalk run --extend`` refuses, before anything is stored or built, each error
naming the series and saying what to do: a series being walked, one whose walk did not
end, a drill's, a try's, a push series, a variant's, another project's, one whose
checkouts' commits are gone from the repository, one measured with other tests; a
count not above the series', no count at all, options that an extension takes from the
series, an unfinished extension asked anew with another count. Real git repositories,
real ``perfwalk`` processes, SQLite."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest

from perfwalk.cli import exits
from perfwalk.store import Store
from perfwalk.store.extensions import NewExtension
from tests.fixtures.commands import perfwalk
from tests.fixtures.noisy_repo import CONFIG, noisy_history
from tests.services.walks import stored_repetitions, wait_for, walk
from tests.store.factories import T0, new_series

COMMITS = 6


def _walked(tmp_path: Path) -> tuple[Path, Path]:
    """A noisy history walked at 2 repetitions: its config and its store."""
    noisy_history(tmp_path / "repo", commits=COMMITS, step_at=3, size=5, salt=2)
    text = CONFIG.format(repo=tmp_path / "repo").replace("repetitions = 3", "repetitions = 2")
    path = tmp_path / "perfwalk.toml"
    path.write_text(text, encoding="utf-8")
    done = perfwalk("run", "-c", str(path))
    assert done.returncode == exits.OK, done.stderr
    return path, tmp_path / "perfwalk.db"


def _counts(db: Path) -> tuple[int, int, int]:
    """How many series, extensions and repetitions the store holds."""
    with sqlite3.connect(db) as connection:
        return tuple(  # type: ignore[return-value]
            int(connection.execute(f"select count(*) from {table}").fetchone()[0])
            for table in ("series", "extension", "repetition")
        )


def _refused(path: Path, db: Path, *argv: str, walking: bool = False) -> str:
    """``perfwalk run -c PATH ARGV``: refused (exit 2, no traceback), nothing stored
    (but the repetitions of a walk ``walking`` meanwhile); its error and hint."""
    before = _counts(db)
    done = perfwalk("run", "-c", str(path), *argv)
    assert done.returncode == exits.USER, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("perfwalk: error: "), done.stderr
    assert "\nhint: " in done.stderr, done.stderr
    assert _counts(db)[: 2 if walking else 3] == before[: 2 if walking else 3]
    return done.stderr


@pytest.mark.parametrize(
    ("argv", "said", "hint"),
    [
        (("-n", "2"), "--extend 1 -n 2: series 1 has 2 repetitions per checkout already", "-n 4"),
        ((), "--extend 1: give -n N, the repetitions every checkout gets (it has 2)", "-n 4"),
        (("-n", "4", "--from", "2025-03-01"), "--from cannot be given with it", "only -n"),
        (("-n", "4", "--between", "true"), "--between cannot be given with it", "only -n"),
        (("--variants", "fast"), "--variants: no variant 'fast' in", "[[variant]]"),
    ],
)
def test_an_extension_asked_wrong_is_refused(
    tmp_path: Path, argv: tuple[str, ...], said: str, hint: str
) -> None:
    path, db = _walked(tmp_path)
    error = _refused(path, db, "--extend", "1", *argv)
    assert said in error
    assert hint in error.split("\nhint: ")[1]


@pytest.mark.parametrize(
    ("kind", "said", "hint"),
    [
        ("drill", "series 2 is a drill's series: it cannot be extended", "extend the walk"),
        ("try", "series 2 is a try's series: it cannot be extended", "max_repetitions"),
        ("push", "series 2 is a push series (its values came from `perfwalk push`)", "push more"),
        ("regress", "series 2 is a regress series (the runs of a functional suite", "regress`"),
        ("variant", "series 2 is the variant v of series 1: it is extended with its walk", ""),
    ],
)
def test_a_series_a_walk_did_not_measure_is_not_extended(
    tmp_path: Path, kind: str, said: str, hint: str
) -> None:
    path, db = _walked(tmp_path)
    with Store.open(f"sqlite:///{db}") as store:
        project = store.series(1).project
        made = store.create_series(
            new_series(
                kind=kind,
                project=project,
                parent_id=1 if kind == "variant" else None,
                variant="v" if kind == "variant" else None,
            )
        )
        store.set_series_state(made, "finished", T0)
    error = _refused(path, db, "--extend", str(made), "-n", "4")
    assert said in error
    assert hint in error.split("\nhint: ")[1]
    if kind == "variant":
        assert "hint: extend series 1: `perfwalk run --extend 1 -n N`" in error


def test_another_projects_series_and_an_unknown_one_are_refused(tmp_path: Path) -> None:
    path, db = _walked(tmp_path)
    with Store.open(f"sqlite:///{db}") as store:
        other = store.create_series(new_series(project="elsewhere"))
        store.set_series_state(other, "finished", T0)
    error = _refused(path, db, "--extend", str(other), "-n", "4")
    assert f"series {other} is a walk of project 'elsewhere', not of" in error
    assert "no series with id 99" in _refused(path, db, "--extend", "99", "-n", "4")


def test_a_series_being_walked_and_one_whose_walk_did_not_end_are_refused(
    tmp_path: Path,
) -> None:
    path, db = _walked(tmp_path)
    text = path.read_text("utf-8")  # a second walk slow enough to be caught walking
    path.write_text(text.replace('"sh bench.sh"', '"sh bench.sh; sleep 1"'), encoding="utf-8")
    running = walk(path, "--from", "2025-03-01T02:00", capture=False)
    try:
        wait_for(lambda: stored_repetitions(db) > 2 * COMMITS, "the second walk to measure")
        error = _refused(path, db, "--extend", "2", "-n", "4", walking=True)
        assert f"series 2 is being walked by pid {running.pid} on " in error
        assert "hint: wait until its walk ends, then extend it" in error
    finally:
        running.send_signal(signal.SIGTERM)  # stopped as Ctrl-C stops it
        running.wait(timeout=60)
    assert running.returncode == exits.TERMINATED
    error = _refused(path, db, "--extend", "2", "-n", "4")
    assert "series 2 is interrupted: its walk did not end" in error
    assert "hint: finish it first with `perfwalk run --resume`, then extend it" in error


def test_a_series_whose_commits_are_gone_is_refused(tmp_path: Path) -> None:
    path, db = _walked(tmp_path)
    repo = tmp_path / "repo"
    with Store.open(f"sqlite:///{db}") as store:
        rows = store.checkouts(1)
    for argv in (
        ["reset", "-q", "--hard", "HEAD~2"],  # the last two commits rewritten away
        ["reflog", "expire", "--expire=now", "--all"],
        ["gc", "-q", "--prune=now"],
    ):
        subprocess.run(["git", "-C", str(repo), *argv], check=True)
    error = _refused(path, db, "--extend", "1", "-n", "4")
    gone = rows[-2]  # the first of them
    assert (
        f"series 1: the commit of its checkout {gone.idx}, {gone.sha[:12]}, is gone from "
        f"repository {repo}" in error
    )
    assert "hint: fetch the commits the series measured back" in error


def test_a_series_measured_with_other_tests_is_refused(tmp_path: Path) -> None:
    path, db = _walked(tmp_path)
    text = path.read_text("utf-8")
    path.write_text(text.replace('"sh bench.sh"', '"sh bench.sh; true"'), encoding="utf-8")
    error = _refused(path, db, "--extend", "1", "-n", "4")
    assert f"series 1 was measured with other tests than {path} has now (test latency)" in error
    assert "its setup page shows it" in error


def test_an_unfinished_extension_is_continued_as_it_began(tmp_path: Path) -> None:
    path, db = _walked(tmp_path)
    with Store.open(f"sqlite:///{db}") as store:
        last = store.extensions.last_repetition()
        new = NewExtension(
            series_id=1,
            started_at=T0,
            repetitions_before=2,
            repetitions=4,
            variants=(),
            variant_repetitions=None,
            order="checkout",
            seed=None,
            last_repetition=last,
            config_hash=store.series(1).config_hash,
        )
        store.extensions.start(new, {1: 4})  # as a killed extension left it
    error = _refused(path, db, "--extend", "1", "-n", "6")
    assert (
        "series 1 has an extension that did not finish, started 2024-03-01 12:00:00 UTC: "
        "from 2 to 4 repetitions per checkout; not finished" in error
    )
    assert "hint: continue it first with `perfwalk run --extend 1` (no -n" in error
    done = perfwalk("run", "-c", str(path), "--extend", "1", "-n", "4")  # the same: goes on
    assert done.returncode == exits.OK, done.stderr
    assert "from 2 to 4 repetitions per checkout; 12 repetitions added" in done.stdout
    assert os.path.exists(db)
