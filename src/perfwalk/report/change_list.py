"""The changes the analysis found: one :class:`ListedChange` per metric that
stepped, with its commit range and, when a drill found one, its culprit; one
:class:`ListedEpisode` per excursion or drift. Plain records: the analysis and the
drills fill them in; the site (its "Changes" table, the marks on its tables and
plots, the banners of its checkout pages), the Markdown report
(:mod:`perfwalk.report.markdown`) and the Atom feed (:mod:`perfwalk.report.feed`)
only render them. A site can be published with or without an analysis (an empty
list marks nothing).

A change or finding of a walk's variant (a series of kind ``variant``) carries the
variant's name, shown with its series' (:attr:`ListedChange.series_label`).

Every text in them (series names, metric names, commit subjects and authors) is
untrusted and escaped by whatever renders it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from perfwalk.analysis.counter_moves import CounterMove
from perfwalk.analysis.verdict import Measurement
from perfwalk.change_ids import change_id
from perfwalk.quantities import format_levels, format_size


@dataclass(frozen=True)
class Culprit:
    """The commit a drill of the change named: the first one at the new level."""

    sha: str
    subject: str  # "" when the drill's commit is not among the change's commits
    author: str
    drill: int  # the drill's series


@dataclass(frozen=True)
class DrillMark:
    """What the newest finished drill across a change's commits answered: its verdict
    ("culprit", "range", "undecided", "no-change"), the range ``lo`` (exclusive) …
    ``hi`` (inclusive) it narrowed the change to, and why it stopped."""

    drill: int  # the drill's series
    verdict: str
    lo: str
    hi: str
    reason: str = ""
    #: what undoing its culprit on the newest tip it was proved on found
    #: (:meth:`perfwalk.store.proofs.ProofRow.said`); "": never proved
    proof: str = ""


TriageState = Literal["acknowledged", "expected", "invalid", "fixed"]
TRIAGE_STATES: tuple[TriageState, ...] = ("acknowledged", "expected", "invalid", "fixed")


@dataclass(frozen=True)
class TriageMark:
    """A person's word on a change, the newest of its history: what it is, who said
    it, when and why (and the bug that tracks it). A change without one is
    "untriaged"."""

    state: TriageState
    reason: str
    who: str
    at: datetime
    bug: str = ""


@dataclass(frozen=True)
class ListedChange:
    """A step in one metric of one series between checkouts ``before_idx`` and
    ``after_idx`` (commits ``before_sha`` exclusive … ``after_sha`` inclusive).

    ``size`` is relative (-0.12 for 12 % less, ±inf from a level of 0) with its 95 %
    interval ``low`` … ``high``, as the walk found it; ``date`` the date of the
    checkout after the step; ``state`` its verdict (confirmed, refuted, suspect,
    undecided: :mod:`perfwalk.analysis.verdict`) with its ``chain`` of evidence and its
    ``headline`` size (the best evidence's measurement, with its source); ``note`` why
    it is not to act on though detected ("refuted by drill 7 (NO-CHANGE…)", "suspect:
    …", "known cause: quirk A"), "" when it is; ``unconfirmed`` the part of it the
    tables and plots shade grey (what its verdict said, not a quirk); ``confirmed``
    when a re-measure at the end of its walk (``[run] confirm``) found it held.
    """

    series_id: int
    series_name: str
    test: str
    name: str
    unit: str
    regression: bool
    before: float
    after: float
    size: float
    low: float
    high: float
    confidence: float
    before_idx: int
    after_idx: int
    before_sha: str
    after_sha: str
    date: datetime
    commits: int
    note: str = ""
    culprit: Culprit | None = None
    drill: DrillMark | None = None  # the newest finished drill across its commits
    triage: TriageMark | None = None  # None: untriaged
    unconfirmed: str = ""
    confirmed: bool = False
    variant: str | None = None  # a walk's variant's series: the variant it measures
    commit_digits: int | None = None  # a push series' change: named by its after-commit
    state: str = "confirmed"
    chain: tuple[str, ...] = ()
    headline: Measurement | None = None  # None: the walk's
    known_causes: tuple[str, ...] = ()  # the letters of the quirks that explain it
    #: a break, not a speed change: "build" (a build that fails after one that built) or
    #: "test" (a test that fails after it passed), with the two statuses; "" for a speed
    #: change (perfwalk.orchestrate.findings.breaks)
    broke: str = ""
    statuses: tuple[str, ...] = ()
    #: the commits of its range (after ``before_sha``, up to ``after_sha``), as the
    #: walk listed them; () when not known (its commit after the step stands for them)
    range_shas: tuple[str, ...] = ()
    host: str = ""  # the host its series was measured on
    author: str = ""  # a one-commit range: its commit's author and subject
    subject: str = ""
    #: the [[snapshot]] counters that moved with its change, ranked
    #: (:mod:`perfwalk.analysis.counter_moves`)
    counters: tuple[CounterMove, ...] = ()

    @property
    def series_label(self) -> str:
        """Its series as the pages and messages name it: a variant's names its variant."""
        return series_label(self.series_name, self.variant)

    @property
    def measured(self) -> Measurement:
        """Its one headline size with its source (the walk's, unless better evidence
        measured it)."""
        if self.headline is not None:
            return self.headline
        return Measurement(
            self.size, f"series {self.series_id}", self.low, self.high, self.confidence
        )

    def size_text(self) -> str:
        """ "+41.7 % (drill 6)": its one size, wherever it is shown; a break's kind,
        "build broken", "test failing"."""
        if self.broke:
            return self.word
        return self.measured.text()

    def levels_text(self) -> str:
        """ "940.0 Mbit/s → 752.0 Mbit/s": the levels before and after, with the unit; a
        break's statuses, "PASS → NOEXIST"."""
        if self.broke:
            return " → ".join(self.statuses)
        return format_levels(self.before, self.after, self.unit)

    def size_and_interval(self) -> str:
        """ "-20.0 % (walk 1), 95 % interval -21.0 % … -19.0 %"; "+41.7 % (drill 6)"."""
        if self.broke:
            return self.size_text()
        measured = self.measured
        interval = measured.interval()
        return f"{measured.text()}, 95 % interval {interval}" if interval else measured.text()

    def confidence_text(self) -> str:
        """ "> 99.99 %", "99.98 %": its one confidence, wherever it is shown; a break's
        status is no estimate: "status"."""
        if self.broke:
            return "status"
        return self.measured.confidence_text()

    def told(self) -> str:
        """Its verdict and chain on one line: "suspect: detected in walk 1 at > 99.99 %;
        suspect: machine load: …"."""
        return f"{self.state}: {'; '.join(self.chain)}" if self.chain else self.state

    @property
    def cause(self) -> str:
        """Its note when its chain does not say it already (a known cause); ""."""
        return "" if self.note in self.chain else self.note

    @property
    def refuted(self) -> bool:
        """Measured again and not there: shown apart, never counted."""
        return self.state == "refuted"

    @property
    def id(self) -> str:
        """How ``perfwalk changes`` names it: SERIES:CHECKOUT (the one after the step),
        or SERIES:COMMIT in a push series (:mod:`perfwalk.change_ids`)."""
        return change_id(self.series_id, self.after_idx, self.after_sha, digits=self.commit_digits)

    @property
    def key(self) -> tuple[int, str, str]:
        """What names the change across walks continued and analyses rerun: its series
        and commit range. Triage and notifications are stored under it, so a change
        detected again on the same range keeps them."""
        return (self.series_id, self.before_sha, self.after_sha)

    @property
    def triage_state(self) -> str:
        return "untriaged" if self.triage is None else self.triage.state

    @property
    def needs_action(self) -> bool:
        """An untriaged regression, not refuted: what the default views show."""
        return self.regression and self.triage is None and not self.refuted

    @property
    def kind(self) -> Literal["regression", "improvement"]:
        return "regression" if self.regression else "improvement"

    @property
    def word(self) -> str:
        """How its table cell is marked: "regression", "improvement"; "build broken",
        "test failing" for a break."""
        if self.broke:
            return f"{self.broke} {'broken' if self.broke == 'build' else 'failing'}"
        return self.kind

    @property
    def verdict(self) -> Literal["better", "worse"]:
        """Which way it moved the metric, said in a word beside its arrow."""
        return "worse" if self.regression else "better"

    @property
    def arrow(self) -> str:
        """ "▲" when the value went up, "▼" when it went down (whichever is better), by
        its headline size; "✗" for a break."""
        if self.broke:
            return "✗"
        return arrow(self.measured.size)

    def moved(self) -> str:
        """ "▲ +79.0 % (drill 6) worse", "▼ -40.0 % (walk 1) better": where the value
        went, by how much (its headline size, with its source), and what it means."""
        return f"{self.arrow} {self.size_text()} {self.verdict}"

    @property
    def metric(self) -> str:
        """ "latency.p50"; a break's: "build", "check (status)"."""
        if self.broke == "build":
            return "build"
        if self.broke:
            return f"{self.test} (status)"
        return f"{self.test}.{self.name}"

    def describe(self) -> str:
        """Its table cell's tooltip: "regression: ▼ -20.0 % (walk 1, …) worse between
        checkouts 2 and 3 (confirmed: detected in walk 1 at > 99.99 %, both sides
        quiet)"."""
        return (
            f"{self.word}: {self.moved()} between checkouts {self.before_idx} and "
            f"{self.after_idx} ({self.told()})"
        )


@dataclass(frozen=True)
class ListedEpisode:
    """An excursion (away from the level and back) or a drift (a slow move) of one
    metric over checkouts ``first_idx`` … ``last_idx``: shown, never a regression."""

    series_id: int
    series_name: str
    test: str
    name: str
    kind: Literal["excursion", "drift"]
    first_idx: int
    last_idx: int
    size: float  # relative, e.g. -0.12 for 12 % less (±inf from a level of 0)
    worse: bool  # moved the metric's worse way
    #: the levels: an excursion's surroundings and its own; a drift's at its first
    #: and at its last checkout (the ends of the line the plot draws); NaN: unknown
    before: float = math.nan
    after: float = math.nan
    variant: str | None = None  # a walk's variant's series: the variant it measures

    @property
    def series_label(self) -> str:
        return series_label(self.series_name, self.variant)

    @property
    def metric(self) -> str:
        return f"{self.test}.{self.name}"

    def spans(self, idx: int) -> bool:
        return self.first_idx <= idx <= self.last_idx

    def describe(self) -> str:
        """Its tooltip: "excursion: -12.3 % over checkouts 5–7, recovered", "drift: +5.0 %
        over checkouts 0–199"."""
        where = (
            f"at checkout {self.first_idx}"
            if self.first_idx == self.last_idx
            else f"over checkouts {self.first_idx}–{self.last_idx}"
        )
        told = f"{self.kind}: {relative_size(self.size)} {where}"
        return f"{told}, recovered" if self.kind == "excursion" else told


def series_label(name: str, variant: str | None) -> str:
    """ "nightly", "nightly (fast) · variant fast": a variant's series is named by its
    variant whatever its name says."""
    return f"{name} · variant {variant}" if variant is not None else name


def arrow(size: float) -> str:
    """ "▲" for a value that went up, "▼" for one that went down ("" for none)."""
    return "▲" if size > 0 else "▼" if size < 0 else ""


#: how a change is counted, in this order: a regression or an improvement confirmed,
#: one neither confirmed nor refuted yet, one the machine's state explains, one
#: confirmed that a quirk explains; a refuted change is not counted
_COUNTED = (
    ("regression", "regressions"),
    ("improvement", "improvements"),
    ("undecided", "undecided"),
    ("suspect", "suspect"),
    ("not to act on", "not to act on"),
)


def _counted_as(change: ListedChange) -> str | None:
    """How ``change`` is counted (:data:`_COUNTED`); None: refuted, not counted."""
    if change.refuted:
        return None
    if change.state in ("suspect", "undecided"):
        return change.state
    return "not to act on" if change.note else change.kind  # confirmed: a known cause


def counted_as(changes: Iterable[ListedChange]) -> str | None:
    """How ``changes`` counted as one are counted: as the first of :data:`_COUNTED` any
    of them is; None when all are refuted (not counted)."""
    order = [one for one, _many in _COUNTED]
    kinds = [kind for c in changes if (kind := _counted_as(c)) is not None]
    return min(kinds, key=order.index) if kinds else None


def told_counts(kinds: Iterable[tuple[str, bool]]) -> str:
    """ "2 regressions (1 triaged), 1 improvement" of each counted thing's kind (one of
    :data:`_COUNTED`) and whether it is triaged; "" for none."""
    listed = list(kinds)
    told = []
    for one, many in _COUNTED:
        found = [triaged for kind, triaged in listed if kind == one]
        if found:
            done = sum(found)
            said = f" ({done} triaged)" if done else ""
            told.append(f"{len(found)} {one if len(found) == 1 else many}{said}")
    return ", ".join(told)


def counted(changes: list[ListedChange]) -> str:
    """ "2 regressions (1 triaged), 1 improvement, 1 undecided, 1 suspect, 1 not to act
    on (5 metrics)"; "no changes". A change is a series and commit range
    (:attr:`ListedChange.key`), however many of its metrics moved: counted as the
    first of :data:`_COUNTED` any of its metrics is, triaged when any of them is; a
    refuted change is not counted (it is shown apart). The metrics are told when there
    are more of them than changes."""
    by_key: dict[tuple[int, str, str], list[ListedChange]] = {}
    for c in changes:
        if not c.refuted:
            by_key.setdefault(c.key, []).append(c)
    told = told_counts(
        (kind, any(c.triage is not None for c in members))
        for members in by_key.values()
        if (kind := counted_as(members)) is not None
    )
    metrics = sum(len(members) for members in by_key.values())
    shown = f" ({metrics} metrics)" if metrics > len(by_key) else ""
    return told + shown if told else "no changes"


def relative_size(size: float) -> str:
    """ "+5.0 %", "-12.3 %", "+150 %"; a move from a level of 0 has no relative size:
    "from 0 up" (:func:`perfwalk.quantities.format_size`)."""
    return format_size(size)


def by_series(changes: Iterable[ListedChange]) -> dict[int, list[ListedChange]]:
    found: dict[int, list[ListedChange]] = defaultdict(list)
    for change in changes:
        found[change.series_id].append(change)
    return {
        sid: sorted(marks, key=lambda c: (c.test, c.name, c.after_idx))
        for sid, marks in found.items()
    }


def episodes_by_series(episodes: Iterable[ListedEpisode]) -> dict[int, list[ListedEpisode]]:
    found: dict[int, list[ListedEpisode]] = defaultdict(list)
    for episode in episodes:
        found[episode.series_id].append(episode)
    return {
        sid: sorted(marks, key=lambda e: (e.test, e.name, e.first_idx, e.kind))
        for sid, marks in found.items()
    }
