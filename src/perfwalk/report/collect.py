"""What the pages of a block of checkouts show, read from the store in a few queries.

A block is a run of consecutive checkouts of one series. Its repetitions, results
and values are read with one query each (never one per checkout), and every
(metric, checkout) is summarised by the metric's policy and thresholds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from perfwalk.analysis.summary import Summary, summarize
from perfwalk.config.model import Config
from perfwalk.model import Direction, Status
from perfwalk.report.summaries import MetricKey, metric_policy
from perfwalk.store import CheckoutRow, Store
from perfwalk.store.store import BlockRepetition, BlockResult

#: one value of one repetition: (repetition index, value, its result's status)
Point = tuple[int, float, Status]


@dataclass
class CheckoutData:
    """Everything the pages show of one checkout."""

    row: CheckoutRow
    repetitions: list[BlockRepetition] = field(default_factory=list)
    results: list[BlockResult] = field(default_factory=list)
    points: dict[MetricKey, list[Point]] = field(default_factory=dict)
    summaries: dict[MetricKey, Summary] = field(default_factory=dict)
    #: the repetition of each value a summary was made of (outlier positions map here)
    summarised: dict[MetricKey, list[int]] = field(default_factory=dict)
    statuses: dict[str, Status] = field(default_factory=dict)  # test → worst status


class Policies:
    """Summary policy and thresholds of each metric, looked up once per metric."""

    def __init__(self, config: Config | None) -> None:
        self._config = config
        self._known: dict[MetricKey, tuple[str, Direction, float, float]] = {}

    def of(self, key: MetricKey) -> tuple[str, Direction, float, float]:
        """(summary policy, direction, unstable rsd, outlier distance) of ``key``."""
        found = self._known.get(key)
        if found is None:
            policy, unstable, outlier = metric_policy(self._config, key)
            found = self._known[key] = (policy, Direction(key.direction), unstable, outlier)
        return found


def read_block(
    store: Store, series_id: int, rows: Sequence[CheckoutRow], policies: Policies
) -> list[CheckoutData]:
    """The data of ``rows`` (consecutive checkouts of ``series_id``), in their order."""
    if not rows:
        return []
    first, last = rows[0].idx, rows[-1].idx
    data = {row.idx: CheckoutData(row) for row in rows}
    for repetition in store.block_repetitions(series_id, first, last):
        data[repetition.checkout_idx].repetitions.append(repetition)
    status_of: dict[int, Status] = {}
    for result in store.block_results(series_id, first, last):
        at = data[result.checkout_idx]
        at.results.append(result)
        status_of[result.id] = result.status
        worst = at.statuses.get(result.test)
        if worst is None or result.status > worst:
            at.statuses[result.test] = result.status
    metrics = store.block_metrics(series_id, first, last)
    keys: dict[str, dict[str, MetricKey]] = {}  # test → value name → metric
    ambiguous = False
    for test, name, unit, direction in metrics:
        ambiguous |= name in keys.get(test, {})
        keys.setdefault(test, {})[name] = MetricKey(test, name, unit, direction)
    where = {
        result.id: (
            data[result.checkout_idx].points,
            result.repetition_idx,
            keys.get(result.test, {}),
            result.status,
        )
        for d in data.values()
        for result in d.results
    }
    values = store.block_values(series_id, first, last)
    if ambiguous:  # one value name in several units: the unit of each value decides
        units = store.block_value_units(series_id, first, last)
        tests = {result.id: result.test for d in data.values() for result in d.results}
        for (result_id, name, value), (unit, direction) in zip(values, units, strict=True):
            points, rep, _, status = where[result_id]
            key = MetricKey(tests[result_id], name, unit, direction)
            points.setdefault(key, []).append((rep, value, status))
    else:
        for result_id, name, value in values:
            points, rep, named, status = where[result_id]
            key = named[name]
            found = points.get(key)
            if found is None:
                found = points[key] = []
            found.append((rep, value, status))
    for checkout in data.values():
        _summarise(checkout, policies)
    return [data[row.idx] for row in rows]


def _summarise(checkout: CheckoutData, policies: Policies) -> None:
    for key, points in checkout.points.items():
        passed = [p for p in points if p[2] is Status.PASS]
        policy, direction, unstable, outlier = policies.of(key)
        summary = summarize(
            [p[1] for p in passed],
            policy=policy,
            direction=direction,
            unstable_rsd=unstable,
            outlier=outlier,
        )
        if summary is not None:
            checkout.summaries[key] = summary
            checkout.summarised[key] = [p[0] for p in passed]


def metrics_of(block: Sequence[CheckoutData]) -> list[MetricKey]:
    """Every metric of a block, by test and value name (stored order within a test)."""
    seen: dict[MetricKey, None] = {}
    for checkout in block:
        for key in checkout.points:
            seen.setdefault(key, None)
    by_test: dict[str, list[MetricKey]] = defaultdict(list)
    for key in seen:
        by_test[key.test].append(key)
    return [key for test in sorted(by_test) for key in by_test[test]]


def tests_of(block: Sequence[CheckoutData]) -> list[str]:
    return sorted({test for checkout in block for test in checkout.statuses})
