"""Extensions of a series (``perfwalk run --extend``): started with the repetitions its
series and variants plan from then on, found while unfinished (by series and by the
configuration that ran them), finished with the repetitions they added, read back with
their series. Every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from perfwalk.store import Store
from perfwalk.store.extensions import NewExtension
from perfwalk.store.records import Measuring
from tests.store.factories import T0, checkout, new_series, repetition


def _extension(series_id: int, last: int, **changes: object) -> NewExtension:
    fields: dict[str, object] = {
        "series_id": series_id,
        "started_at": T0 + timedelta(days=1),
        "repetitions_before": 2,
        "repetitions": 4,
        "variants": (),
        "variant_repetitions": None,
        "order": "rounds",
        "seed": 42,
        "last_repetition": last,
        "config_hash": "c0ffee",
    }
    fields.update(changes)
    return NewExtension(**fields)  # type: ignore[arg-type]


def test_an_extension_counts_only_the_repetitions_it_added_below_the_new_count(
    store: Store,
) -> None:
    adaptive = Measuring(order="rounds", seed=7, repetitions_max=3, rse_target=0.01)
    series_id = store.create_series(new_series(repetitions=2, measuring=adaptive))
    variant_id = store.create_series(
        new_series(kind="variant", parent_id=series_id, variant="fast", repetitions=2)
    )
    other_id = store.create_series(new_series(name="another walk"))
    assert store.extensions.last_repetition() == 0  # none stored yet
    ids = {sid: store.add_checkout(sid, checkout(0)) for sid in (series_id, variant_id, other_id)}
    for checkout_id in ids.values():
        for rep in range(2):
            store.add_repetition(checkout_id, repetition(rep))
    last = store.extensions.last_repetition()
    assert last == max(rep_id for sid in ids for rep_id in _ids(store, ids[sid]))

    started = store.extensions.start(_extension(series_id, last), {series_id: 4, variant_id: 4})
    series = store.series(series_id)
    # a fixed count from now on: an adaptive series' checkouts all get it
    assert (series.repetitions, series.planned_repetitions, series.adaptive) == (4, 4, False)
    assert series.measuring == Measuring(order="rounds", seed=7)  # its own seed is kept
    assert store.series(variant_id).repetitions == 4
    assert store.series(other_id).repetitions == 3  # not extended
    (info,) = series.extensions
    assert (info.id, info.finished_at, info.added, info.seed) == (started, None, None, 42)
    assert store.extensions.unfinished(series_id) == info
    assert store.extensions.unfinished(other_id) is None
    assert store.extensions.unfinished_made_with("c0ffee") == info
    assert store.extensions.unfinished_made_with("another") is None
    assert store.done_repetitions(series_id, through=last) == {(0, 0), (0, 1)}

    for sid in (series_id, variant_id, other_id):
        for rep in (2, 3, 5):  # 5: a change's re-measure, beyond the planned 4
            store.add_repetition(ids[sid], repetition(rep))
    assert store.done_repetitions(series_id, through=last) == {(0, 0), (0, 1)}
    assert store.extensions.finish(started, T0 + timedelta(days=2)) == 4  # 2 + 2, not 5s
    (info,) = store.series(series_id).extensions
    assert (info.finished_at, info.added) == (T0 + timedelta(days=2), 4)
    assert store.extensions.unfinished(series_id) is None
    assert store.extensions.unfinished_made_with("c0ffee") is None
    assert info.said() == (
        "from 2 to 4 repetitions per checkout, in rounds shuffled with seed 42; 4 repetitions added"
    )
    assert store.series(variant_id).extensions == ()  # told with its walk's


def test_an_extension_that_adds_a_variant_says_what_it_measured_beside_it(store: Store) -> None:
    series_id = store.create_series(new_series(repetitions=2))
    new = _extension(
        series_id, 0, variants=("fast",), variant_repetitions=2, order="checkout", seed=9
    )
    store.extensions.start(new, {series_id: 4})
    (info,) = store.series(series_id).extensions
    assert info.variants == ("fast",)
    assert info.said() == (
        "variant fast, 2 repetitions per checkout beside as many new ones of the plain "
        f"checkout (2 to 4), interleaved with seed 9; not finished (`perfwalk run --extend "
        f"{series_id}` continues it)"
    )


def _ids(store: Store, checkout_id: int) -> list[int]:
    return [rep.id for rep in store.repetitions(checkout_id)]
