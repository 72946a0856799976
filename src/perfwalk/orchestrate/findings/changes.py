"""The changes of stored series: one :class:`ChangeEvent` per series and commit
range, grouping the metrics that changed there.

:func:`find_changes` is what ``perfwalk changes`` prints, what the report marks on
its plots and tables, and where a drill finds what to narrow down.

Every series is analysed on its own: a walk's variants (series of kind ``variant``,
measured beside it) have changes of their own, which name their variant.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from itertools import pairwise
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from perfwalk.analysis import machine, scaled
from perfwalk.analysis.changepoints import ChangePoint, Detection, Episode, find_change_points
from perfwalk.analysis.confirmation import HELD, UNDECIDED, standing
from perfwalk.analysis.confirmation import moved as relative_move
from perfwalk.analysis.floor import Floor, Sight, detection_floor
from perfwalk.analysis.levels import MetricPoints, levels
from perfwalk.analysis.machine import HostStates
from perfwalk.analysis.thresholds import CONFIGURED, Thresholds
from perfwalk.analysis.verdict import (
    CodeMoved,
    Detected,
    Drilled,
    Elsewhere,
    Evidence,
    Randomised,
    Remeasured,
    Sides,
    State,
    Tried,
    Verdict,
    Witness,
    combined,
    decide,
    remeasured,
)
from perfwalk.change_ids import change_id, commit_digits, names_change
from perfwalk.config.instruments import counts_work, load_immune
from perfwalk.config.model import Config
from perfwalk.model import Commit, Direction
from perfwalk.numbers import number_in, numbers_in
from perfwalk.orchestrate.findings.evidence import with_evidence
from perfwalk.orchestrate.findings.layout_evidence import with_layout_evidence
from perfwalk.policy import MetricPolicy
from perfwalk.report.forked import can_fork, in_forks
from perfwalk.store import Store
from perfwalk.store.confirmations import ConfirmationRow
from perfwalk.store.pushes import PUSH_KIND
from perfwalk.store.records import CheckoutRow, PassedValue, QuirkInfo, SeriesRow

if TYPE_CHECKING:
    from perfwalk.orchestrate.findings.breaks import BreakEvent

EventKind = Literal["regression", "improvement", "mixed"]
EpisodeKind = Literal["excursion", "drift"]
#: the series whose metrics are never undecided nor given a floor: a drill's answer is
#: the drill's, a try's sides are no history (they have verdicts of their own)
ANSWERED_ELSEWHERE = frozenset({"drill", "try"})


@dataclass(frozen=True)
class CheckoutRef:
    """A checkout of a series, as a change names it."""

    idx: int
    sha: str
    date: datetime


@dataclass(frozen=True)
class Remeasure:
    """A metric's change measured again (``[run] confirm``, ``[watch] confirm``): the
    mean of the values measured again at each of its two checkouts (None: the test
    gave none there), and whether the change held
    (:func:`perfwalk.analysis.confirmation.decide_again`: by the sequential test when
    it decided, else by the answer the values are nearer to).

    Since the sequential re-measure: ``outcome`` (held, not held, undecided; "" for a
    one-pair re-measure stored before it), ``final`` (nothing more will be measured),
    both sides' values in the order measured, the change they show with its interval
    and p-value, the confidence it was decided at (%), why, and the change's rounds
    (each repetition measured again: its side, checkout, repetition, whether it was
    loaded and the load of each host, :mod:`perfwalk.store.confirmations`)."""

    before: float | None
    after: float | None
    held: bool
    outcome: str = ""
    final: bool = True
    values_before: tuple[float, ...] = ()
    values_after: tuple[float, ...] = ()
    change: float | None = None  # after against before, a share
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    confidence: float | None = None
    reason: str = ""
    rounds: tuple[Mapping[str, Any], ...] = ()

    def evidence(self, walked: float) -> Remeasured:
        """What it says of the change the walk saw (``walked``: its relative size), as
        its verdict weighs it (:func:`perfwalk.analysis.verdict.remeasured`); its size
        is the change it measured, else the move between its two means."""
        size = self.change
        if size is None and self.before is not None and self.after is not None:
            size = relative_move(self.before, self.after)
        return remeasured(
            outcome=self.outcome,
            held=self.held,
            final=self.final,
            change=size,
            low=self.low,
            high=self.high,
            p_value=self.p_value,
            repetitions=(len(self.values_before), len(self.values_after)),
            walked=walked,
        )


@dataclass(frozen=True)
class MetricChange:
    """A step in one metric between checkout ``before_idx`` and ``after_idx``.

    ``before``/``after`` are the levels: the means over the checkouts of each level
    of the metric's per-checkout summary (geometric means for positive values,
    spikes replaced by their neighbours' median); ``size`` the relative change
    ``(after - before) / |before|`` (±inf when ``before`` is 0) with its 95 %
    interval ``low`` … ``high``; ``confidence`` 1 - p of the step (nominal: see
    docs/analysis.md for the false-alarm rate); ``regression`` when the metric got
    worse in its direction.
    """

    series_id: int
    test: str
    name: str
    unit: str
    direction: Direction
    before_idx: int
    after_idx: int
    before: float
    after: float
    size: float
    low: float
    high: float
    z: float
    confidence: float
    checkouts_before: int
    checkouts_after: int
    regression: bool
    #: fewer than the metric's ``min_size`` checkouts on one side, at the start or the
    #: end of the series: at the edge, to confirm with more checkouts
    edge: bool = False
    suspect: str = ""  # why the machine's state explains it better ("" when it does not)
    remeasured: Remeasure | None = None  # measured again at the end of the walk
    #: the evidence of its verdict besides the walk (:mod:`perfwalk.analysis.verdict`):
    #: the machine's state on its two sides, the newest drill across its commits, the
    #: newest try of them (or of their culprit), the same change on other machines
    sides: Sides = field(default_factory=Sides)
    drilled: Drilled | None = None
    tried: Tried | None = None
    elsewhere: tuple[Elsewhere, ...] = ()
    found_in: str = ""  # its series as the verdict names it: "walk 1", "series 34"
    #: not found by the walk: the most likely step of a metric too noisy to judge, this
    #: share of a change it could see there, that a re-measure held (None: found)
    unseen: float | None = None
    #: the instruments of its test across it (none for an instrument's own change)
    witnesses: tuple[Witness, ...] = ()
    #: where its code lies: the symbol lists of its two checkouts compared, and the
    #: same metric in the walk's series of random layouts (:mod:`.layout_evidence`)
    code_moved: CodeMoved | None = None
    randomised: Randomised | None = None

    @property
    def evidence(self) -> Evidence:
        """Everything known of this change, as the verdict weighs it."""
        again = self.remeasured
        return Evidence(
            detected=Detected(
                label=self.found_in or f"series {self.series_id}",
                size=self.size,
                low=self.low,
                high=self.high,
                confidence=self.confidence,
                regression=self.regression,
                edge=self.edge,
                checkouts_before=self.checkouts_before,
                checkouts_after=self.checkouts_after,
                unseen=self.unseen,
            ),
            sides=self.sides,
            suspect=self.suspect,
            remeasured=None if again is None else again.evidence(self.size),
            drilled=self.drilled,
            tried=self.tried,
            elsewhere=self.elsewhere,
            witnesses=self.witnesses,
            code_moved=self.code_moved,
            randomised=self.randomised,
        )

    @cached_property
    def verdict(self) -> Verdict:
        """Its state from all its evidence, with the chain that decided it and its
        headline size (:func:`perfwalk.analysis.verdict.decide`)."""
        return decide(self.evidence)


@dataclass(frozen=True)
class ChangeEvent:
    """The changes of one series between two neighbouring measured checkouts.

    ``before`` is the last checkout of the old level, ``after`` the first of the new
    one; ``commits`` the commits in between (after ``before``, up to ``after``
    included), in the order the walk listed them; ``known_causes`` the quirks whose
    start or end lies in that range; ``ruled_out_by`` the drill (its series) that
    measured the two ends again and found they do not differ: the change is shown
    as "not confirmed", never a regression to act on. A metric's ``remeasured`` is
    what a re-measure at the end of the walk found (``[run] confirm``): a metric
    whose change did not hold there is not to act on either. A change of a variant's
    series (a walk's ``[[variant]]``, measured beside it) names the variant
    (``variant``) and its walk (``variant_of``).
    """

    series_id: int
    series_name: str
    before: CheckoutRef
    after: CheckoutRef
    commits: tuple[Commit, ...]
    known_causes: tuple[QuirkInfo, ...]
    metrics: tuple[MetricChange, ...]
    ruled_out_by: int | None = None
    variant: str | None = None  # a variant's series: the [[variant]] it measures
    variant_of: int | None = None  # … and its walk (the series of the plain checkout)
    #: a push series' change: named by these first hex digits of its after-commit
    #: (pushes of older commits move the checkout indexes), see :mod:`perfwalk.change_ids`
    commit_digits: int | None = None

    @property
    def id(self) -> str:
        """How ``perfwalk changes`` and ``perfwalk drill`` name it: SERIES:CHECKOUT (the
        checkout after the step), or SERIES:COMMIT in a push series."""
        return change_id(self.series_id, self.after.idx, self.after.sha, digits=self.commit_digits)

    def named(self, text: str) -> bool:
        """Whether the change id ``text`` names it (either form: ``change_ids``)."""
        return names_change(text, self.series_id, self.after.idx, self.after.sha)

    @property
    def before_idx(self) -> int:
        return self.before.idx

    @property
    def after_idx(self) -> int:
        return self.after.idx

    @property
    def regression(self) -> bool:
        return any(m.regression for m in self.metrics)

    @property
    def suspect(self) -> bool:
        """Every metric of it looks like the machine's doing, not a commit's."""
        return all(m.suspect for m in self.metrics)

    @property
    def confirmed(self) -> bool | None:
        """Measured again (``[run] confirm``): True when every metric measured again
        held, False when one did not; None when it was not measured again, or its
        re-measure is still undecided (it decides nothing yet)."""
        again = [m.remeasured for m in self.metrics if m.remeasured is not None]
        if not again or any(r.outcome == UNDECIDED for r in again):
            return None
        return all(r.held for r in again)

    @cached_property
    def verdict(self) -> Verdict:
        """Its metrics' verdicts as one (:func:`perfwalk.analysis.verdict.combined`):
        confirmed when one of them is, else suspect, else undecided, else a layout
        artefact, else refuted."""
        return combined([(m.verdict, m.regression) for m in self.metrics])

    @property
    def refuted(self) -> bool:
        """Measured again and not there: shown apart, never counted."""
        return self.verdict.state is State.REFUTED

    @property
    def to_act_on(self) -> bool:
        """A regression that no quirk explains and whose verdict is confirmed: what is
        shaded red and fails a check (``perfwalk changes`` exits 1)."""
        return not self.known_causes and any(
            m.regression and m.verdict.state is State.CONFIRMED for m in self.metrics
        )

    @property
    def to_decide(self) -> bool:
        """A regression that no quirk explains, none of it confirmed, whose verdict is
        suspect (nothing has measured it again yet) or undecided (too little evidence
        either way): nothing to act on yet, nothing ruled out (``perfwalk changes``
        exits 4 when it is the worst)."""
        return (
            not self.known_causes
            and not self.to_act_on
            and any(
                m.regression and m.verdict.state in (State.SUSPECT, State.UNDECIDED)
                for m in self.metrics
            )
        )

    @property
    def kind(self) -> EventKind:
        worse = [m.regression for m in self.metrics]
        if all(worse):
            return "regression"
        return "mixed" if any(worse) else "improvement"


@dataclass(frozen=True)
class MetricEpisode:
    """What one metric did that is not a step, from checkout ``first`` to ``last``:

    * ``excursion``: its values went away from their level and came back to it
      (``before`` the level around them, ``after`` their own level);
    * ``drift``: its level moved slowly, without a step (``before`` at ``first``,
      ``after`` at ``last``, on the straight line through them).

    ``size`` is ``(after - before) / |before|`` (±inf when ``before`` is 0), ``z`` the
    move over its standard error; ``worse`` when it moved the metric's worse way.
    Neither is a regression: it is shown, and never fails a check.
    """

    series_id: int
    series_name: str
    test: str
    name: str
    unit: str
    direction: Direction
    kind: EpisodeKind
    first: CheckoutRef
    last: CheckoutRef
    before: float
    after: float
    size: float
    z: float
    confidence: float
    checkouts: int
    worse: bool
    variant: str | None = None  # a variant's series: the [[variant]] it measures


@dataclass(frozen=True)
class Findings:
    """The changes of some series and what else their metrics did; ``points``: by
    series, each searched metric's per-checkout summaries (what the site cuts into
    levels at the changes: read once, for both) and what the walk could see in it."""

    changes: list[ChangeEvent]
    episodes: list[MetricEpisode]
    points: dict[int, list[MetricPoints]] = field(default_factory=dict)
    #: the builds broken and tests newly failing of the walks (perfwalk.orchestrate.findings.breaks)
    breaks: list[BreakEvent] = field(default_factory=list)

    @property
    def sights(self) -> dict[int, list[Sight]]:
        """By series, what the walk could see in each searched metric: its floor (the
        smallest change it would have found), what it left out, and the most likely
        step below the bar (``floor.candidate``, as checkout indexes). None for a
        drill's or a try's series (:data:`ANSWERED_ELSEWHERE`)."""
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
    if series_ids is None:  # a try's two sides are not a history: it has its verdicts
        chosen = [s for s in store.list_series() if s.kind != "try"]
    else:
        chosen = [store.series(i) for i in series_ids]
    found = Findings([], [])
    for series in sorted(chosen, key=lambda s: s.id):
        events, episodes, points = _series_findings(store, config, series, tuning=tuning)
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
            others[series_id] = _series_findings(
                store, config, store.series(series_id), tuning=tuning
            )[2]
        return others[series_id]

    found.changes[:] = with_layout_evidence(store, config, found.changes, points_of)
    from perfwalk.orchestrate.findings.breaks import series_breaks  # (it names CheckoutRef)

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
    return _series_findings(store, config, series, tuning=tuning)[:2]


def series_sights(
    store: Store, config: Config | None, series: SeriesRow, *, tuning: Thresholds = CONFIGURED
) -> list[Sight]:
    """What the walk could see in each searched metric of ``series`` (by test and name):
    its floor, and what it left out (``perfwalk status``, ``show``, the end of a walk);
    nothing for a drill's or a try's series (:data:`ANSWERED_ELSEWHERE`)."""
    points = _series_findings(store, config, series, tuning=tuning)[2]
    return [p.sight for p in points if p.sight is not None]


def _series_findings(
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
    position = {c.idx: i for i, c in enumerate(checkouts)}
    loaded = {key for key, found in states.items() if machine.repetition_loaded(found)}
    left_out: set[tuple[int, int]] = set()
    if config is not None and config.run.exclude_loaded:
        left_out = loaded
    every_state = states  # the left out's too: weighed when they are kept after all
    states = {key: state for key, state in states.items() if key not in left_out}
    if config is not None and not config.analysis.suspect_load:  # kept, not weighed
        states = every_state = {}
    reading = _Reading(
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
    for metric_episodes, metric_changes, metric_points in _each_metric(reading):
        episodes.extend(metric_episodes)
        points.append(metric_points)
        for change in metric_changes:
            at = (change.before_idx, change.after_idx)
            sides[at].append((change.checkouts_before, change.checkouts_after))
            found[at].append(change)
    every = _every_state(checkouts, states)
    for (before_idx, after_idx), metrics in found.items():
        counts = sides[(before_idx, after_idx)]
        found[(before_idx, after_idx)] = _together(
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
            found[at] = [_witnessed(m, points, moved, position) for m in metrics]
    by_idx = {c.idx: c for c in checkouts}
    named = naming_digits(series, checkouts)
    episodes.sort(key=lambda e: (e.test, e.name, e.first.idx))
    variant, variant_of = variant_of_series(series)
    events = [
        _remeasured(
            ChangeEvent(
                series_id=series.id,
                series_name=series.name,
                before=_ref(by_idx[before_idx]),
                after=_ref(by_idx[after_idx]),
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
    return events, episodes, points


def naming_digits(series: SeriesRow, checkouts: Sequence[CheckoutRow]) -> dict[str, int]:
    """How many hex digits of each commit name its change (:func:`change_id`): a push
    series' changes are named by their commits (its indexes move); none for the others."""
    return commit_digits([c.sha for c in checkouts]) if series.kind == PUSH_KIND else {}


def variant_of_series(series: SeriesRow) -> tuple[str | None, int | None]:
    """(the variant, its walk) when ``series`` is a variant's (kind ``variant``: it is
    analysed as a walk of its own); (None, None) for any other series."""
    if series.kind != "variant":
        return None, None
    return series.variant_name, series.parent_id


class _Reading(NamedTuple):
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


def _each_metric(reading: _Reading) -> list[_MetricFindings]:
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
    reading: _Reading, rows: Sequence[PassedValue]
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
    reading: _Reading, key: tuple[str, str], metric: _Metric, policy: MetricPolicy
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


def _grouped(reading: _Reading, rows: Sequence[PassedValue]) -> dict[tuple[str, str], _Metric]:
    """The values of ``rows`` by metric (test and name), without the re-measures
    (``[run] confirm``) and the repetitions left out (``[run] exclude_loaded``). An
    instrument's metric keeps them and has no machine's state: the machine's load does
    not touch it, it is judged on its values alone (never suspect)."""
    planned = reading.series.planned_repetitions
    position, states, left_out = reading.position, reading.states, reading.left_out
    loaded = reading.loaded
    count = len(reading.checkouts)
    grouped: dict[tuple[str, str], _Metric] = {}
    for checkout_idx, repetition_idx, test, name, unit, value, direction_name in rows:
        if planned is not None and repetition_idx >= planned:  # a re-measure
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
    reading: _Reading,
    described: tuple[str, str, str, Direction],
    metric: _Metric,
    detection: Detection,
    weighed: dict[tuple[int, ...], dict[str, machine.Side]],
) -> tuple[list[MetricEpisode], list[MetricChange]]:
    """The episodes and changes of one metric, each change weighed against the
    machine's state of its two sides."""
    series, checkouts = reading.series, reading.checkouts
    episodes = [
        _episode(series, checkouts, described, episode)
        for episode in (*detection.excursions, *detection.drifts)
    ]
    changes = [
        _weighed(reading, described, metric, change, weighed=weighed)
        for change in (*detection.changes, *detection.edges)
    ]
    return episodes, changes


def _weighed(
    reading: _Reading,
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
    left = _side(sets, measured, change.previous, -1, change.points_before, weighed=weighed)
    right = _side(sets, measured, change.index, 1, change.points_after, weighed=weighed)
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
        sides=replace(_sides(left, right), immune=load_immune(name)),
        found_in=f"{'walk' if series.kind == 'walk' else 'series'} {series.id}",
        unseen=unseen,
    )


def _most_likely_step(
    reading: _Reading,
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
    again = None if row is None else _stored_remeasure(row, sight.test, sight.name)
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


#: an instrument's change this many checkouts from a metric's own is the same one
#: (a detector may place a step a checkout or two away)
WITNESS_NEAR = 2


def _witnessed(
    change: MetricChange,
    points: Sequence[MetricPoints],
    moved: Mapping[tuple[str, str, int], MetricChange],
    position: Mapping[int, int],
) -> MetricChange:
    """``change`` (of a metric that is no instrument's) with what each instrument of
    its test that counts the code's work (:func:`perfwalk.config.instruments.counts_work`)
    did across it (:class:`perfwalk.analysis.verdict.Witness`): its own change
    there (``moved``: every change of the series by test, metric and the position of its
    first checkout; within :data:`WITNESS_NEAR` checkouts), else its move between the
    medians of the change's two levels, and the smallest change it could have seen."""
    if load_immune(change.name):
        return change
    at = position[change.after_idx]
    witnesses = []
    for metric in points:
        if metric.test != change.test or not counts_work(metric.name):
            continue
        near = [
            moved[key]
            for shift in sorted(range(-WITNESS_NEAR, WITNESS_NEAR + 1), key=abs)
            if (key := (metric.test, metric.name, at + shift)) in moved
        ]
        if near:
            witnesses.append(Witness(metric.name, near[0].size, found=True))
            continue
        size = metric.moved(
            change.before_idx, change.after_idx, change.checkouts_before, change.checkouts_after
        )
        witnesses.append(Witness(metric.name, size, found=False, floor=metric.floor))
    return replace(change, witnesses=tuple(witnesses)) if witnesses else change


def _sides(before: Mapping[str, machine.Side], after: Mapping[str, machine.Side]) -> Sides:
    """The machine's state on a change's two sides as its verdict tells it: of the
    hosts, the most repetitions with a state and the most loaded, on each side."""
    return Sides(
        before=max((s.n for s in before.values()), default=0),
        before_loaded=max((s.loaded for s in before.values()), default=0),
        after=max((s.n for s in after.values()), default=0),
        after_loaded=max((s.loaded for s in after.values()), default=0),
    )


def _episode(
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
        first=_ref(checkouts[episode.start]),
        last=_ref(checkouts[episode.end - 1]),
        before=episode.before,
        after=episode.after,
        size=size,
        z=episode.z,
        confidence=episode.confidence,
        checkouts=episode.end - episode.start,
        worse=moved < 0 if direction is Direction.HIGHER else moved > 0,
        variant=variant_of_series(series)[0],
    )


def _remeasured(event: ChangeEvent, row: ConfirmationRow | None) -> ChangeEvent:
    """``event`` with what the re-measure of its two checkouts found for each metric."""
    if row is None:
        return event
    metrics = [
        replace(metric, remeasured=_stored_remeasure(row, metric.test, metric.name))
        for metric in event.metrics
    ]
    return replace(event, metrics=tuple(metrics))


def _stored_remeasure(row: ConfirmationRow, test: str, name: str) -> Remeasure | None:
    """What the re-measure ``row`` found for the metric ``test.name`` (None: it did not
    measure that metric)."""
    found = row.metric(test, name)
    if found is None:
        return None
    return Remeasure(
        number_in(found.get("measured_before")),
        number_in(found.get("measured_after")),
        bool(found.get("held")),
        outcome=str(found.get("outcome") or row.outcome or ""),
        final=bool(found.get("final", row.final)),
        values_before=numbers_in(found.get("values_before")),
        values_after=numbers_in(found.get("values_after")),
        change=number_in(found.get("change")),
        low=number_in(found.get("low")),
        high=number_in(found.get("high")),
        p_value=number_in(found.get("p_value")),
        confidence=number_in(found.get("confidence")),
        reason=str(found.get("reason") or ""),
        rounds=row.rounds,
    )


def _side(
    sets: Sequence[Sequence[float]],
    measured: Sequence[Sequence[HostStates]],
    start: int,
    step: int,
    points: int,
    *,
    weighed: dict[tuple[int, ...], dict[str, machine.Side]],
) -> dict[str, machine.Side]:
    """The machine's state of each host over the ``points`` measured checkouts from
    ``start`` on, going ``step`` (-1: back), of one metric. ``weighed`` keeps the sides
    of the repetitions already weighed (by the identities of their states, which live
    as long as the series' analysis): the metrics of a change mostly share them."""
    found: list[HostStates] = []
    at = start
    while points > 0 and 0 <= at < len(sets):
        if sets[at]:
            found.extend(measured[at])
            points -= 1
        at += step
    key = tuple(map(id, found))
    sides = weighed.get(key)
    if sides is None:
        sides = weighed[key] = machine.host_sides(found)
    return sides


def _every_state(
    checkouts: Sequence[CheckoutRow], states: Mapping[tuple[int, int], HostStates]
) -> list[list[HostStates]]:
    """The states of every repetition, by checkout position."""
    position = {c.idx: i for i, c in enumerate(checkouts)}
    found: list[list[HostStates]] = [[] for _ in checkouts]
    for (checkout_idx, _rep), state in states.items():
        if checkout_idx in position:
            found[position[checkout_idx]].append(state)
    return found


def _together(
    metrics: list[MetricChange],
    every: list[list[HostStates]],
    *,
    before: int,
    after: int,
    points_before: int,
    points_after: int,
) -> list[MetricChange]:
    """``metrics`` (the changes at one checkout), all marked suspect when many moved in
    the same sense while the machine's state changed (but the instruments' metrics,
    load-immune by declaration)."""
    for worse in (True, False):
        same = [m for m in metrics if m.regression is worse and not load_immune(m.name)]
        if len(same) < machine.MANY_METRICS:
            continue
        left = machine.host_sides(
            s for states in every[max(before - points_before + 1, 0) : before + 1] for s in states
        )
        right = machine.host_sides(
            s for states in every[after : after + points_after] for s in states
        )
        sizes = [m.size for m in same]
        why = machine.together_hosts(left, right, len(same), worse_after=worse, sizes=sizes)
        if why:
            return [replace(m, suspect=m.suspect or why) if m in same else m for m in metrics]
    return metrics


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


def _ref(checkout: CheckoutRow) -> CheckoutRef:
    return CheckoutRef(checkout.idx, checkout.sha, checkout.date)


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


def summary_of(policy: str, direction: Direction) -> Callable[[Sequence[float]], float]:
    """The per-checkout summary of a metric's policy: mean, median or best-of-N."""
    if policy == "mean":
        return scaled.mean
    if policy == "best":
        return max if direction is Direction.HIGHER else min
    return scaled.median
