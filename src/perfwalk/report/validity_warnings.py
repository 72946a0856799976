"""Whether a series' benchmarks measure what they are meant to, gathered from the
store (:mod:`perfwalk.analysis.validity` decides): its tests' newest profiles, each
metric's summaries per checkout (as the caller has them: the analysis', or the table's),
the values of its time metrics at its newest checkouts, the commits landed between its
checkouts. What its page's "Is this benchmark measuring the right thing?" and
``perfwalk show`` say."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from perfwalk.analysis.levels import MetricPoints
from perfwalk.analysis.validity import (
    SECONDS_OF,
    FramePatterns,
    StretchCommit,
    ValidityWarning,
    drops,
    flat,
    hot_files_of,
    overhead,
    too_short,
)
from perfwalk.config.model import Config, TestConfig
from perfwalk.config.settings import TIMED_PARSERS
from perfwalk.config.validity import TestValidity, ValidityConfig
from perfwalk.folded import FoldedStacks
from perfwalk.report.summaries import SeriesTable
from perfwalk.store import SeriesRow, Store

#: the newest profiles of a test read for its warnings
PROFILES_READ = 5
#: the newest checkouts whose values of a time metric are judged (too short)
VALUES_READ = 50
#: the series whose checkouts are no history: no stretch of them is flat
_NO_HISTORY = ("drill", "try")

#: (test, name, unit) → (checkout index, summary) in checkout order
Summaries = Mapping[tuple[str, str, str], Sequence[tuple[int, float]]]


def of_points(
    points: Iterable[MetricPoints],
) -> dict[tuple[str, str, str], list[tuple[int, float]]]:
    """The summaries of the metrics as change detection read them (finite ones only)."""
    return {
        (p.test, p.name, p.unit): [
            (idx, value)
            for idx, value in zip(p.idxs, p.points, strict=True)
            if math.isfinite(value)
        ]
        for p in points
    }


def of_table(table: SeriesTable) -> dict[tuple[str, str, str], list[tuple[int, float]]]:
    """The summaries of a series' table (``perfwalk show``'s; finite ones only)."""
    found: dict[tuple[str, str, str], list[tuple[int, float]]] = defaultdict(list)
    for (key, idx), summary in sorted(table.cells.items(), key=lambda item: item[0][1]):
        if math.isfinite(summary.summary):
            found[(key.test, key.name, key.unit)].append((idx, summary.summary))
    return dict(found)


@dataclass(frozen=True)
class _Reading:
    """What every warning of one test of a series is read from."""

    store: Store
    series: SeriesRow
    settings: ValidityConfig
    test: str
    config: TestConfig | None
    stacks: FoldedStacks

    @property
    def own(self) -> TestValidity:
        return self.config.validity if self.config is not None else TestValidity()


def series_validity(
    store: Store, config: Config | None, series: SeriesRow, summaries: Summaries
) -> list[ValidityWarning]:
    """The warnings that the benchmarks of ``series`` measure the wrong thing (of the
    tests the configuration keeps), by test, profile first, then by metric;
    ``summaries`` are its metrics' per checkout."""
    settings = config.validity if config is not None else ValidityConfig()
    tests = {t.name: t for t in config.tests} if config is not None else {}
    keeps = config.keeps if config is not None else lambda _test: True
    stacks = _profiles(store, series.id, keeps)
    timed = _timed_values(store, series.id, [t for t in tests.values() if keeps(t.name)])
    found: list[ValidityWarning] = []
    for test in sorted({test for test, _n, _u in summaries if keeps(test)} | set(stacks)):
        merged, count = stacks.get(test, ({}, 0))
        reading = _Reading(store, series, settings, test, tests.get(test), merged)
        patterns = FramePatterns(
            settings.clock_frames, settings.syscall_frames, reading.own.harness_frames
        )
        said = overhead(test, merged, patterns, threshold=settings.overhead_share, profiles=count)
        found += [said] if said else []
        mine = {(n, u): points for (t, n, u), points in summaries.items() if t == test}
        found += _metric_warnings(reading, mine)
        for (name, unit), values in sorted(timed.get(test, {}).items()):
            said = too_short(
                test,
                name,
                values,
                unit,
                ticks=settings.resolution_ticks,
                floor=settings.time_floor,
            )
            found += [said] if said else []
    return found


def _timed_values(
    store: Store, series_id: int, tests: Sequence[TestConfig]
) -> dict[str, dict[tuple[str, str], list[float]]]:
    """The values in a time unit of the tests whose parser reads a command's own timing
    (:data:`~perfwalk.config.settings.TIMED_PARSERS`; not a latency, a jitter, a time per
    iteration), at the newest :data:`VALUES_READ` checkouts: test → (name, unit) → values."""
    names = [t.name for t in tests if t.parser in TIMED_PARSERS]
    found: dict[str, dict[tuple[str, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    if not names:
        return found
    rows = store.passed_values(series_id, tests=names, units=SECONDS_OF, newest=VALUES_READ)
    for _idx, _rep, test, name, unit, value, _direction in rows:
        found[test][(name, unit)].append(value)
    return found


def _metric_warnings(
    reading: _Reading, summaries: Mapping[tuple[str, str], Sequence[tuple[int, float]]]
) -> list[ValidityWarning]:
    """The warnings of one test's metrics: drops, flat."""
    test, settings = reading.test, reading.settings
    found: list[ValidityWarning] = []
    for (name, unit), points in sorted(summaries.items()):
        sender = (name.removesuffix("receiver") + "sender", unit)
        if name.rsplit(".", 1)[-1] == "receiver" and sender in summaries:
            sent = dict(summaries[sender])
            sides = [(sent[idx], got) for idx, got in points if idx in sent]
            said = drops(test, sides, unit, threshold=settings.receiver_share, metric=name)
            found += [said] if said else []
    hot_files = hot_files_of(reading.stacks)
    if reading.series.kind not in _NO_HISTORY and (reading.own.hot_paths or hot_files):
        found += _flat_warnings(reading, summaries, hot_files)
    return found


def _flat_warnings(
    reading: _Reading,
    summaries: Mapping[tuple[str, str], Sequence[tuple[int, float]]],
    hot_files: Sequence[str],
) -> list[ValidityWarning]:
    """The warnings of the test's metrics flat while its hot path changed."""
    settings = reading.settings
    if max((len(points) for points in summaries.values()), default=0) < settings.flat_checkouts:
        return []
    idxs = [idx for points in summaries.values() for idx, _v in points]
    read = reading.store.site.commits(reading.series.id, min(idxs), max(idxs))
    commits = {
        idx: [StretchCommit(c.id, c.subject, c.files) for c in landed]
        for idx, landed in read.items()
    }
    found = []
    for (name, _unit), points in sorted(summaries.items()):
        said = flat(
            reading.test,
            name,
            points,
            commits,
            hot_paths=reading.own.hot_paths,
            hot_files=hot_files,
            within=settings.flat_within,
            least_checkouts=settings.flat_checkouts,
            least_commits=settings.flat_commits,
        )
        found += [said] if said else []
    return found


def _profiles(
    store: Store, series_id: int, keeps: Callable[[str], bool]
) -> dict[str, tuple[FoldedStacks, int]]:
    """Each test's newest :data:`PROFILES_READ` profiles with samples, merged, and how
    many they are."""
    newest: dict[str, list[int]] = defaultdict(list)
    for _idx, listed in sorted(store.profiles.listed(series_id).items(), reverse=True):
        for test, profile_id in listed:
            if len(newest[test]) < PROFILES_READ and keeps(test):
                newest[test].append(profile_id)
    merged: dict[str, tuple[FoldedStacks, int]] = {}
    for test, ids in newest.items():
        stacks: FoldedStacks = defaultdict(int)
        for profile_id in ids:
            row = store.profiles.get(profile_id)
            for stack, count in (row.stacks if row is not None else {}).items():
                stacks[stack] += count
        merged[test] = (dict(stacks), len(ids))
    return merged
