"""Whether a series' benchmarks measure what they are meant to, gathered from the
store (:mod:`perfwalk.analysis.validity` decides): its tests' newest profiles, each
metric's values and per-checkout medians, the commits landed between its checkouts.
What its page's "Is this benchmark measuring the right thing?" and ``perfwalk show``
say."""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from perfwalk.analysis.validity import (
    FramePatterns,
    StretchCommit,
    ValidityWarning,
    drops,
    flat,
    overhead,
    too_short,
)
from perfwalk.config.model import Config, TestConfig
from perfwalk.config.settings import TIMED_PARSERS
from perfwalk.config.validity import TestValidity, ValidityConfig
from perfwalk.folded import FoldedStacks
from perfwalk.store import SeriesRow, Store

#: the newest profiles of a test read for its warnings
PROFILES_READ = 5
#: the share of a test's samples a file must hold (its frames' samples, anywhere in the
#: stack) to be on its hot path
HOT_FILE_SHARE = 0.05
#: a frame that names its file: ``function (path/file.py:12)`` (py-spy and others)
_FILE_FRAME = re.compile(r"\((?P<file>[^():]+):\d+\)\s*$")
#: the series whose checkouts are no history: no stretch of them is flat
_NO_HISTORY = ("drill", "try")


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
    store: Store, config: Config | None, series: SeriesRow
) -> list[ValidityWarning]:
    """The warnings that the benchmarks of ``series`` measure the wrong thing (of the
    tests the configuration keeps), by test, profile first, then by metric."""
    settings = config.validity if config is not None else ValidityConfig()
    tests = {t.name: t for t in config.tests} if config is not None else {}
    keeps = config.keeps if config is not None else lambda _test: True
    values: dict[tuple[str, str, str], dict[int, list[float]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for idx, _rep, test, name, unit, value, _direction in store.passed_values(series.id):
        if keeps(test):
            values[(test, name, unit)][idx].append(value)
    stacks = _profiles(store, series.id, keeps)
    found: list[ValidityWarning] = []
    for test in sorted({test for test, _name, _unit in values} | set(stacks)):
        merged, count = stacks.get(test, ({}, 0))
        reading = _Reading(store, series, settings, test, tests.get(test), merged)
        patterns = FramePatterns(
            settings.clock_frames, settings.syscall_frames, reading.own.harness_frames
        )
        said = overhead(test, merged, patterns, threshold=settings.overhead_share, profiles=count)
        found += [said] if said else []
        metrics = {(n, u): per for (t, n, u), per in values.items() if t == test}
        found += _metric_warnings(reading, metrics)
    return found


def _metric_warnings(
    reading: _Reading, metrics: Mapping[tuple[str, str], Mapping[int, list[float]]]
) -> list[ValidityWarning]:
    """The warnings of one test's metrics: drops, flat, too short."""
    test, settings = reading.test, reading.settings
    medians = {
        key: sorted((idx, statistics.median(vs)) for idx, vs in per.items() if vs)
        for key, per in metrics.items()
    }
    found: list[ValidityWarning] = []
    sender = next(((n, u) for n, u in medians if n.rsplit(".", 1)[-1] == "sender"), None)
    for (name, unit), points in medians.items():
        if sender is not None and name == sender[0].removesuffix("sender") + "receiver":
            sent = dict(medians[sender])
            sides = [(sent[idx], got) for idx, got in points if idx in sent]
            said = drops(test, sides, unit, threshold=settings.receiver_share, metric=name)
            found += [said] if said else []
    hot_files = hot_files_of(reading.stacks)
    if reading.series.kind not in _NO_HISTORY and (reading.own.hot_paths or hot_files):
        found += _flat_warnings(reading, medians, hot_files)
    if reading.config is None or reading.config.parser not in TIMED_PARSERS:
        return found  # a latency, a jitter, a time per iteration: not a run's own timing
    for (name, unit), per in sorted(metrics.items()):
        said = too_short(
            test,
            name,
            [v for vs in per.values() for v in vs],
            unit,
            ticks=settings.resolution_ticks,
            floor=settings.time_floor,
        )
        found += [said] if said else []
    return found


def _flat_warnings(
    reading: _Reading,
    medians: Mapping[tuple[str, str], list[tuple[int, float]]],
    hot_files: Sequence[str],
) -> list[ValidityWarning]:
    """The warnings of the test's metrics flat while its hot path changed."""
    settings = reading.settings
    if max((len(points) for points in medians.values()), default=0) < settings.flat_checkouts:
        return []
    idxs = [idx for points in medians.values() for idx, _v in points]
    read = reading.store.site.commits(reading.series.id, min(idxs), max(idxs))
    commits = {
        idx: [StretchCommit(c.id, c.subject, c.files) for c in landed]
        for idx, landed in read.items()
    }
    found = []
    for (name, _unit), points in sorted(medians.items()):
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


def hot_files_of(stacks: Mapping[str, int]) -> tuple[str, ...]:
    """The files a profile's frames name (``function (file:line)``) that hold at least
    :data:`HOT_FILE_SHARE` of its samples, the heaviest first."""
    total = sum(stacks.values())
    if total <= 0:
        return ()
    held: dict[str, int] = defaultdict(int)
    for stack, count in stacks.items():
        files = {m["file"] for frame in stack.split(";") if (m := _FILE_FRAME.search(frame))}
        for name in files:
            held[name] += count
    return tuple(
        name
        for name, count in sorted(held.items(), key=lambda item: -item[1])
        if count / total >= HOT_FILE_SHARE
    )
