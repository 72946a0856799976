"""Drill records: start, steps as they end, the answer; stored values reused only from
series of the same project, host and configuration. On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from perfwalk.errors import StoreError
from perfwalk.model import Status
from perfwalk.store import Store
from perfwalk.store.drills import Provenance
from tests.store.factories import checkout, new_series, repetition, result

SAME = Provenance(project="netstack", host="local", config_hash="c0ffee")


def _measured(store: Store, series_id: int, idx: int, *values: float) -> str:
    stored = checkout(idx)
    checkout_id = store.add_checkout(series_id, stored)
    for rep, value in enumerate(values):
        store.add_repetition(checkout_id, repetition(rep, result("iperf", value)))
    return stored.commit


def test_a_drill_keeps_its_steps_in_order_and_its_answer(store: Store) -> None:
    parent = store.create_series(new_series())
    drill = store.create_series(new_series(kind="drill", parent_id=parent, step="drill"))
    store.drills.start(drill, "iperf", "iperf.v0", {"id": f"{parent}:3", "before_idx": 2})
    assert store.drills.get(drill) is not None
    assert store.drills.get(parent) is None
    assert store.drills.measured_unit(drill, "iperf", "iperf.v0") == ""  # nothing measured
    _measured(store, drill, 0, 10.0, 11.0)
    _measured(store, drill, 1, 10.5)
    assert store.drills.measured_unit(drill, "iperf", "iperf.v0") == "bits/sec"
    assert store.drills.measured_unit(parent, "iperf", "iperf.v0") == ""  # another series
    store.drills.add_step(drill, {"position": 0, "values": [10.0, 11.0], "skipped": None})
    store.drills.add_step(drill, {"position": 1, "values": [10.5], "skipped": "does not build"})
    store.drills.finish(drill, "range", {"lo": "a" * 40, "hi": "b" * 40, "confidence": 0.99})
    (row,) = store.drills.all()
    assert (row.series_id, row.test, row.name, row.verdict) == (drill, "iperf", "iperf.v0", "range")
    assert [s["position"] for s in row.steps] == [0, 1]
    assert row.steps[1]["skipped"] == "does not build"
    assert row.answer == {"lo": "a" * 40, "hi": "b" * 40, "confidence": 0.99}
    assert row.change["id"] == f"{parent}:3"
    assert store.series(drill).repetitions == 2  # the most run at one commit
    assert store.series(drill).parent_id == parent


def test_steps_and_answers_of_an_unknown_drill_are_refused(store: Store) -> None:
    walk = store.create_series(new_series())
    with pytest.raises(StoreError, match="is not a drill"):
        store.drills.add_step(walk, {"position": 0})
    with pytest.raises(StoreError, match="is not a drill"):
        store.drills.finish(walk, "culprit", {})


def test_stored_values_are_reused_from_the_same_project_host_and_configuration(
    store: Store,
) -> None:
    same = store.create_series(new_series())
    other_host = store.create_series(new_series(host="elsewhere"))
    other_config = store.create_series(new_series(config_hash="decaf"))
    sha = _measured(store, same, 1, 10.0, 12.0)
    _measured(store, other_host, 1, 99.0)
    _measured(store, other_config, 1, 98.0)
    failed = store.add_checkout(same, checkout(2))
    store.add_repetition(failed, repetition(0, result("iperf", 5.0, status=Status.FAIL)))
    found = store.drills.values_at([sha, checkout(2).commit], "iperf", "iperf.v0", SAME)
    assert found == {sha: [10.0, 12.0]}  # not the other host's, config's, nor a FAIL's
    assert store.drills.values_at([sha], "iperf", "iperf.v0", SAME, exclude_series=same) == {}
    assert store.drills.values_at([sha], "iperf", "iperf.v1", SAME) == {}


def test_a_drill_reuses_no_value_of_a_walks_variant(store: Store) -> None:
    """A variant (kind variant) measured the same commit patched or modified, on the
    same host with the same configuration: its values are not the plain checkout's."""
    walk = store.create_series(new_series())
    fast = store.create_series(new_series(kind="variant", parent_id=walk, variant="fast"))
    sha = _measured(store, walk, 1, 10.0, 12.0)
    assert _measured(store, fast, 1, 5.0, 6.0) == sha
    found = store.drills.values_at([sha], "iperf", "iperf.v0", SAME)
    assert found == {sha: [10.0, 12.0]}  # the walk's, not the variant's 5 and 6
    only_variant = store.drills.values_at([sha], "iperf", "iperf.v0", SAME, exclude_series=walk)
    assert only_variant == {}
