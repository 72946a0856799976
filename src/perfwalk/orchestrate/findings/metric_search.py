"""The search of each metric of a series: its PASS values (without the re-measures and
the repetitions left out), its change points and episodes, what the walk could see in
it, each change weighed against the machine's state of its two sides; in a long
series, two forked processes search half the metrics each.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from operator import itemgetter
from typing import NamedTuple

from perfwalk.analysis import machine, scaled
from perfwalk.analysis.changepoints import ChangePoint, Detection, Episode, find_change_points
from perfwalk.analysis.confirmation import HELD, standing
from perfwalk.analysis.confirmation import moved as relative_move
from perfwalk.analysis.floor import Floor, Sight, detection_floor
from perfwalk.analysis.levels import MetricPoints, levels
from perfwalk.analysis.machine import HostStates
from perfwalk.analysis.thresholds import Thresholds
from perfwalk.config.instruments import load_immune
from perfwalk.config.model import Config
from perfwalk.model import Direction
from perfwalk.orchestrate.findings.change_events import (
    MetricChange,
    MetricEpisode,
    checkout_ref,
    variant_of_series,
)
from perfwalk.orchestrate.findings.machine_sides import machine_side, sides_told
from perfwalk.orchestrate.findings.walk_evidence import stored_remeasure
from perfwalk.policy import MetricPolicy
from perfwalk.report.forked import can_fork, in_forks
from perfwalk.store.confirmations import ConfirmationRow
from perfwalk.store.records import CheckoutRow, PassedValue, SeriesRow

#: the series whose metrics are never undecided nor given a floor: a drill's answer is
#: the drill's, a try's sides are no history (they have verdicts of their own)
ANSWERED_ELSEWHERE = frozenset({"drill", "try"})


class SeriesReading(NamedTuple):
    """What the search of a series' metrics reads: its PASS values (rows of
    :meth:`Store.passed_values <perfwalk.store.Store.passed_values>`), where each
    checkout stands, the machine's state of each repetition weighed, the repetitions
    left out, those measured on a loaded machine, and the state of every repetition
    (the left out's too)."""

    config: Config | None
    tuning: Thresholds
    series: SeriesRow
    checkouts: Sequence[CheckoutRow]
    rows: Sequence[PassedValue]
    position: Mapping[int, int]
    states: Mapping[tuple[int, int], HostStates]
    left_out: set[tuple[int, int]]
    loaded: set[tuple[int, int]]
    every_state: Mapping[tuple[int, int], HostStates]
    again: Mapping[tuple[int, int], ConfirmationRow]  # the re-measures, by their two checkouts


class _Metric:
    """A metric's values as detection reads them: its PASS values by checkout position,
    and the machine's state of the repetition of each; the values left out (by
    position, with their states) and how many of its values were measured loaded."""

    __slots__ = ("direction", "left", "loaded", "measured", "sets", "unit")

    def __init__(self, unit: str, direction: str, checkouts: int) -> None:
        self.unit = unit
        self.direction = direction
        self.sets: list[list[float]] = [[] for _ in range(checkouts)]
        self.measured: list[list[HostStates]] = [[] for _ in range(checkouts)]
        self.left: list[tuple[int, float, HostStates | None]] = []
        self.loaded = 0

    @property
    def values(self) -> int:
        return sum(map(len, self.sets)) + len(self.left)

    def with_left(self) -> _Metric:
        """The metric with the values left out put back (its states with them)."""
        whole = _Metric(self.unit, self.direction, len(self.sets))
        whole.sets = [list(values) for values in self.sets]
        whole.measured = [list(states) for states in self.measured]
        whole.loaded = self.loaded
        for at, value, state in self.left:
            whole.sets[at].append(value)
            if state is not None:
                whole.measured[at].append(state)
        return whole


#: what the search found in one metric: its episodes, its changes and its summaries
_MetricFindings = tuple[list[MetricEpisode], list[MetricChange], MetricPoints]

#: values from which the metrics of a series are searched by two forked processes
#: (when the machine has a second core and forking is safe): below it, forking costs
#: more than it saves
FORK_FROM = 40_000


def each_metric(reading: SeriesReading) -> list[_MetricFindings]:
    """What the search found in each metric, by test and name. In a long series, two
    forked processes search half the metrics each, given their values (the search is
    pure: the same numbers in, the same out)."""
    rows = reading.rows
    halves: tuple[list[PassedValue], list[PassedValue]] = ([], [])
    half: dict[tuple[str, str], int] = {}
    forking = len(rows) >= FORK_FROM and can_fork(computing=True)  # the search is pure
    if forking:  # the metrics in turn as they first come, their rows with them
        for row in rows:
            key = (row[2], row[3])
            at = half.get(key)
            if at is None:
                at = half[key] = len(half) % 2
            halves[at].append(row)
    if not forking or len(half) < 2:
        return [found for _key, found in _metrics_found(reading, rows)]
    parts = in_forks(
        lambda part: _metrics_found(reading, halves[part]),
        2,
        2,
        what="the change-point searches' results",
        hint="run it again",
    )
    return [found for _key, found in sorted(parts[0] + parts[1], key=itemgetter(0))]


def _metrics_found(
    reading: SeriesReading, rows: Sequence[PassedValue]
) -> list[tuple[tuple[str, str], _MetricFindings]]:
    """What the search found in each metric of ``rows``, by test and name."""
    from perfwalk.config.policy import metric_policy  # the configuration, imported by a store user

    grouped = _grouped(reading, rows)
    weighed: dict[tuple[int, ...], dict[str, machine.Side]] = {}
    out = []
    for (test, name), read in sorted(grouped.items()):
        direction = Direction(read.direction)
        policy = metric_policy(reading.config, test, name, read.unit, direction)
        if policy.ignore:
            continue
        metric, detection, sight = _searched(reading, (test, name), read, policy)
        described = (test, name, metric.unit, direction)
        episodes, changes = _metric_found(reading, described, metric, detection, weighed)
        if sight.undecided:  # what a re-measure of its most likely step found
            sight, changes = _most_likely_step(
                reading,
                described,
                metric,
                sight,
                reduce=summary_of(policy.detection_summary, direction),
                weighed=weighed,
            )
        if sight.kept:  # what only the values left out show is suspect
            changes = [
                replace(c, suspect="; ".join(filter(None, (sight.suspect, c.suspect))))
                for c in changes
            ]
        summary = summary_of(policy.summary, direction)  # as the tables show it
        measured = [pos for pos, values in enumerate(metric.sets) if values]
        points = MetricPoints(
            test,
            name,
            metric.unit,
            direction.value,
            tuple(reading.checkouts[pos].idx for pos in measured),
            tuple(summary(metric.sets[pos]) for pos in measured),
            None if reading.series.kind in ANSWERED_ELSEWHERE else sight,
        )
        out.append(((test, name), (episodes, changes, points)))
    return out


def _searched(
    reading: SeriesReading, key: tuple[str, str], metric: _Metric, policy: MetricPolicy
) -> tuple[_Metric, Detection, Sight]:
    """The change points of a metric and what the walk could see in it. When the values
    left out (``[run] exclude_loaded``) leave too little to judge — no change found,
    and none of the metric's ``min_change`` visible without them — they are kept after
    all: what they show is told, and suspect (:attr:`Sight.kept`)."""
    direction = Direction(metric.direction)
    tuning = reading.tuning.tuning(policy)
    reduce = summary_of(policy.detection_summary, direction)

    def search(values: _Metric) -> tuple[Detection, Floor]:
        found = find_change_points(values.sets, tuning=tuning, reduce=reduce)
        floor = detection_floor(
            values.sets, found, tuning=tuning, reduce=reduce, summary=policy.detection_summary
        )
        return found, floor

    detection, floor = search(metric)
    excluded = len(metric.left)
    found = len(detection.changes) + len(detection.edges)
    kept = bool(excluded) and not found and not floor.sees(tuning.min_change)
    if kept:
        metric = metric.with_left()
        detection, floor = search(metric)
        found = len(detection.changes) + len(detection.edges)
    candidate = floor.candidate
    if candidate is not None:  # as the series names its checkouts
        checkouts = reading.checkouts
        candidate = replace(
            candidate,
            previous=checkouts[candidate.previous].idx,
            index=checkouts[candidate.index].idx,
        )
    sight = Sight(
        *key,
        floor=replace(floor, candidate=candidate),
        min_change=tuning.min_change,
        changes=found,
        values=metric.values,
        loaded=metric.loaded,
        excluded=excluded,
        kept=kept,
    )
    if sight.undecided or kept:  # the machine's load over its repetitions, in words
        states = [s for at in metric.measured for s in at]
        states += [s for _at, _value, s in metric.left if s is not None]
        sight = replace(sight, load=machine.load_words(machine.host_sides(states)))
    return metric, detection, sight


def _grouped(reading: SeriesReading, rows: Sequence[PassedValue]) -> dict[tuple[str, str], _Metric]:
    """The values of ``rows`` by metric (test and name), without the re-measures
    (``[run] confirm``) and the repetitions left out (``[run] exclude_loaded``). An
    instrument's metric keeps them and has no machine's state: the machine's load does
    not touch it, it is judged on its values alone (never suspect)."""
    series = reading.series
    planned = {row.idx: series.planned_at(row) for row in reading.checkouts}
    position, states, left_out = reading.position, reading.states, reading.left_out
    loaded = reading.loaded
    count = len(reading.checkouts)
    grouped: dict[tuple[str, str], _Metric] = {}
    for checkout_idx, repetition_idx, test, name, unit, value, direction_name in rows:
        own = planned.get(checkout_idx, series.planned_repetitions)
        if own is not None and repetition_idx >= own:  # a re-measure
            continue
        key = (checkout_idx, repetition_idx)
        metric = grouped.get((test, name))
        if metric is None:  # its unit and direction: those of its first value
            metric = grouped[(test, name)] = _Metric(unit, direction_name, count)
        at = position[checkout_idx]
        if loaded and key in loaded:
            metric.loaded += 1
        immune = load_immune(name)
        if left_out and key in left_out and not immune:
            metric.left.append((at, value, reading.every_state.get(key)))
            continue
        metric.sets[at].append(value)
        state = None if immune else states.get(key)
        if state is not None:
            metric.measured[at].append(state)
    return grouped


def _metric_found(
    reading: SeriesReading,
    described: tuple[str, str, str, Direction],
    metric: _Metric,
    detection: Detection,
    weighed: dict[tuple[int, ...], dict[str, machine.Side]],
) -> tuple[list[MetricEpisode], list[MetricChange]]:
    """The episodes and changes of one metric, each change weighed against the
    machine's state of its two sides."""
    series, checkouts = reading.series, reading.checkouts
    episodes = [
        metric_episode(series, checkouts, described, episode)
        for episode in (*detection.excursions, *detection.drifts)
    ]
    changes = [
        _weighed(reading, described, metric, change, weighed=weighed)
        for change in (*detection.changes, *detection.edges)
    ]
    return episodes, changes


def _weighed(
    reading: SeriesReading,
    described: tuple[str, str, str, Direction],
    metric: _Metric,
    change: ChangePoint,
    *,
    weighed: dict[tuple[int, ...], dict[str, machine.Side]],
    unseen: float | None = None,
) -> MetricChange:
    """A change of one metric (positions in the series' checkouts), weighed against the
    machine's state of its two sides; ``unseen``: not found by the walk (its most likely
    step, that a re-measure held: :attr:`MetricChange.unseen`)."""
    series, checkouts = reading.series, reading.checkouts
    test, name, unit, direction = described
    size, low, high = _relative(change)
    worse = (
        change.after < change.before
        if direction is Direction.HIGHER
        else change.after > change.before
    )
    sets, measured = metric.sets, metric.measured
    left = machine_side(sets, measured, change.previous, -1, change.points_before, weighed=weighed)
    right = machine_side(sets, measured, change.index, 1, change.points_after, weighed=weighed)
    return MetricChange(
        series_id=series.id,
        test=test,
        name=name,
        unit=unit,
        direction=direction,
        before_idx=checkouts[change.previous].idx,
        after_idx=checkouts[change.index].idx,
        before=change.before,
        after=change.after,
        size=size,
        low=low,
        high=high,
        z=change.z,
        confidence=change.confidence,
        checkouts_before=change.points_before,
        checkouts_after=change.points_after,
        regression=worse,
        edge=change.edge,
        suspect=machine.suspect_hosts(left, right, worse_after=worse, sizes=(size,)),
        sides=replace(sides_told(left, right), immune=load_immune(name)),
        found_in=f"{'walk' if series.kind == 'walk' else 'series'} {series.id}",
        unseen=unseen,
    )


def _most_likely_step(
    reading: SeriesReading,
    described: tuple[str, str, str, Direction],
    metric: _Metric,
    sight: Sight,
    *,
    reduce: Callable[[Sequence[float]], float],
    weighed: dict[tuple[int, ...], dict[str, machine.Side]],
) -> tuple[Sight, list[MetricChange]]:
    """A metric the walk could not judge, after the re-measure of its most likely step
    (``[run] confirm``, ``[watch] confirm``: :mod:`perfwalk.orchestrate.confirm.remeasure_targets`):
    its sight says what that re-measure found; a step it held, decided, is a change of
    its own, which the walk did not find (its verdict: confirmed by the re-measure)."""
    step = sight.floor.candidate
    row = None if step is None else reading.again.get((step.previous, step.index))
    again = None if row is None else stored_remeasure(row, sight.test, sight.name)
    if step is None or again is None:
        return sight, []
    counts = (len(again.values_before), len(again.values_after))
    state = standing(again.outcome, final=again.final)
    sight = replace(sight, again=f"{state} after {counts[0]} + {counts[1]} repetitions")
    if not (again.final and again.outcome == HELD):
        return sight, []
    split = reading.position[step.index]
    summaries = [reduce(values) if values else math.nan for values in metric.sets]
    old, new = levels(summaries, [split])  # the medians of the two sides' summaries
    moved = new.median - old.median
    relative = relative_move(old.median, new.median)
    held = ChangePoint(
        index=split,
        previous=reading.position[step.previous],
        before=old.median,
        after=new.median,
        difference=moved,
        difference_low=moved,
        difference_high=moved,
        relative=relative if math.isfinite(relative) else None,
        low=relative if math.isfinite(relative) else None,
        high=relative if math.isfinite(relative) else None,
        z=0.0,
        confidence=0.0,  # the walk did not find it: the re-measure's confidence decides
        points_before=old.n,
        points_after=new.n,
    )
    change = _weighed(reading, described, metric, held, weighed=weighed, unseen=step.share)
    return replace(sight, changes=1), [change]


def metric_episode(
    series: SeriesRow,
    checkouts: Sequence[CheckoutRow],
    metric: tuple[str, str, str, Direction],
    episode: Episode,
) -> MetricEpisode:
    test, name, unit, direction = metric
    moved = episode.after - episode.before
    size = episode.relative if episode.relative is not None else _infinite(moved)
    return MetricEpisode(
        series_id=series.id,
        series_name=series.name,
        test=test,
        name=name,
        unit=unit,
        direction=direction,
        kind="excursion" if episode.kind == "excursion" else "drift",
        first=checkout_ref(checkouts[episode.start]),
        last=checkout_ref(checkouts[episode.end - 1]),
        before=episode.before,
        after=episode.after,
        size=size,
        z=episode.z,
        confidence=episode.confidence,
        checkouts=episode.end - episode.start,
        worse=moved < 0 if direction is Direction.HIGHER else moved > 0,
        variant=variant_of_series(series)[0],
    )


def _relative(change: ChangePoint) -> tuple[float, float, float]:
    """(size, low, high) of a change; ±inf from a level of 0."""
    if change.relative is not None and change.low is not None and change.high is not None:
        return change.relative, change.low, change.high
    return (
        _infinite(change.difference),
        _infinite(change.difference_low),
        _infinite(change.difference_high),
    )


def _infinite(value: float) -> float:
    return math.copysign(math.inf, value) if value else 0.0


def summary_of(policy: str, direction: Direction) -> Callable[[Sequence[float]], float]:
    """The per-checkout summary of a metric's policy: mean, median or best-of-N."""
    if policy == "mean":
        return scaled.mean
    if policy == "best":
        return max if direction is Direction.HIGHER else min
    return scaled.median
