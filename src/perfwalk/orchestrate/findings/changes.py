"""The changes of stored series: one :class:`ChangeEvent` per series and commit
range, grouping the metrics that changed there, with the evidence of each, the
excursions and drifts of the same metrics and the breaks of the walks.

:func:`find_changes` is what ``perfwalk changes`` prints, what the report marks on
its plots and tables, and where a drill finds what to narrow down.

Every series is analysed on its own (:mod:`perfwalk.orchestrate.findings.series_search`):
a walk's variants (series of kind ``variant``, measured beside it) have changes of
their own, which name their variant.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from perfwalk.analysis.floor import Sight
from perfwalk.analysis.levels import MetricPoints
from perfwalk.analysis.thresholds import CONFIGURED, Thresholds
from perfwalk.config.model import Config
from perfwalk.orchestrate.findings.breaks import BreakEvent, series_breaks
from perfwalk.orchestrate.findings.change_events import ChangeEvent, MetricEpisode
from perfwalk.orchestrate.findings.evidence import with_evidence
from perfwalk.orchestrate.findings.layout_evidence import with_layout_evidence
from perfwalk.orchestrate.findings.series_search import search_series
from perfwalk.store import Store
from perfwalk.store.records import SeriesRow


@dataclass(frozen=True)
class Findings:
    """The changes of some series and what else their metrics did; ``points``: by
    series, each searched metric's per-checkout summaries (what the site cuts into
    levels at the changes: read once, for both) and what the walk could see in it."""

    changes: list[ChangeEvent]
    episodes: list[MetricEpisode]
    points: dict[int, list[MetricPoints]] = field(default_factory=dict)
    #: the builds broken and tests newly failing of the walks and of the regress suite
    #: (perfwalk.orchestrate.findings.breaks)
    breaks: list[BreakEvent] = field(default_factory=list)

    @property
    def sights(self) -> dict[int, list[Sight]]:
        """By series, what the walk could see in each searched metric: its floor (the
        smallest change it would have found), what it left out, and the most likely
        step below the bar (``floor.candidate``, as checkout indexes). None for a
        drill's or a try's series
        (:data:`~perfwalk.orchestrate.findings.metric_search.ANSWERED_ELSEWHERE`)."""
        return {
            series: [p.sight for p in points if p.sight is not None]
            for series, points in self.points.items()
        }

    @property
    def undecided(self) -> list[tuple[int, Sight]]:
        """(series, sight) of each metric the walk cannot judge: no change found and none
        of its ``min_change`` visible (``Sight.undecided`` says why), or judged only
        with the values it was told to leave out (``Sight.kept``: its changes are
        suspect). A re-measure looks at ``floor.candidate`` of each first."""
        return [
            (series, sight)
            for series, sights in self.sights.items()
            for sight in sights
            if sight.undecided or sight.kept
        ]


def find_changes(
    store: Store,
    config: Config | None,
    series_ids: Iterable[int] | None = None,
    *,
    tuning: Thresholds = CONFIGURED,
) -> list[ChangeEvent]:
    """The changes of every metric of every series (or of ``series_ids``), grouped by
    series and commit range, oldest first within a series."""
    return find_all(store, config, series_ids, tuning=tuning).changes


def find_all(
    store: Store,
    config: Config | None,
    series_ids: Iterable[int] | None = None,
    *,
    tuning: Thresholds = CONFIGURED,
) -> Findings:
    """:func:`find_changes` and the excursions and drifts of the same metrics (by
    series, test, metric and first checkout)."""
    if series_ids is None:  # a try's sides are not a history, nor an environment drill's
        chosen = [s for s in store.list_series() if s.kind not in ("try", "environment")]
    else:
        chosen = [store.series(i) for i in series_ids]
    found = Findings([], [])
    for series in sorted(chosen, key=lambda s: s.id):
        events, episodes, points = search_series(store, config, series, tuning=tuning)
        found.points[series.id] = points
        found.changes.extend(events)
        found.episodes.extend(episodes)
    # the drills, tries and other machines' walks of each change, for its verdict
    found.changes[:] = with_evidence(store, chosen, found.changes)

    others: dict[int, list[MetricPoints]] = {}  # series searched for their evidence only

    def points_of(series_id: int) -> list[MetricPoints]:
        if series_id in found.points:
            return found.points[series_id]
        if series_id not in others:
            others[series_id] = search_series(
                store, config, store.series(series_id), tuning=tuning
            )[2]
        return others[series_id]

    found.changes[:] = with_layout_evidence(store, config, found.changes, points_of)
    found.breaks.extend(series_breaks(store, sorted(chosen, key=lambda s: s.id)))
    return found


def series_changes(
    store: Store, config: Config | None, series: SeriesRow, *, tuning: Thresholds = CONFIGURED
) -> list[ChangeEvent]:
    """The change events of one series."""
    return series_findings(store, config, series, tuning=tuning)[0]


def series_findings(
    store: Store, config: Config | None, series: SeriesRow, *, tuning: Thresholds = CONFIGURED
) -> tuple[list[ChangeEvent], list[MetricEpisode]]:
    """The change events of one series, and its metrics' excursions and drifts.

    With ``[run] exclude_loaded``, the values of the repetitions measured on a loaded
    machine are left out, but for a metric they leave too little to judge (no change
    found without them, and none of its ``min_change`` visible): that one is searched
    with them kept, and its changes are suspect ("found only with N loaded repetitions
    kept"). The values of the re-measures (``[run] confirm``) are always left out: they
    test the changes found without them, and must not move them. A change whose
    sides the machine's state tells apart is marked suspect
    (:mod:`perfwalk.analysis.machine`), but in an instrument's metric
    (:func:`perfwalk.config.instruments.load_immune`), judged on its values alone.
    """
    return search_series(store, config, series, tuning=tuning)[:2]


def series_sights(
    store: Store, config: Config | None, series: SeriesRow, *, tuning: Thresholds = CONFIGURED
) -> list[Sight]:
    """What the walk could see in each searched metric of ``series`` (by test and name):
    its floor, and what it left out (``perfwalk status``, ``show``, the end of a walk);
    nothing for a drill's or a try's series
    (:data:`~perfwalk.orchestrate.findings.metric_search.ANSWERED_ELSEWHERE`)."""
    points = search_series(store, config, series, tuning=tuning)[2]
    return [p.sight for p in points if p.sight is not None]
