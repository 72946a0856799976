"""What the site shows of a block of checkouts, read from the store's checkout packs
(:mod:`perfwalk.store.packs`): per checkout its repetitions, metrics, values and, per
metric, the summary of its PASS values by the metric's policy and thresholds.

The moments (n, mean, median, min, max, sd) were computed when the repetitions were
stored; here each metric only gets its policy's summary, its relative deviation and
its marks: a block of 100 checkouts × 100 metrics is summarised in milliseconds.
"""

from __future__ import annotations

import json
import math
from array import array
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from perfwalk.analysis.summary import (
    Moments,
    choose,
    may_have_outliers,
    moments,
    outliers_of,
    relative_sd,
)
from perfwalk.config.model import Config
from perfwalk.config.policy import metric_policy
from perfwalk.model import Direction, Status
from perfwalk.policy import MetricPolicy
from perfwalk.report.summaries import MetricKey
from perfwalk.store import CheckoutRow, Store
from perfwalk.store.packs import STATS, from_little_endian, little_endian

_BY_SEVERITY = {int(status): status for status in Status}


class Cell(NamedTuple):
    """The summary of one metric at one checkout (its PASS values): the fields of
    :class:`~perfwalk.analysis.summary.Summary`, outliers as repetition positions."""

    n: int
    mean: float
    median: float
    min: float
    max: float
    sd: float
    rsd: float
    summary: float  # by the metric's policy
    unstable: bool
    outliers: tuple[int, ...]  # positions (in ``CheckoutData.reps``) of the outliers


@dataclass
class CheckoutData:
    """One checkout as the pages show it; a checkout without repetitions has none of
    the fields after ``row``."""

    row: CheckoutRow
    reps: list[int] = field(default_factory=list)  # repetition indexes
    metrics: list[MetricKey] = field(default_factory=list)
    index: dict[MetricKey, int] = field(default_factory=dict)  # metric → its position
    detail: str = ""  # the pack's JSON of repetitions and results, for the page
    vals: bytes = b""  # float64 metric × repetition, every value
    passed: Sequence[float] = ()  # the same, PASS values only (NaN elsewhere)
    stats: bytes = b""  # float64, STATS per metric: the moments of the PASS values
    statuses: dict[str, Status] = field(default_factory=dict)  # test → worst status
    loaded: Sequence[int] = ()  # positions of the repetitions measured on a loaded machine
    chosen: Sequence[float] = ()  # per metric its summary by its policy; NaN: none
    marks: dict[int, tuple[bool, tuple[int, ...]]] = field(default_factory=dict)
    """metric position → (unstable, outlier repetition positions), marked ones only"""
    phases: str = ""  # JSON: the steps and snapshots of its repetitions (report.phase_data)

    def cell(self, key: MetricKey) -> Cell | None:
        """The whole summary of ``key`` (for the few cells that show more than a number)."""
        m = self.index.get(key)
        if m is None or math.isnan(self.chosen[m]):
            return None
        n, mean, median, low, high, sd = from_little_endian(
            self.stats[m * STATS * 8 : (m + 1) * STATS * 8]
        )
        unstable, outliers = self.marks.get(m, (False, ()))
        rsd = relative_sd(mean, sd)
        return Cell(int(n), mean, median, low, high, sd, rsd, self.chosen[m], unstable, outliers)


class Policies:
    """Summary policy and thresholds of each metric, looked up once per metric."""

    def __init__(self, config: Config | None) -> None:
        self._config = config
        self._known: dict[MetricKey, MetricPolicy] = {}
        #: ``[run] exclude_loaded``: summaries leave out the loaded repetitions
        self.exclude_loaded = config is not None and config.run.exclude_loaded
        #: the tests the pages show (``perfwalk report --tests``): the others are left out
        self.keeps: Callable[[str], bool] = config.keeps if config else lambda _test: True

    def _policy(self, key: MetricKey) -> MetricPolicy:
        found = self._known.get(key)
        if found is None:
            direction = Direction(key.direction)
            found = metric_policy(self._config, key.test, key.name, key.unit, direction)
            self._known[key] = found
        return found

    def of(self, key: MetricKey) -> tuple[str, Direction, float, float]:
        """(summary policy, direction, unstable rsd, outlier distance) of ``key``."""
        p = self._policy(key)
        return p.summary, p.direction, p.unstable_rsd, p.outlier

    def drawn(self, key: MetricKey) -> bool:
        """Whether the plots draw ``key``: not a metric marked ``ignore`` (its values are
        kept, in the tables and the exports, but left out of the analysis and plots)."""
        return not self._policy(key).ignore


class _Head(NamedTuple):
    """A decoded pack head, with the policy of each metric."""

    reps: list[int]
    metrics: list[MetricKey]
    positions: dict[MetricKey, int]
    statuses: dict[str, Status]
    policies: list[tuple[str, Direction, float, float]]
    loaded: list[int]  # positions of the repetitions measured on a loaded machine
    kept: list[int] | None  # the positions of the metrics of tests kept; None: all


class _Heads:
    """Decoded pack heads: most checkouts of a series share the same text."""

    def __init__(self, policies: Policies) -> None:
        self._policies = policies
        self._known: dict[str, _Head] = {}

    def of(self, text: str) -> _Head:
        found = self._known.get(text)
        if found is None:
            head: dict[str, Any] = json.loads(text)
            every = [MetricKey(*m) for m in head["metrics"]]
            keeps = self._policies.keeps
            kept = [m for m, key in enumerate(every) if keeps(key.test)]
            metrics = [every[m] for m in kept]
            found = self._known[text] = _Head(
                [int(r) for r in head["reps"]],
                metrics,
                {key: m for m, key in enumerate(metrics)},
                {t: _BY_SEVERITY[s] for t, s in head["worst"].items() if keeps(t)},
                [self._policies.of(key) for key in metrics],
                [int(p) for p in head.get("loaded", [])],
                None if len(kept) == len(every) else kept,
            )
        return found


def read_block(
    store: Store, series_id: int, rows: Sequence[CheckoutRow], policies: Policies
) -> list[CheckoutData]:
    """The data of ``rows`` (consecutive checkouts of ``series_id``), in their order."""
    if not rows:
        return []
    data = {row.idx: CheckoutData(row) for row in rows}
    heads = _Heads(policies)
    for pack in store.site.packs(series_id, rows[0].idx, rows[-1].idx):
        checkout = data.get(pack.idx)
        if checkout is None:
            continue
        head = heads.of(pack.head)
        checkout.reps, checkout.metrics, checkout.index = head.reps, head.metrics, head.positions
        checkout.statuses = head.statuses
        checkout.detail = pack.detail
        checkout.vals = pack.vals
        checkout.passed = from_little_endian(pack.passed)
        checkout.stats = pack.stats
        checkout.loaded = head.loaded
        if head.kept is not None:
            _keep_only(checkout, head.kept, policies.keeps)
        if policies.exclude_loaded and head.loaded:
            _leave_out(checkout, head.loaded)
        _summarise(checkout, head.policies)
    return [data[row.idx] for row in rows]


def _keep_only(checkout: CheckoutData, kept: Sequence[int], keeps: Callable[[str], bool]) -> None:
    """The values, PASS values and moments of ``checkout`` of the metrics at the
    positions ``kept`` of its pack only, and the results of the tests it ``keeps``."""
    detail = json.loads(checkout.detail)
    where = {m: n for n, m in enumerate(kept)}
    detail["results"] = [r for r in detail["results"] if keeps(r[2])]
    detail["nan"] = [[where[m], rep] for m, rep in detail.get("nan", []) if m in where]
    checkout.detail = json.dumps(detail, separators=(",", ":"), allow_nan=False)
    width, size = len(checkout.reps), 8 * STATS
    vals, passed = array("d"), array("d")
    every = from_little_endian(checkout.vals)
    for m in kept:
        vals.extend(every[m * width : (m + 1) * width])
        passed.extend(checkout.passed[m * width : (m + 1) * width])
    checkout.vals = little_endian(vals)
    checkout.passed = passed
    checkout.stats = b"".join(checkout.stats[m * size : (m + 1) * size] for m in kept)


def _leave_out(checkout: CheckoutData, positions: Sequence[int]) -> None:
    """The PASS values and moments of ``checkout`` without the repetitions at
    ``positions`` (``[run] exclude_loaded``)."""
    width = len(checkout.reps)
    passed = array("d", checkout.passed)
    for m in range(len(checkout.metrics)):
        for pos in positions:
            passed[m * width + pos] = math.nan
    stats = array("d")
    for m in range(len(checkout.metrics)):
        row = passed[m * width : (m + 1) * width]
        found = moments([v for v in row if not math.isnan(v)])
        stats.extend(found if found is not None else (0.0,) * STATS)
    checkout.passed = passed
    checkout.stats = little_endian(stats)


def _summarise(checkout: CheckoutData, policies: list[tuple[str, Direction, float, float]]) -> None:
    """Each metric's summary by its policy, and the marks of unstable sets and outliers."""
    stats = from_little_endian(checkout.stats)
    chosen = array("d")
    marks = checkout.marks
    width = len(checkout.reps)
    nan = math.nan
    columns = zip(
        stats[0::STATS],
        stats[1::STATS],
        stats[3::STATS],
        stats[4::STATS],
        stats[5::STATS],
        policies,
        strict=True,
    )
    for m, (n, mean, low, high, sd, (policy, direction, unstable, outlier)) in enumerate(columns):
        if not n:
            chosen.append(nan)
            continue
        if policy == "mean":
            value = mean
        else:
            median = stats[m * STATS + 2]
            value = choose(policy, direction, Moments(int(n), mean, median, low, high, sd))
        chosen.append(value)
        shaky = n > 1 and relative_sd(mean, sd) >= unstable
        if shaky or may_have_outliers(value, low, high, outlier):
            row = checkout.passed[m * width : (m + 1) * width]
            at = [pos for pos, v in enumerate(row) if v == v]  # noqa: PLR0124 (not NaN)
            found = outliers_of([row[pos] for pos in at], value, low, high, outlier)
            if shaky or found:
                marks[m] = (shaky, tuple(at[i] for i in found))
    checkout.chosen = chosen


def metrics_of(block: Sequence[CheckoutData]) -> list[MetricKey]:
    """Every metric of a block, by test and value name (stored order within a test)."""
    seen: dict[MetricKey, None] = {}
    for checkout in block:
        for key in checkout.metrics:
            seen.setdefault(key, None)
    by_test: dict[str, list[MetricKey]] = defaultdict(list)
    for key in seen:
        by_test[key.test].append(key)
    return [key for test in sorted(by_test) for key in by_test[test]]


def tests_of(block: Sequence[CheckoutData]) -> list[str]:
    return sorted({test for checkout in block for test in checkout.statuses})


@dataclass(frozen=True)
class Stability:
    """How steady a series' measures were: its repetition sets (checkout × metric with
    PASS values), the unstable ones, its PASS values and the outliers among them."""

    sets: int
    unstable: int
    values: int
    outliers: int


def stability_of(store: Store, series_id: int, policies: Policies, block: int = 200) -> Stability:
    """The :class:`Stability` of every checkout of ``series_id``, read ``block`` at a time."""
    sets = unstable = values = outliers = 0
    rows = store.checkouts(series_id)
    for start in range(0, len(rows), block):
        for checkout in read_block(store, series_id, rows[start : start + block], policies):
            stats = from_little_endian(checkout.stats)
            counts = [int(n) for n in stats[0::STATS]]
            sets += sum(1 for n in counts if n)
            values += sum(counts)
            for shaky, found in checkout.marks.values():
                unstable += shaky
                outliers += len(found)
    return Stability(sets, unstable, values, outliers)
