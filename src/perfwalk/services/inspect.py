"""Read-only use cases over the store: pick a series, its progress, its summaries."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from perfwalk.config.model import Config
from perfwalk.errors import UsageError
from perfwalk.model import Status
from perfwalk.store import Store
from perfwalk.store.records import SeriesRow


@contextmanager
def opened(config: Config, *, read_only: bool = False) -> Iterator[Store]:
    """The store of ``config``, closed at the end; ``read_only`` for the commands that
    only read (the store may then be on read-only media)."""
    store = Store.open(config.store.url, read_only=read_only)
    try:
        yield store
    finally:
        store.close()


def pick_series(store: Store, series_id: int | None) -> SeriesRow:
    """The series ``series_id``, or the newest one."""
    if series_id is not None:
        return store.series(series_id)
    newest = store.list_series()
    if not newest:
        raise UsageError(
            f"the store {store.url} holds no series yet",
            hint="start one with `perfwalk run`",
        )
    return newest[0]


@dataclass(frozen=True)
class SeriesStatus:
    series: SeriesRow
    checkouts: int
    built: int
    build_failed: int
    repetitions_done: int
    repetitions_total: int
    worst: dict[str, Status]  # per test, over every repetition


def series_status(store: Store, series: SeriesRow) -> SeriesStatus:
    rows = store.checkouts(series.id)
    worst: dict[str, Status] = {}
    for result in store.results(series.id):
        worst[result.test] = max(worst.get(result.test, Status.PASS), result.status)
    return SeriesStatus(
        series=series,
        checkouts=len(rows),
        built=sum(1 for r in rows if r.build_status is Status.PASS),
        build_failed=sum(1 for r in rows if r.build_status not in (None, Status.PASS)),
        repetitions_done=len(store.done_repetitions(series.id)),
        repetitions_total=len(rows) * series.repetitions,
        worst=worst,
    )
