"""What every page of a series needs besides its own checkouts: the series, all its
checkouts, the commit-link template, zoom links, the changes to mark, the other
findings (excursions, drifts) to show and, for a walk measured with A/B variants,
the series of each variant (shown beside its own checkouts)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from perfwalk.report import layout
from perfwalk.report.change_list import ListedChange, ListedEpisode
from perfwalk.report.releases import Release
from perfwalk.report.series_levels import MetricLevels
from perfwalk.report.times import UTC_TIMES, SiteTimes
from perfwalk.store import CheckoutRow, SeriesRow
from perfwalk.store.build_facts import CheckoutFacts
from perfwalk.store.histograms import HistogramRow
from perfwalk.untrusted import commit_address


@dataclass(frozen=True)
class Zoom:
    """A finer series that covers the interval before a checkout."""

    series_id: int
    label: str  # first date / step, e.g. ``2024-01-03/1hour``


@dataclass(frozen=True)
class SeriesContext:
    series: SeriesRow
    checkouts: Sequence[CheckoutRow]
    commit_url: str = ""
    #: ``[project] file_url``: a web viewer's address of a file at a commit ("": none)
    file_url: str = ""
    zooms: dict[int, tuple[Zoom, ...]] = field(default_factory=dict)  # checkout idx → zooms
    changes: Sequence[ListedChange] = ()
    episodes: Sequence[ListedEpisode] = ()
    #: a walk's variants (``[[variant]]``, measured beside it): their series (kind
    #: ``variant``, this one their parent) in the order their columns are shown
    variants: Sequence[SeriesContext] = ()
    #: a walk with variants and each of them: (variant, series id) of each of the walk's
    #: columns, the plain checkout's (``base``) first; () for any other series
    columns: tuple[tuple[str, int], ...] = ()
    #: what each checkout really ran (kernel, compiler, symbol list), by checkout index
    facts: Mapping[int, CheckoutFacts] = field(default_factory=dict)
    #: the profiles that hold samples, by checkout index: (test, profile id) each
    profiles: Mapping[int, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    #: the project's releases (``[[release]]``), in date order, marked on its plots
    releases: Sequence[Release] = ()
    #: a drill's levels: the checkouts that begin a level by its answer (its culprit; the
    #: ends of a range it could not narrow), for every metric it measured; None: no drill
    drilled: tuple[int, ...] | None = None
    #: the levels of each metric (test, name) over the whole series, cut where
    #: :meth:`level_starts` says; None when the publish was given no summaries
    levels: Mapping[tuple[str, str], MetricLevels] | None = None
    #: the site's time zone: how its pages write a time
    times: SiteTimes = UTC_TIMES
    #: what the parsers lost at each checkout (by index), said per test
    #: (:func:`perfwalk.report.parser_findings.stored_losses`)
    lost: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    #: the histograms its tests reported whole, by checkout index
    #: (:func:`perfwalk.report.heatmaps.by_checkout`)
    histograms: Mapping[int, tuple[HistogramRow, ...]] = field(default_factory=dict)
    _positions: dict[int, int] = field(default_factory=dict, repr=False, compare=False)

    @property
    def id(self) -> int:
        return self.series.id

    def commit_href(self, sha: str) -> str | None:
        return commit_address(self.commit_url, sha) if self.commit_url else None

    def blocks(self) -> list[Sequence[CheckoutRow]]:
        """The checkouts cut into plot blocks (each a whole number of table pages)."""
        size = layout.PLOT_BLOCK
        return [self.checkouts[i : i + size] for i in range(0, len(self.checkouts), size)]

    @property
    def variant_name(self) -> str:
        """The variant the series measures: ``base`` for the plain checkout."""
        return self.series.variant_name

    def level_starts(self, test: str, name: str) -> tuple[int, ...]:
        """The checkouts (indexes) where a metric's level begins anew: after each of its
        detected changes; on a drill's series, where its answer put the step (the
        commits it tried are no history: their values on both sides of the culprit are
        two levels, whichever metric); for a try, at each side (never one level)."""
        if self.series.kind == "try":
            return tuple(row.idx for row in self.checkouts[1:])
        if self.drilled is not None:
            return self.drilled
        return tuple(c.after_idx for c in self.changes if c.test == test and c.name == name)

    def position(self, idx: int) -> int:
        """The 0-based position of checkout ``idx`` in the series."""
        if not self._positions:
            self._positions.update({row.idx: pos for pos, row in enumerate(self.checkouts)})
        return self._positions[idx]


def zoom_links(
    every: Sequence[SeriesRow],
    checkouts: Mapping[int, Sequence[CheckoutRow]],
    times: SiteTimes = UTC_TIMES,
) -> dict[int, dict[int, tuple[Zoom, ...]]]:
    """For each series, the finer series covering the interval before each checkout
    (labelled by its first day in the site's ``times``).

    Series T zooms into checkout c of series S (T ≠ S) when T's checkouts (two or
    more) all lie between S's checkout before c and c itself, or when T is S's
    child (``parent_id``: a finer walk started from S) and overlaps that interval.
    A variant's series (kind ``variant``) zooms into nothing: it is its walk, measured
    with the variant, and its page is reached from its walk's columns; nor has it
    zooms (a finer walk measured the plain checkout, not the variant). Nor does a try
    (kind ``try``) zoom into anything or have zooms: its two sides are no history.
    """
    spans: dict[int, tuple[datetime, datetime]] = {
        s.id: (checkouts[s.id][0].date, checkouts[s.id][-1].date) for s in every if checkouts[s.id]
    }
    found: dict[int, dict[int, list[Zoom]]] = defaultdict(lambda: defaultdict(list))
    for outer in every:
        if outer.kind == "try" or is_variant(outer):
            continue
        rows = checkouts[outer.id]
        for inner in every:
            if inner.id == outer.id or inner.id not in spans or is_variant(inner):
                continue
            if inner.kind == "try":
                continue
            first, last = spans[inner.id]
            child = inner.parent_id == outer.id
            if not child and len(checkouts[inner.id]) < 2:
                continue
            for before, after in itertools.pairwise(rows):
                inside = before.date <= first and last <= after.date
                overlaps = first < after.date and before.date < last  # more than an end
                if inside or (child and overlaps):
                    label = f"{times.day(first)}/{inner.step}"
                    found[outer.id][after.idx].append(Zoom(inner.id, label))
    return {sid: {idx: tuple(zooms) for idx, zooms in per.items()} for sid, per in found.items()}


def is_variant(series: SeriesRow) -> bool:
    """Whether ``series`` measures a ``[[variant]]`` beside its walk (its parent)."""
    return series.kind == "variant"


def kind_of(series: SeriesRow) -> str:
    """What a series is, as the index and ``perfwalk list`` say it: walk, zoom (a walk
    inside another's interval), drill, ``variant NAME`` (a walk's variant)."""
    if series.kind == "drill":
        return "drill"
    if is_variant(series):
        return f"variant {series.variant_name}"
    if series.kind != "walk":
        return series.kind
    return "zoom" if series.parent_id is not None else "walk"


def variants_of(every: Sequence[SeriesRow]) -> dict[int, list[SeriesRow]]:
    """Walk id → the series of its variants, oldest first (the order a walk creates
    them: its columns' order); variants whose walk is not in ``every`` are left out."""
    ids = {s.id for s in every}
    found: dict[int, list[SeriesRow]] = defaultdict(list)
    for s in sorted(every, key=lambda s: s.id):
        if is_variant(s) and s.parent_id is not None and s.parent_id in ids:
            found[s.parent_id].append(s)
    return dict(found)
