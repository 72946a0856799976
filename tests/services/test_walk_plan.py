"""The plan of a walk is a value made before anything is measured; the walk is handed
it and returns what it measured, the same as what it stored (real repository, real
processes, SQLite store)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from perfwalk.git.worktree import Worktrees
from perfwalk.model import Status
from perfwalk.orchestrate.session.session import config_session
from perfwalk.orchestrate.walk.plan import RunOptions, plan_walk
from perfwalk.orchestrate.walk.provenance import walk_series
from perfwalk.orchestrate.walk.walk import Walk
from tests.fixtures.synthetic_repo import KnownHistory
from tests.services.conftest import MakeConfig


def test_the_walk_is_handed_its_plan_and_returns_what_it_measured(
    make_config: MakeConfig, known_values_repo_copy: KnownHistory
) -> None:
    known = known_values_repo_copy
    config = make_config()
    with config_session(config, "a planned walk") as session:
        store = session.store
        plan = plan_walk(store, config, session.topology, RunOptions(repetitions=3))
        with pytest.raises(dataclasses.FrozenInstanceError):
            plan.repetitions = 1  # type: ignore[misc]
        assert plan.repetitions == 3
        assert plan.hosts == (config.run.host,)
        assert store.list_series() == []  # planning stores nothing
        with session.holding():
            series_id = store.create_series(
                walk_series(config, session.topology, plan, datetime.now(UTC))
            )
            worktrees = Worktrees.for_series(
                plan.repo, config.store.worktrees, store.store_id(), series_id
            )
            walk = Walk(
                series_id, config, store, worktrees, session.topology, plan.quirks, plan.between
            )
            with worktrees.held("a planned walk"):
                measured = walk.run(plan)
        stored_builds = {c.idx: c.build_status for c in store.checkouts(series_id)}
        stored_values: dict[int, list[float]] = {}
        for row in store.values(series_id):
            if row.status is Status.PASS:
                stored_values.setdefault(row.checkout_idx, []).append(row.value)
        names = {row.name for row in store.values(series_id)}
    assert measured.builds == stored_builds
    (name,) = names
    for planned in plan.checkouts:
        index, sha = planned.checkout.index, planned.checkout.commit
        values = measured.values(index, "latency", name)
        assert list(values) == stored_values.get(index, [])
        if sha == known.broken_build:
            assert measured.builds[index] is Status.NOEXIST
            assert values == ()
        else:
            assert values == (known.value_of(sha),) * 3
