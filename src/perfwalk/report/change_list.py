"""The changes as a list to post or to subscribe to: one :class:`ListedChange` per
metric that stepped, with its commit range and, when a drill found one, its culprit;
one :class:`ListedEpisode` per excursion or drift. Plain records: the analysis and
the drills fill them in, the Markdown report (:mod:`perfwalk.report.markdown`) and
the Atom feed (:mod:`perfwalk.report.feed`) only render them.

Every text in them (series names, metric names, commit subjects and authors) is
untrusted and escaped by whatever renders it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Literal


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
    interval ``low`` … ``high``; ``date`` the date of the checkout after the step;
    ``note`` why it is not to act on though detected ("not confirmed by drill 7",
    "suspect: …", "known cause: quirk A"), "" when it is.
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
    def kind(self) -> Literal["regression", "improvement"]:
        return "regression" if self.regression else "improvement"

    @property
    def metric(self) -> str:
        return f"{self.test}.{self.name}"


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
    size: float
    worse: bool

    @property
    def metric(self) -> str:
        return f"{self.test}.{self.name}"


def percent(value: float) -> str:
    """ "+79 %", "-12.3 %": three significant digits; a move from 0 has no percentage."""
    if not math.isfinite(value):
        return "from 0 " + ("up" if value > 0 else "down")
    shown = value * 100
    return f"{shown:+.0f} %" if abs(shown) >= 100 else f"{shown:+.3g} %"


def confidence(value: float) -> str:
    return "> 99.99 %" if value > 0.9999 else f"{value * 100:.2f} %"


def counted(changes: list[ListedChange]) -> str:
    """ "2 regressions (1 triaged), 1 improvement, 1 not to act on (5 metrics)"; "no
    changes". A change is a series and commit range (:attr:`ListedChange.key`), however
    many of its metrics moved: a regression when one of them got worse and is to act
    on, else an improvement when one is to act on, else not to act on. The metrics
    are told when there are more of them than changes."""
    kinds: dict[tuple[int, str, str], str] = {}
    triaged: set[tuple[int, str, str]] = set()
    for c in changes:
        kind = "not to act on" if c.note else c.kind
        order = ("regression", "improvement", "not to act on")
        known = kinds.get(c.key, kind)
        kinds[c.key] = min(kind, known, key=order.index)
        if c.triage is not None:
            triaged.add(c.key)
    told = []
    for one, many in (
        ("regression", "regressions"),
        ("improvement", "improvements"),
        ("not to act on", "not to act on"),
    ):
        keys = [key for key, kind in kinds.items() if kind == one]
        if keys:
            done = sum(key in triaged for key in keys)
            said = f" ({done} triaged)" if done else ""
            told.append(f"{len(keys)} {one if len(keys) == 1 else many}{said}")
    metrics = f" ({len(changes)} metrics)" if len(changes) > len(kinds) else ""
    return ", ".join(told) + metrics if told else "no changes"
