"""``[run] order = "rounds"``: every checkout built once in a worktree of its own, then
one repetition of each per round in a seeded shuffled order; the same rows as a walk
checkout after checkout, interleaved; a ``kill -9`` and ``run --resume`` continue the
same order and give the same rows (real git repository, real processes, SQLite)."""

from __future__ import annotations

import random
from pathlib import Path

from perfwalk.model import Status
from perfwalk.orchestrate.walk.measuring_order import round_order
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.services.conftest import MakeConfig
from tests.services.walks import kill_walk_once_stored, lines, rows, stored_repetitions, walk

BROKEN = 3  # the checkout of the known-values walk whose build fails
CHECKOUTS = 11


def _stored_order(db: Path, series_id: int) -> list[tuple[int, int]]:
    """(checkout index, repetition) of every stored repetition, in the order stored."""
    with Store.open(f"sqlite:///{db}") as store:
        found = [
            (rep.id, rep.started_at, checkout.idx, rep.idx)
            for checkout in store.checkouts(series_id)
            for rep in store.repetitions(checkout.id)
        ]
    by_id = sorted(found)
    assert [f[1] for f in by_id] == sorted(f[1] for f in found)  # ids and times agree
    return [(idx, rep) for _id, _at, idx, rep in by_id]


def _seed(db: Path, series_id: int) -> int | None:
    with Store.open(f"sqlite:///{db}") as store:
        series = store.series(series_id)
    assert series.order == "rounds"
    assert series.measuring is not None
    return series.measuring.seed


def _expected_rounds(seed: int | None, repetitions: int) -> list[tuple[int, int]]:
    built = [index for index in range(CHECKOUTS) if index != BROKEN]
    return [
        (index, number)
        for number in range(repetitions)
        for index in round_order(list(range(CHECKOUTS)), seed, number)
        if index in built
    ]


def test_a_rounds_walk_stores_the_rows_of_a_checkout_walk_interleaved(
    make_config: MakeConfig, tmp_path: Path
) -> None:
    dirs = tmp_path / "dirs"
    command = f"sh bench.sh; echo $PERFWALK_CHECKOUT $(pwd) >> {dirs}"
    three = RunOptions(repetitions=3)
    by_checkout = run_series(make_config(command=command), three)
    config = make_config(command=command, run='order = "rounds"')
    in_rounds = run_series(config, three)
    assert in_rounds.worst is Status.NOEXIST  # the broken build, as in checkout order
    db = config.path.parent / "perfwalk.db"

    expected = rows(db, by_checkout.series_id)
    got = rows(db, in_rounds.series_id)
    assert len(expected) == 10 * 3
    assert sorted(got) == sorted(expected)

    # checkout order: all the repetitions of a checkout, then the next checkout's
    assert _stored_order(db, by_checkout.series_id) == [
        (index, rep) for index in range(CHECKOUTS) if index != BROKEN for rep in range(3)
    ]
    # rounds: repetition 1 of every checkout, then 2… each round in its seeded order
    order = _stored_order(db, in_rounds.series_id)
    assert order == _expected_rounds(_seed(db, in_rounds.series_id), 3)
    assert [rep for _index, rep in order] == sorted(rep for _index, rep in order)
    rounds = [[index for index, rep in order if rep == number] for number in range(3)]
    assert len({tuple(r) for r in rounds}) > 1, "every round in the same order"

    # each checkout measured in its own worktree, kept from its build to its last round
    ran = [line.split() for line in lines(dirs)[len(expected) :]]
    where = {index: {d for i, d in ran if int(i) == index} for index, _rep in order}
    assert all(len(found) == 1 for found in where.values()), where
    assert len({next(iter(found)) for found in where.values()}) == 10
    assert all(Path(next(iter(d))).name == f"checkout-{i}" for i, d in where.items())
    assert not any(Path(next(iter(d))).exists() for d in where.values())  # removed at the end


def test_a_rounds_walk_killed_and_resumed_gives_the_rows_of_an_uninterrupted_one(
    make_config: MakeConfig,
) -> None:
    config = make_config(command="sh bench.sh; sleep 0.05", run='order = "rounds"')
    db = config.path.parent / "perfwalk.db"
    reference = walk(config.path)
    _out, err = reference.communicate(timeout=120)
    assert reference.returncode == 1, err  # 1: the broken build
    expected = rows(db, 1)
    assert len(expected) == 10 * 2

    rng = random.Random(13)
    for victim_series in (2, 3):  # killed inside round 1, then inside round 2
        before = stored_repetitions(db)
        target = before + rng.randint(2, 8) + (10 if victim_series == 3 else 0)
        kill_walk_once_stored(config.path, db, target, late=rng.uniform(0.0, 0.05))
        partial = rows(db, victim_series)
        assert 0 < len(partial) < len(expected), "the kill missed the walk; slow it down"

        resumed = walk(config.path, "--resume")
        out, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 1, err
        assert f"series {victim_series} resumed and finished".encode() in out
        got = rows(db, victim_series)
        assert len(got) == len(set(got)), "duplicated rows"
        assert sorted(got) == sorted(expected)
        # the resumed walk went on with the rounds of the killed one, in the same order
        seed = _seed(db, victim_series)
        assert _stored_order(db, victim_series) == _expected_rounds(seed, 2)
