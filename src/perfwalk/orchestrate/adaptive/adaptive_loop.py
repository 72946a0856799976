"""An adaptive walk measured (``perfwalk run --adaptive --budget N``): one checkout at
a time, the one :func:`perfwalk.analysis.adaptive_walk.next_checkout` chooses from the
levels measured so far, until it stops.

Its plan's checkouts are every commit of its first-parent line, each indexed by its
place on the line: the series' checkouts are those measured, in first-parent order,
each with the commits since the measured one before it (corrected on the checkout
after it when a checkout is measured between two). Its quirks hold (patches, build
steps, tests replaced) as at any checkout; their commands run when crossed are not
run, as in a drill: its checkouts are not measured in the order of the line.
A resumed adaptive walk goes on from what its series has.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from perfwalk.analysis.adaptive_walk import Next, Search, Stop, Values, next_checkout
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
    its budget; ``say`` hears each choice and why."""
    assert plan.budget is not None
    line = plan.checkouts
    last = len(line) - 1
    config = walk.config
    tried: set[int] = set()  # measured by this process: once each, whatever they gave
    try:
        while True:
            measured, failed, searches = _measured(walk)
            failed |= tried - set(measured)
            choice = next_checkout(
                0,
                last,
                measured,
                budget=plan.budget,
                failed=failed,
                min_change=config.analysis.min_change,
                searches=searches,
            )
            if isinstance(choice, Stop):
                taken = {*measured, *failed}
                say(f"adaptive walk: {len(taken)} checkouts; {choice.reason}")
                return AdaptiveEnd(tuple(line[at] for at in sorted(taken)), choice.reason)
            tried.add(choice.position)
            _measure(walk, plan, choice, sorted({*measured, *failed}), say)
    finally:
        walk.counted_in(None)  # what the walk measures next (re-measures) counts on its own


def _measure(
    walk: Walk,
    plan: WalkPlan,
    choice: Next,
    taken: list[int],
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
    assert plan.budget is not None
    each = plan.measuring.repetitions_max or plan.repetitions
    done = len(walk.store.done_repetitions(walk.series_id))
    walk.counted_in(Frame(len(taken) + 1, plan.budget, done, plan.budget * each, len(taken)))
    walk.run(dataclasses.replace(plan, checkouts=(planned,)))
    if after is not None:  # its commits since the one before are now fewer
        following = _placed(plan, after, at)
        checkout_id = walk.store.add_checkout(walk.series_id, following.checkout)
        walk.store.set_commits_since(checkout_id, following.checkout.since)


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


def _measured(walk: Walk) -> tuple[dict[int, Values], set[int], dict[str, Search]]:
    """The values of each checkout the series has (of the metrics the analysis
    reads), by its place on the line; the places built that gave none (a build
    failed, no value parsed); and how ``perfwalk changes`` searches each metric."""
    config = walk.config
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
        if row.status is Status.PASS and key not in ignored:
            found.setdefault(row.checkout_idx, {}).setdefault(key, []).append(row.value)
            if key not in searches:  # as its first value was stored
                direction = Direction(row.direction)
                policy = metric_policy(config, row.test, row.name, row.unit, direction)
                reduce = summary_of(policy.detection_summary, direction)
                searches[key] = Search(CONFIGURED.tuning(policy), reduce)
    built = {r.idx for r in walk.store.checkouts(walk.series_id) if r.build_status is not None}
    measured: dict[int, Values] = dict(found.items())
    return measured, built - set(found), searches
