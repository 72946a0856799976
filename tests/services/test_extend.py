"""``perfwalk run --extend SERIES -n N``: more repetitions at the checkouts a walk has
measured, numbered after the stored ones, in the walk's order (rounds shuffled with a
seed of the extension's own), nothing stored measured again; the analysis then reads
them all: a small step the first repetitions could not see is found. A killed
extension is continued by ``--extend`` again or by ``--resume``, adding only what is
missing. Real git repositories (seeded noise: the same repetition of the same commit
gives the same value, whichever walk measures it), real ``perfwalk`` processes, SQLite.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from perfwalk.cli import exits
from perfwalk.orchestrate.walk.measuring_order import round_order
from perfwalk.store import Store
from tests.fixtures.commands import perfwalk
from tests.fixtures.noisy_repo import CONFIG, add_noisy_commits, noisy_history
from tests.services.walks import Row, kill_walk_once_stored, rows, stored_repetitions

COMMITS = 12
STEP_AT = 6  # the first commit 1.5 % slower (1.5 ms on 100 ms, noise sd 1 ms)


def _project(tmp_path: Path, *, run: str = "") -> tuple[Path, Path]:
    """A noisy history walked commit by commit at 2 repetitions: the config, its store."""
    repo = tmp_path / "repo"
    noisy_history(repo, commits=COMMITS, step_at=STEP_AT, size=1.5, salt=1)
    text = CONFIG.format(repo=repo).replace("repetitions = 3", "repetitions = 2")
    path = tmp_path / "perfwalk.toml"
    path.write_text(text.replace("[run]\n", f"[run]\n{run}"), encoding="utf-8")
    return path, tmp_path / "perfwalk.db"


def _changes(path: Path) -> dict[str, object]:
    found = perfwalk("changes", "-c", str(path), "--format", "json")
    assert found.returncode in (exits.OK, exits.FOUND, exits.UNDECIDED), found.stderr
    document: dict[str, object] = json.loads(found.stdout)
    return document


def _repetitions(db: Path, series_id: int) -> dict[int, list[tuple[int, int]]]:
    """Per checkout index, (repetition id, repetition number) in the order stored."""
    with Store.open(f"sqlite:///{db}") as store:
        return {
            checkout.idx: sorted((rep.id, rep.idx) for rep in store.repetitions(checkout.id))
            for checkout in store.checkouts(series_id)
        }


def test_a_walk_undecided_at_2_repetitions_extended_to_8_finds_the_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, db = _project(tmp_path)
    c = str(path)
    walked = perfwalk("run", "-c", c)
    assert walked.returncode == exits.OK, walked.stderr
    before = _changes(path)
    (floor,) = before["floors"]  # type: ignore[misc]
    assert before["changes"] == [], before["changes"]
    assert floor["undecided"].startswith("undecided: too noisy to see changes below "), floor
    stored = _repetitions(db, 1)
    first_rows = rows(db, 1)

    extended = perfwalk("run", "-c", c, "--extend", "1", "-n", "8")
    assert extended.returncode == exits.OK, extended.stdout + extended.stderr
    said = (
        f"from 2 to 8 repetitions per checkout; {6 * COMMITS} repetitions added; worst status PASS"
    )
    assert f"series 1 extended at {COMMITS} checkouts: {said}" in extended.stdout
    # every checkout has repetitions 0 to 7, each once; the first two as they were
    now = _repetitions(db, 1)
    assert sorted(now) == list(range(COMMITS))
    for index, reps in now.items():
        assert [number for _id, number in reps] == list(range(8)), index
        assert reps[:2] == stored[index]  # the same rows, not measured again
        assert min(i for i, n in reps[2:]) > max(i for i, n in stored[index])
    got = rows(db, 1)
    assert len(got) == len(set(got)) == 8 * COMMITS
    assert set(first_rows) <= set(got)
    with Store.open(f"sqlite:///{db}") as store:
        series = store.series(1)
        assert (series.repetitions, series.planned_repetitions, series.state) == (8, 8, "finished")
        (extension,) = series.extensions
        assert (extension.repetitions_before, extension.repetitions) == (2, 8)
        assert extension.added == 6 * COMMITS
        assert extension.seed is None  # checkout after checkout: nothing to shuffle

    # the analysis reads all eight: the step the first two could not see is found
    after = _changes(path)
    (change,) = after["changes"]  # type: ignore[misc]
    assert change["id"] == f"1:{STEP_AT}", change
    (metric,) = change["metrics"]
    assert metric["regression"] is True, metric
    with capsys.disabled():  # what it said, in the test's log
        print(f"\nbefore: {floor['undecided']}\nafter: {change['id']} {change['kind']}")

    # status, show and the setup page say that the series was extended, and how
    line = f"extended {extension.started_at:%Y-%m-%d %H:%M:%S}: from 2 to 8 repetitions"
    for command in ("status", "show"):
        shown = perfwalk(command, "-c", c, "1", env={**os.environ, "COLUMNS": "400"})
        assert shown.returncode == exits.OK, shown.stderr
        assert line in shown.stdout, shown.stdout
    site = tmp_path / "site"
    published = perfwalk("report", "-c", c, "--out", str(site))
    assert published.returncode == exits.OK, published.stderr
    setup = (site / "series-1" / "setup.html").read_text("utf-8")
    assert '<td class="name">extended</td>' in setup
    assert "from 2 to 8 repetitions per checkout; 72 repetitions added" in setup

    # nothing more to add at 8: refused, naming the series, nothing stored
    again = perfwalk("run", "-c", c, "--extend", "1", "-n", "8")
    assert again.returncode == exits.USER
    assert "series 1 has 8 repetitions per checkout already" in again.stderr
    assert "hint: give more than 8, e.g. -n 16" in again.stderr
    assert stored_repetitions(db) == 8 * COMMITS


def _order(db: Path, series_id: int, after: int) -> list[tuple[int, int]]:
    """(checkout index, repetition) of the repetitions stored after repetition id
    ``after``, in the order stored."""
    found = [
        (rep_id, index, number)
        for index, reps in _repetitions(db, series_id).items()
        for rep_id, number in reps
        if rep_id > after
    ]
    return [(index, number) for _id, index, number in sorted(found)]


@pytest.fixture(scope="module")
def extended_in_rounds(tmp_path_factory: pytest.TempPathFactory) -> list[Row]:
    """The rows of the history walked in rounds, then extended to 8 repetitions,
    uninterrupted: what each killed extension must end as (its tests run on one worker,
    tests/fixtures/workers.py, so that it is walked once)."""
    reference, reference_db = _project(
        tmp_path_factory.mktemp("reference"), run='order = "rounds"\n'
    )
    assert perfwalk("run", "-c", str(reference)).returncode == exits.OK
    done = perfwalk("run", "-c", str(reference), "--extend", "1", "-n", "8")
    assert done.returncode == exits.OK, done.stderr
    expected = rows(reference_db, 1)
    assert len(expected) == len(set(expected)) == 8 * COMMITS
    return expected


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_a_killed_extension_in_rounds_continued_adds_only_what_is_missing(
    tmp_path: Path, seed: int, extended_in_rounds: list[Row]
) -> None:
    expected = extended_in_rounds

    path, db = _project(tmp_path / "killed", run='order = "rounds"\n')
    assert perfwalk("run", "-c", str(path)).returncode == exits.OK
    walked = stored_repetitions(db)
    assert walked == 2 * COMMITS
    with Store.open(f"sqlite:///{db}") as store:
        series = store.series(1)
        assert series.measuring is not None
        walk_seed = series.measuring.seed
        last = max(rep.id for c in store.checkouts(1) for rep in store.repetitions(c.id))
    # killed twice at a seeded moment: continued by --extend, then by --resume
    rng = random.Random(seed)
    first = walked + rng.randint(1, 2 * COMMITS)
    kill_walk_once_stored(
        path, db, first, late=rng.uniform(0, 0.05), args=("--extend", "1", "-n", "8")
    )
    second = max(stored_repetitions(db), first) + rng.randint(1, 2 * COMMITS)
    kill_walk_once_stored(path, db, second, late=rng.uniform(0, 0.05), args=("--extend", "1"))
    partial = stored_repetitions(db)
    assert walked < partial < 8 * COMMITS, "the extension ended before the kill; slow it down"
    with Store.open(f"sqlite:///{db}") as store:
        series = store.series(1)
        assert series.state == "running"  # its walker is gone (kill -9)
        (extension,) = series.extensions
        assert extension.finished_at is None
        assert extension.added is None
        assert extension.last_repetition == last

    resumed = perfwalk("run", "-c", str(path), "--resume")
    assert resumed.returncode == exits.OK, resumed.stdout + resumed.stderr
    assert f"series 1 extended at {COMMITS} checkouts: from 2 to 8 repetitions" in resumed.stdout
    got = rows(db, 1)
    assert len(got) == len(set(got)), "duplicated rows"
    assert sorted(got) == sorted(expected)
    with Store.open(f"sqlite:///{db}") as store:
        series = store.series(1)
        (extension,) = series.extensions
    assert series.state == "finished"
    assert extension.added == 6 * COMMITS
    # in rounds, shuffled with a seed of its own (recorded), the same across the kills
    assert extension.order == "rounds"
    assert extension.seed not in (None, walk_seed)
    assert series.measuring is not None
    assert series.measuring.seed == walk_seed
    assert _order(db, 1, last) == [
        (index, 2 + number)
        for number in range(6)
        for index in round_order(list(range(COMMITS)), extension.seed, number)
    ]


def test_a_named_walk_extended_goes_on_with_its_new_count(tmp_path: Path) -> None:
    path, db = _project(tmp_path)
    text = path.read_text("utf-8") + '\n[[walk]]\nname = "nightly"\n'
    path.write_text(text, encoding="utf-8")
    c = str(path)
    first = perfwalk("run", "-c", c, "--walk", "nightly")
    assert first.returncode == exits.OK, first.stderr
    extended = perfwalk("run", "-c", c, "--extend", "1", "-n", "3")
    assert extended.returncode == exits.OK, extended.stderr
    assert f"series 1 extended at {COMMITS} checkouts: from 2 to 3 repetitions" in (extended.stdout)
    # two more commits land: the walk goes on in its series, 3 repetitions each
    add_noisy_commits(tmp_path / "repo", COMMITS, lambda _i: 101.5, count=2, slower_at=-1)
    again = perfwalk("run", "-c", c, "--walk", "nightly")
    assert again.returncode == exits.OK, again.stderr
    assert "walk nightly: series 1 continued with 2 new checkouts × 3 repetitions" in (again.stdout)
    now = _repetitions(db, 1)
    assert sorted(now) == list(range(COMMITS + 2))
    for index, reps in now.items():
        assert [number for _id, number in reps] == [0, 1, 2], index


def test_an_extension_measures_the_tests_its_series_measured(tmp_path: Path) -> None:
    path, db = _project(tmp_path)
    other = '\n[[test]]\nname = "other"\ncommand = "echo VALUE 1 ms other"\nparser = "value"\n'
    path.write_text(path.read_text("utf-8") + other, encoding="utf-8")
    c = str(path)
    walked = perfwalk("run", "-c", c, "--tests", "latency")
    assert walked.returncode == exits.OK, walked.stderr
    refused = perfwalk("run", "-c", c, "--extend", "1", "-n", "3", "--tests", "other")
    assert refused.returncode == exits.USER
    assert (
        "--extend 1 measures series 1 at its checkouts, as its walk did (an extension): --tests"
        in refused.stderr
    )
    extended = perfwalk("run", "-c", c, "--extend", "1", "-n", "3")
    assert extended.returncode == exits.OK, extended.stderr
    got = rows(db, 1)
    assert {row[3] for row in got} == {"latency"}  # not the test it did not walk
    assert sorted((row[0], row[2]) for row in got) == [
        (index, rep) for index in range(COMMITS) for rep in range(3)
    ]
