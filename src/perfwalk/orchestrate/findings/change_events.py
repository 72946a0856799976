"""The changes of stored series as records: one :class:`ChangeEvent` per series and
commit range, grouping the metrics that changed there (:class:`MetricChange`, each
with its evidence and verdict), and what a metric did that is not a step
(:class:`MetricEpisode`); how a change names its checkouts, its variant and its
commit digits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, Literal

from perfwalk.analysis.confirmation import UNDECIDED
from perfwalk.analysis.confirmation import moved as relative_move
from perfwalk.analysis.counter_moves import CounterMove
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
from perfwalk.model import Commit, Direction
from perfwalk.store.pushes import PUSH_KIND
from perfwalk.store.records import CheckoutRow, QuirkInfo, SeriesRow

EventKind = Literal["regression", "improvement", "mixed"]
EpisodeKind = Literal["excursion", "drift"]


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
    #: the [[snapshot]] counters around its tests that moved with it per unit of work,
    #: ranked (:mod:`perfwalk.analysis.counter_moves`): what it did on the host
    counters: tuple[CounterMove, ...] = ()

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


def checkout_ref(checkout: CheckoutRow) -> CheckoutRef:
    return CheckoutRef(checkout.idx, checkout.sha, checkout.date)


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
