"""kill -9 of a walk at a random moment, then `perfwalk run --resume`: the stored
(checkout, repetition, test) rows equal those of an uninterrupted walk."""

from __future__ import annotations

import random

import pytest

from tests.services.conftest import MakeConfig
from tests.services.walks import kill_walk_once_stored, rows, stored_repetitions, walk


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kill_9_then_resume_equals_an_uninterrupted_walk(
    make_config: MakeConfig, seed: int
) -> None:
    config = make_config(command="sh bench.sh; sleep 0.05", run='between = "true"')
    db = config.path.parent / "perfwalk.db"
    reference = walk(config.path)
    _out, err = reference.communicate(timeout=120)
    assert reference.returncode == 1, err  # 1: the broken build
    expected = rows(db, 1)
    assert len(expected) == 10 * 2  # 10 buildable checkouts × 2 repetitions × 1 test

    # kill after a seeded random number of stored repetitions, a seeded random moment
    # later: inside a repetition, between two, or inside a build
    rng = random.Random(seed)
    before = stored_repetitions(db)
    target = before + rng.randint(1, len(expected) - 4)
    kill_walk_once_stored(config.path, db, target, late=rng.uniform(0.0, 0.05))
    partial = rows(db, 2)
    assert len(partial) < len(expected), "the walk finished before the kill; slow it down"

    resumed = walk(config.path, "--resume")
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 1, err
    assert b"series 2 resumed and finished" in out
    got = rows(db, 2)
    assert len(got) == len(set(got)), "duplicated rows"
    assert sorted(got) == sorted(expected)
