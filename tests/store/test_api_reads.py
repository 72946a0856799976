"""What the API reads of a store: its generation (the API keeps its analysis of the
changes by it) moves with every write the analysis reads, and not with a read; the
values a page at a time; a store that cannot be reached told apart."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from perfwalk.errors import StoreError, StoreUnavailable
from perfwalk.model import Log, Status
from perfwalk.store import Store

from .factories import T0, checkout, new_series, repetition


def test_every_write_the_changes_depend_on_moves_the_generation(store: Store) -> None:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    drill_id = store.create_series(new_series(name="drill"))
    key = (series_id, checkout(0).commit, checkout(1).commit)
    writes: dict[str, Callable[[], object]] = {
        "a checkout": lambda: store.add_checkout(series_id, checkout(1)),
        "a build": lambda: store.set_build(checkout_id, Status.NOEXIST, 1.0, Log.of(b"")),
        "a repetition": lambda: store.add_repetition(checkout_id, repetition(0)),
        "a series that ends": lambda: store.set_series_state(series_id, "finished", T0),
        "a series": lambda: store.create_series(new_series(name="another")),
        "a triage word": lambda: store.triage.add(
            key, state="expected", reason="by design", who="ada", at=T0
        ),
        "a drill": lambda: store.drills.start(drill_id, "iperf", "iperf.v0", {"series": 1}),
        "a drill's verdict": lambda: store.drills.finish(drill_id, "culprit", {"culprit": "x"}),
        "a re-measure": lambda: store.confirmations.add(
            series_id, (0, 1), (1, 1), held=True, metrics=[], measured_at=T0
        ),
        "the same re-measure again": lambda: store.confirmations.add(
            series_id, (0, 1), (2, 2), held=False, metrics=[], measured_at=T0.replace(hour=13)
        ),
    }
    seen = [store.site.generation()]
    assert store.site.generation() == seen[0]  # reading moves nothing
    moved = []
    for what, write in writes.items():
        write()
        now = store.site.generation()
        if now != seen[-1]:
            moved.append(what)
        seen.append(now)
    assert moved == list(writes)
    assert store.site.generation() == seen[-1]


def test_values_a_page_at_a_time(store: Store) -> None:
    series_id = store.create_series(new_series())
    for idx in range(3):
        checkout_id = store.add_checkout(series_id, checkout(idx))
        store.add_repetition(checkout_id, repetition(0))
    every = store.values(series_id)
    assert len(every) == 9
    pages = [store.values(series_id, limit=4, offset=at) for at in range(0, 12, 4)]
    assert [len(page) for page in pages] == [4, 4, 1]
    assert [row for page in pages for row in page] == every
    assert store.values(series_id, limit=4, offset=40) == []


def test_a_store_that_cannot_be_reached_is_told_apart(tmp_path: Path) -> None:
    gone = f"postgresql+psycopg://nobody@/nothing?host={tmp_path}"  # no server there
    with pytest.raises(StoreUnavailable):
        Store.open(gone)
    with Store.open(f"sqlite:///{tmp_path}/store.db") as store:
        with pytest.raises(StoreError) as unknown:
            store.series(999)
        assert not isinstance(unknown.value, StoreUnavailable)
