"""Counts beyond their bound never reach the walk, whatever way they come in."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from perfwalk.cli.main import main
from perfwalk.store import Store
from tests.services.conftest import MakeConfig


def test_resuming_a_series_stored_with_a_count_beyond_the_bound_is_refused(
    make_config: MakeConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    """A store written before the bound may hold `repetitions = 9223372036854775807`
    (the walk that asked for it was killed by the kernel with 24 GB in use): resuming
    it is a usage error naming the series, and its rows stay as they are."""
    config = make_config()
    assert main(["run", "-c", str(config.path)]) == 1  # commit 12 does not build
    db = config.path.parent / "perfwalk.db"
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute(
            "update series set repetitions = 9223372036854775807, state = 'interrupted'"
        )
    with Store.open(config.store.url) as store:
        before = [(c.idx, c.sha, c.build_status) for c in store.checkouts(1)]
        done = store.done_repetitions(1)
    capsys.readouterr()
    assert main(["run", "-c", str(config.path), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "series 1 asks for 9223372036854775807 repetitions per checkout" in err
    assert "1 to 10000" in err
    with Store.open(config.store.url) as store:
        assert [(c.idx, c.sha, c.build_status) for c in store.checkouts(1)] == before
        assert store.done_repetitions(1) == done
