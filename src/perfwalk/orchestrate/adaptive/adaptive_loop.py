"""An adaptive walk measured (``perfwalk run --adaptive --budget N``): one checkout at
a time, the one :func:`perfwalk.analysis.adaptive_walk.next_checkout` chooses from the
levels measured so far, or more repetitions of a checkout measured already, until it
stops. Those more repetitions are planned at the checkout first
(``checkout.planned_repetitions``): they are its own, read by ``perfwalk changes`` as
the walk's, not re-measures; a checkout re-measured already gets none.

Its plan's checkouts are every commit of its first-parent line, each indexed by its
place on the line: the series' checkouts are those measured, in first-parent order,
each with the commits since the measured one before it (corrected on the checkout
after it when a checkout is measured between two). Its quirks hold (patches, build
steps, tests replaced) as at any checkout; their commands run when crossed are not
run, as in a drill: its checkouts are not measured in the order of the line.
A resumed adaptive walk goes on from what its series has: first the repetitions
planned at a checkout and not measured yet (interrupted), numbered on.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from perfwalk.analysis.adaptive_walk import More, Next, Search, Stop, Values, next_checkout
from perfwalk.analysis.thresholds import CONFIGURED
from perfwalk.config.policy import metric_policy
from perfwalk.model import Direction, Status
from perfwalk.orchestrate.checkout.quirks import applying
from perfwalk.orchestrate.findings.metric_search import summary_of
from perfwalk.orchestrate.walk.plan import PlannedCheckout, WalkPlan
from perfwalk.orchestrate.walk.walk import Walk
from perfwalk.orchestrate.walk.walk_progress import Frame


@dataclass(frozen=True)
class AdaptiveEnd:
    """How an adaptive walk ended: the checkouts of its line it has (measured, or
    whose build failed), and why it stopped."""

    checkouts: tuple[PlannedCheckout, ...]
    reason: str


def walk_adaptively(
    walk: Walk, plan: WalkPlan, say: Callable[[str], None] = lambda _s: None
) -> AdaptiveEnd:
    """Measure the checkouts of the adaptive ``plan`` that the levels ask for, within
    its budget, and more repetitions of those whose level beside a step is not clear;
    ``say`` hears each choice and why."""
    assert plan.budget is not None
    line = plan.checkouts
    last = len(line) - 1
    config = walk.config
    tried: set[int] = set()  # measured by this process: once each, whatever they gave
    settled: set[int] = set()  # asked for more by this process, and gave none
    try:
        while True:
            stand = _stand(walk)
            failed = stand.failed | (tried - set(stand.measured))
            taken = sorted({*stand.measured, *failed})
            choice: Next | More | Stop
            if stand.short:  # more repetitions planned and not measured (interrupted)
                at, missing = min(stand.short.items())
                choice = More(at, missing, "the repetitions planned at it before")
            else:
                choice = next_checkout(
                    0,
                    last,
                    stand.measured,
                    budget=plan.budget,
                    failed=failed,
                    min_change=config.analysis.min_change,
                    searches=stand.searches,
                    settled=settled | stand.remeasured,
                )
            if isinstance(choice, Stop):
                say(f"adaptive walk: {len(taken)} checkouts; {choice.reason}")
                return AdaptiveEnd(tuple(line[at] for at in sorted(taken)), choice.reason)
            if isinstance(choice, More):
                if not _measure_more(walk, plan, choice, taken, stand, say=say):
                    settled.add(choice.position)
                continue
            tried.add(choice.position)
            _measure(walk, plan, choice, taken, stand, say=say)
    finally:
        walk.counted_in(None)  # what the walk measures next (re-measures) counts on its own


def _measure(
    walk: Walk,
    plan: WalkPlan,
    choice: Next,
    taken: list[int],
    stand: _Stand,
    *,
    say: Callable[[str], None],
) -> None:
    """Measure the checkout ``choice`` names, placed among the ``taken`` ones; its
    progress is told as the next of at most the budget's checkouts."""
    line = plan.checkouts
    at = choice.position
    before = max((p for p in taken if p < at), default=None)
    after = min((p for p in taken if p > at), default=None)
    planned = _placed(plan, at, before)
    commit = planned.checkout.commit
    say(f"  {commit[:12]} [{at}/{len(line) - 1}]: {choice.reason}")
    walk.counted_in(_frame(plan, stand, len(taken) + 1, len(taken)))
    walk.run(dataclasses.replace(plan, checkouts=(planned,)))
    if after is not None:  # its commits since the one before are now fewer
        following = _placed(plan, after, at)
        checkout_id = walk.store.add_checkout(walk.series_id, following.checkout)
        walk.store.set_commits_since(checkout_id, following.checkout.since)


def _measure_more(
    walk: Walk,
    plan: WalkPlan,
    choice: More,
    taken: list[int],
    stand: _Stand,
    *,
    say: Callable[[str], None],
) -> bool:
    """Measure the repetitions ``choice`` asks for at a checkout measured already,
    planned at it first as its own (not re-measures); whether it got any."""
    at = choice.position
    placed = _placed(plan, at, max((p for p in taken if p < at), default=None))
    checkout = placed.checkout
    have = stand.own.get(at, 0)
    say(
        f"  {checkout.commit[:12]} [{at}/{len(plan.checkouts) - 1}]: "
        f"{choice.repetitions} more repetitions: {choice.reason}"
    )
    before = stand.planned + stand.more.get(at, 0)  # planned at it so far
    planned = max(before, have + choice.repetitions)
    if planned > stand.planned:
        checkout_id = walk.store.add_checkout(walk.series_id, checkout)
        walk.store.plan_repetitions(checkout_id, planned)
    more = planned - before
    # the walk's call counts the repetitions the checkout has among those it has done
    walk.counted_in(_frame(plan, stand, len(taken), len(taken), more=more, have=have))
    walk.measure_more(placed, choice.repetitions)
    done = walk.store.done_repetitions(walk.series_id)
    return sum(1 for index, _rep in done if index == at) > have


def _frame(
    plan: WalkPlan, stand: _Stand, number: int, built: int, *, more: int = 0, have: int = 0
) -> Frame:
    """The progress of the walk's next call as a part of the adaptive walk: checkout
    ``number`` of at most the budget, after the repetitions done (but the ``have`` of
    the checkout measured, which the call counts) of at most the budget's times a
    checkout's and those planned beyond them (``more`` with them)."""
    assert plan.budget is not None
    each = plan.measuring.repetitions_max or plan.repetitions
    total = plan.budget * each + sum(stand.more.values()) + more
    return Frame(number, plan.budget, stand.done - have, total, built)


def _placed(plan: WalkPlan, at: int, before: int | None) -> PlannedCheckout:
    """The checkout at ``at`` of the line, with the commits since the checkout
    ``before`` and the letters of the quirks that hold there or lie between."""
    line = plan.checkouts
    start = at if before is None else before + 1
    since = tuple(line[k].checkout.since[-1] for k in range(start, at + 1))
    previous = None if before is None else line[before].position
    holding, crossed = applying(plan.quirks, previous, line[at].position)
    order = {q.letter: n for n, q in enumerate(plan.quirks)}
    letters = sorted({q.letter for q in [*holding, *crossed]}, key=order.__getitem__)
    checkout = dataclasses.replace(line[at].checkout, since=since, quirks=tuple(letters))
    return PlannedCheckout(checkout, line[at].position)


@dataclass(frozen=True)
class _Stand:
    """Where the adaptive walk stands, as its series has it: the values of each
    checkout (of the metrics the analysis reads), by its place on the line, its own
    repetitions only (not re-measures); the places built that gave none (a build
    failed, no value parsed); how ``perfwalk changes`` searches each metric; the
    series' planned repetitions per checkout, the repetitions planned beyond them at
    some checkouts (``more``), each checkout's own repetitions done, those short of
    their plan by what they miss, the checkouts re-measured (they get no more of
    their own), and every repetition done."""

    measured: dict[int, Values]
    failed: set[int]
    searches: dict[str, Search]
    planned: int
    more: dict[int, int]
    own: dict[int, int]
    short: dict[int, int]
    remeasured: set[int]
    done: int


def _stand(walk: Walk) -> _Stand:
    """Where the walk stands (:class:`_Stand`)."""
    config = walk.config
    series = walk.store.series(walk.series_id)
    rows = walk.store.checkouts(walk.series_id)
    own_at = {row.idx: series.planned_at(row) or 0 for row in rows}
    ignored = {
        f"{test.name}.{name}"
        for test in config.tests
        for name, metric in test.metrics.items()
        if metric.ignore
    }
    found: dict[int, dict[str, list[float]]] = {}
    searches: dict[str, Search] = {}
    for row in walk.store.values(walk.series_id):
        key = f"{row.test}.{row.name}"
        mine = row.repetition_idx < own_at.get(row.checkout_idx, 0)  # not a re-measure
        if mine and row.status is Status.PASS and key not in ignored:
            found.setdefault(row.checkout_idx, {}).setdefault(key, []).append(row.value)
            if key not in searches:  # as its first value was stored
                direction = Direction(row.direction)
                policy = metric_policy(config, row.test, row.name, row.unit, direction)
                reduce = summary_of(policy.detection_summary, direction)
                searches[key] = Search(CONFIGURED.tuning(policy), reduce)
    built = {r.idx for r in rows if r.build_status is not None}
    done = walk.store.done_repetitions(walk.series_id)
    own = Counter(idx for idx, rep in done if rep < own_at.get(idx, 0))
    planned = series.planned_repetitions or 0
    more = {idx: most - planned for idx, most in own_at.items() if most > planned}
    short = {  # measured as planned for the series, not yet as planned for it
        row.idx: own_at[row.idx] - own[row.idx]
        for row in rows
        if row.idx in more
        and row.build_status is Status.PASS
        and planned <= own[row.idx] < own_at[row.idx]
    }
    return _Stand(
        measured=dict(found.items()),
        failed=built - set(found),
        searches=searches,
        planned=planned,
        more=more,
        own=dict(own),
        short=short,
        remeasured={idx for idx, rep in done if rep >= own_at.get(idx, 0)},
        done=len(done),
    )
