"""The search of one series: its values, machine states and re-measures read in one
state of the store, each metric searched (:mod:`perfwalk.orchestrate.findings.metric_search`),
the metrics that stepped between the same two checkouts gathered into one
:class:`~perfwalk.orchestrate.findings.change_events.ChangeEvent` with its commits and
the quirks met there.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import pairwise

from perfwalk.analysis import machine
from perfwalk.analysis.levels import MetricPoints
from perfwalk.analysis.thresholds import CONFIGURED, Thresholds
from perfwalk.config.instruments import counts_work
from perfwalk.config.model import Config
from perfwalk.model import Commit
from perfwalk.orchestrate.findings.change_events import (
    ChangeEvent,
    MetricChange,
    MetricEpisode,
    checkout_ref,
    naming_digits,
    variant_of_series,
)
from perfwalk.orchestrate.findings.machine_sides import moved_together, states_by_position
from perfwalk.orchestrate.findings.metric_search import SeriesReading, each_metric
from perfwalk.orchestrate.findings.walk_evidence import (
    remeasured_event,
    with_counters,
    witnessed,
)
from perfwalk.store import Store
from perfwalk.store.records import CheckoutRow, QuirkInfo, SeriesRow


def search_series(
    store: Store, config: Config | None, series: SeriesRow, *, tuning: Thresholds = CONFIGURED
) -> tuple[list[ChangeEvent], list[MetricEpisode], list[MetricPoints]]:
    """:func:`series_findings`, and each searched metric's per-checkout summaries."""
    # read in one state: a checkout pushed meanwhile (a push of an older commit moves
    # the indexes of the newer ones) would have values no checkout read stands for
    with store.one_state(f"analyse series {series.id}"):
        checkouts = store.checkouts(series.id)
        states = store.machine_states(series.id)
        rows = store.passed_values(series.id)
        again = store.confirmations.of_series(series.id)
        spans = store.series_snapshots(series.id)
    position = {c.idx: i for i, c in enumerate(checkouts)}
    loaded = {key for key, found in states.items() if machine.repetition_loaded(found)}
    left_out: set[tuple[int, int]] = set()
    if config is not None and config.run.exclude_loaded:
        left_out = loaded
    every_state = states  # the left out's too: weighed when they are kept after all
    states = {key: state for key, state in states.items() if key not in left_out}
    if config is not None and not config.analysis.suspect_load:  # kept, not weighed
        states = every_state = {}
    reading = SeriesReading(
        config=config,
        tuning=tuning,
        series=series,
        checkouts=checkouts,
        rows=rows,
        position=position,
        states=states,
        left_out=left_out,
        loaded=loaded,
        every_state=every_state,
        again=again,
    )
    found: dict[tuple[int, int], list[MetricChange]] = defaultdict(list)
    sides: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    episodes: list[MetricEpisode] = []
    points: list[MetricPoints] = []
    for metric_episodes, metric_changes, metric_points in each_metric(reading):
        episodes.extend(metric_episodes)
        points.append(metric_points)
        for change in metric_changes:
            at = (change.before_idx, change.after_idx)
            sides[at].append((change.checkouts_before, change.checkouts_after))
            found[at].append(change)
    every = states_by_position(checkouts, states)
    for (before_idx, after_idx), metrics in found.items():
        counts = sides[(before_idx, after_idx)]
        found[(before_idx, after_idx)] = moved_together(
            metrics,
            every,
            before=position[before_idx],
            after=position[after_idx],
            points_before=min(b for b, _ in counts),
            points_after=min(a for _, a in counts),
        )
    if any(counts_work(p.name) for p in points):  # the instruments witness the others
        moved = {(m.test, m.name, position[m.after_idx]): m for ms in found.values() for m in ms}
        for at, metrics in found.items():
            found[at] = [witnessed(m, points, moved, position) for m in metrics]
    by_idx = {c.idx: c for c in checkouts}
    named = naming_digits(series, checkouts)
    episodes.sort(key=lambda e: (e.test, e.name, e.first.idx))
    variant, variant_of = variant_of_series(series)
    events = [
        remeasured_event(
            ChangeEvent(
                series_id=series.id,
                series_name=series.name,
                before=checkout_ref(by_idx[before_idx]),
                after=checkout_ref(by_idx[after_idx]),
                commits=tuple(_commits_between(store, checkouts, before_idx, after_idx)),
                known_causes=_quirks_between(series, checkouts, before_idx, after_idx),
                metrics=tuple(metrics),
                variant=variant,
                variant_of=variant_of,
                commit_digits=named.get(by_idx[after_idx].sha),
            ),
            again.get((before_idx, after_idx)),
        )
        for (before_idx, after_idx), metrics in sorted(found.items(), key=lambda kv: kv[0][1])
    ]
    return with_counters(events, spans, rows, position, config), episodes, points


def _commits_between(
    store: Store, checkouts: Sequence[CheckoutRow], first: int, last: int
) -> list[Commit]:
    out: list[Commit] = []
    for checkout in checkouts:
        if first < checkout.idx <= last:
            out.extend(store.commits_since(checkout.id))
    return out


def _quirks_between(
    series: SeriesRow, checkouts: Sequence[CheckoutRow], first: int, last: int
) -> tuple[QuirkInfo, ...]:
    """The quirks that the walk met between checkouts ``first`` and ``last``: those it
    crossed there (its date lies between theirs, or its letter is new at a checkout
    of the range) and those whose range stopped there (a letter that a range quirk
    leaves). A quirk crossed at ``first`` itself is a cause of what changed before
    ``first``, not after: its letter leaving is no event unless the quirk has a range."""
    span = [c for c in checkouts if first <= c.idx <= last]
    ranged = _ranged_letters(series, checkouts)
    letters: set[str] = set()
    for left, right in pairwise(span):
        before, after = set(left.quirks), set(right.quirks)
        letters.update(after - before)
        letters.update((before - after) & ranged)
    start, end = span[0].date, span[-1].date
    return tuple(q for q in series.quirks if q.letter in letters or start < q.at_date <= end)


def _ranged_letters(series: SeriesRow, checkouts: Sequence[CheckoutRow]) -> set[str]:
    """The letters of the quirks that hold over a range (a patch, build steps, a test
    replaced), as the walk recorded them with its commands. A series stored before
    they were recorded there: the letters that mark more than one checkout (a quirk
    crossed marks only the checkout where it was crossed)."""
    recorded = series.commands.get("quirks")
    if isinstance(recorded, dict) and all(isinstance(v, dict) for v in recorded.values()):
        return {letter for letter, quirk in recorded.items() if quirk.get("range")}
    marks = Counter(letter for checkout in checkouts for letter in checkout.quirks)
    return {letter for letter, count in marks.items() if count > 1}
