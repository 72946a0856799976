"""Summaries of a series for tables and pages: checkouts as columns, one row per
(test, value name), each cell the summary of the PASS repetitions."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

from perfwalk.analysis.machine import repetition_loaded
from perfwalk.analysis.summary import Summary, summarize
from perfwalk.config.model import Config
from perfwalk.config.policy import metric_policy
from perfwalk.model import Direction, Status
from perfwalk.store import Store
from perfwalk.store.records import CheckoutRow, SeriesRow, ValueRow


class MetricKey(NamedTuple):
    """A metric of a series: a test's value name, its unit and better direction
    (``higher`` or ``lower``). Plain strings: it is a key of many large dicts."""

    test: str
    name: str
    unit: str
    direction: str


@dataclass(frozen=True)
class SeriesTable:
    """Checkouts as columns, one row per (test, value name): each cell a summary."""

    series: SeriesRow
    checkouts: list[CheckoutRow]
    metrics: list[MetricKey]
    cells: dict[tuple[MetricKey, int], Summary]  # (metric, checkout idx)
    statuses: dict[tuple[str, int], Status]  # (test, checkout idx) → worst status


def series_table(store: Store, config: Config | None, series: SeriesRow) -> SeriesTable:
    """Summaries per checkout of PASS values, by each metric's policy and thresholds
    (without the repetitions measured on a loaded machine with ``[run] exclude_loaded``),
    of the tests the configuration keeps (``--tests``)."""
    left_out: set[tuple[int, int]] = set()
    if config is not None and config.run.exclude_loaded:
        states = store.machine_states(series.id)
        left_out = {key for key, found in states.items() if repetition_loaded(found)}
    grouped: dict[MetricKey, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    keeps = config.keeps if config is not None else lambda _test: True
    for row in store.values(series.id):
        rep = (row.checkout_idx, row.repetition_idx)
        if row.status is Status.PASS and rep not in left_out and keeps(row.test):
            grouped[_key(row)][row.checkout_idx].append(row.value)
    statuses: dict[tuple[str, int], Status] = {}
    for result in (r for r in store.results(series.id) if keeps(r.test)):
        at = (result.test, result.checkout_idx)
        statuses[at] = max(statuses.get(at, Status.PASS), result.status)
    cells: dict[tuple[MetricKey, int], Summary] = {}
    for key, per_checkout in grouped.items():
        policy = metric_policy(config, key.test, key.name, key.unit, Direction(key.direction))
        for idx, values in per_checkout.items():
            summary = summarize(
                values,
                policy=policy.summary,
                direction=policy.direction,
                unstable_rsd=policy.unstable_rsd,
                outlier=policy.outlier,
            )
            if summary is not None:
                cells[(key, idx)] = summary
    return SeriesTable(
        series=series,
        checkouts=store.checkouts(series.id),
        metrics=sorted(grouped, key=lambda k: (k.test, k.name)),
        cells=cells,
        statuses=statuses,
    )


def _key(row: ValueRow) -> MetricKey:
    return MetricKey(row.test, row.name, row.unit, row.direction)
