"""The order in which a walk measures its checkouts: checkout after checkout (each
built, then all its repetitions), or in rounds (every checkout built first, in a
worktree of its own, then one repetition of each per round, in a seeded shuffled
order: :func:`round_order`); and how many repetitions each gets (``_Count``): the
planned number, or with adaptive repetitions as many as its precision asks for; an
extension of a series (:mod:`perfwalk.orchestrate.extend.extension`) gives each checkout
of each variant its own span of repetition numbers, after those stored, and its rounds
(or its variants' turns) count from the start of each span.

What is stored already is not measured again: a resumed walk continues where it
stopped, in the same order. A test profiled with ``repetitions = "extra"`` gets its
extra profiled run at each checkout after the counted repetitions (in rounds, after
the last round), once.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar, cast

from perfwalk.analysis.precision import wants_more
from perfwalk.config.settings import BASE_VARIANT
from perfwalk.model import Status
from perfwalk.orchestrate.checkout.variants import WalkVariant, base_variant, variant_order
from perfwalk.orchestrate.hosts.hangs import HUNG_IN_A_ROW
from perfwalk.orchestrate.steps.shell_steps import StepsOutcome
from perfwalk.orchestrate.walk.plan import PlannedCheckout, Unit
from perfwalk.orchestrate.walk.preparation import Preparation
from perfwalk.orchestrate.walk.repetition import Repetitions
from perfwalk.orchestrate.walk.walk_progress import BUILD_FAILED, HUNG, ProgressCount
from perfwalk.orchestrate.walk.walk_setup import WalkSetup
from perfwalk.store.records import Measuring, NewResult

_T = TypeVar("_T")


@dataclass(frozen=True)
class Measured:
    """What one call of a walk measured: the build status of each checkout it came to,
    and the results of the repetitions it ran, by checkout index, in the order run."""

    builds: Mapping[int, Status]
    results: Mapping[int, tuple[NewResult, ...]]

    def values(self, index: int, test: str, name: str) -> tuple[float, ...]:
        """The values ``test``.``name`` of checkout ``index``, from the results that PASS."""
        return tuple(
            value.value
            for result in self.results.get(index, ())
            if result.test == test and result.status is Status.PASS
            for value, _direction in result.values
            if value.name == name
        )

    def statuses(self, index: int, test: str) -> tuple[Status, ...]:
        """The statuses of ``test`` at checkout ``index``, one per repetition run."""
        return tuple(r.status for r in self.results.get(index, ()) if r.test == test)


@dataclass
class MeasuringOrder:
    """Measures checkouts of series ``series_id`` (and of its variants' series) in the
    order ``measuring`` asks for."""

    setup: WalkSetup
    preparation: Preparation
    repetitions: Repetitions
    progress: ProgressCount

    def __post_init__(self) -> None:
        self._tests = {test.name: test for test in self.setup.config.tests}
        base = WalkVariant(BASE_VARIANT, base_variant(self.setup.config), self.setup.series_id)
        self._variants = (base, *self.setup.variants)

    def measure(
        self,
        checkouts: Sequence[PlannedCheckout],
        repetitions: int,
        measuring: Measuring,
        spans: Mapping[Unit, range] | None = None,
    ) -> Measured:
        """Measure every repetition of ``checkouts`` not stored yet (``repetitions`` of
        each, or adaptive ones as ``measuring`` says; with ``spans``, the repetition
        numbers each checkout of each variant is to have: an extension's), for the
        plain checkout and each variant: checkout after checkout (the variants'
        repetitions interleaved), or, in rounds, every checkout built first, then one
        repetition of each per round. What it returns is the plain checkout's."""
        count = _Count(repetitions, measuring)
        tallies = self._tallies(checkouts, count, spans)
        built = {
            (variant.name, row.idx): row.build_status
            for variant in self._variants
            for row in self.setup.store.checkouts(variant.series_id)
        }
        done = sum(t.measured() for t in tallies.values())
        total = sum(len(t.span) for t in tallies.values())
        to_build = sum(
            1
            for planned in checkouts
            if any(
                count.next(tallies[(v.name, planned.checkout.index)]) is not None
                for v in self._variants
            )
        )
        self.progress.start(done, total, len(checkouts), to_build)
        self.repetitions.warm = set()
        builds: dict[int, Status] = {}
        results: dict[int, list[NewResult]] = {}
        rounds = count.measuring.order == "rounds"
        ready: dict[Unit, tuple[int, Path]] = {}  # its checkout id, its worktree
        previous: int | None = None
        for planned in checkouts:
            checkout = planned.checkout
            prior = previous if previous is not None else planned.since
            previous = planned.position
            here: list[tuple[WalkVariant, int]] = []
            for variant in self._variants:
                checkout_id = self.setup.store.add_checkout(variant.series_id, checkout)
                before = built.get((variant.name, checkout.index))
                wants = count.next(tallies[(variant.name, checkout.index)]) is not None
                wants = wants or self._wants_profile(checkout_id)
                if wants and before is not Status.NOEXIST:
                    here.append((variant, checkout_id))
                elif before is not None and variant.name == BASE_VARIANT:
                    builds[checkout.index] = before
            if not here:
                continue
            self.progress.building(checkout)
            shared = f"checkout-{checkout.index}" if rounds else "build"
            trees = self._build(planned, prior, here, shared, builds=builds, tallies=tallies)
            if rounds:
                ready.update(trees)
                continue
            self._interleaved(planned, trees, count, tallies, results)
        if rounds:
            self._rounds(checkouts, count, tallies, ready, results)
        return Measured(builds, {index: tuple(found) for index, found in results.items()})

    def _build(
        self,
        planned: PlannedCheckout,
        prior: int | None,
        here: Sequence[tuple[WalkVariant, int]],
        shared: str,
        *,
        builds: dict[int, Status],
        tallies: Mapping[Unit, _Tally],
    ) -> dict[Unit, tuple[int, Path]]:
        """Build the checkout for each variant of ``here`` (the plain build once, for
        every variant without a build of its own: the first build crosses the quirks,
        the others find them crossed); the variants that built, with their worktrees."""
        checkout = planned.checkout
        trees: dict[Unit, tuple[int, Path]] = {}
        plain: tuple[Path, StepsOutcome] | None = None
        for variant, checkout_id in here:
            crossing = prior if not trees and plain is None else planned.position
            if variant.own_build:
                slot = variant.slot(shared)
                worktree, build = self.preparation.prepare(
                    checkout_id, planned, crossing, slot=slot, variant=variant.config
                )
            elif plain is None:
                if shared == "build":
                    plain = self.preparation.prepare_once(checkout_id, planned, crossing)
                else:  # each checkout in a worktree of its own, kept for every round
                    plain = self.preparation.prepare(checkout_id, planned, crossing, slot=shared)
                worktree, build = plain
            else:  # the plain checkout's build serves this variant too
                worktree, build = plain
                self.setup.store.set_build(checkout_id, build.status, build.seconds, build.log)
            if variant.name == BASE_VARIANT:
                builds[checkout.index] = build.status
            unit = (variant.name, checkout.index)
            if build.status is not Status.PASS:
                self.progress.done += tallies[unit].left()
                which = "" if variant.name == BASE_VARIANT else f", variant {variant.name}"
                failed = f"build failed ({build.status.name}{which}): {build.failed}"
                self.progress.report(checkout, failed, BUILD_FAILED)
                continue
            trees[unit] = (checkout_id, worktree)
        return trees

    def _interleaved(
        self,
        planned: PlannedCheckout,
        trees: Mapping[Unit, tuple[int, Path]],
        count: _Count,
        tallies: Mapping[Unit, _Tally],
        results: dict[int, list[NewResult]],
    ) -> None:
        """The repetitions of one checkout's variants, interleaved: repetition ``r`` of
        every variant that still wants one (``r`` counted from the start of its span),
        in a seeded shuffled order, before any variant's repetition ``r + 1``."""
        index = planned.checkout.index
        variants = [v for v in self._variants if (v.name, index) in trees]
        while True:
            wanting = [v for v in variants if count.next(tallies[(v.name, index)]) is not None]
            if not wanting:
                break
            number = min(tallies[(v.name, index)].turn(count) for v in wanting)
            for variant in variant_order(wanting, count.measuring.seed, index, number):
                tally = tallies[(variant.name, index)]
                rep = count.next(tally)
                if rep is None:
                    continue
                checkout_id, worktree = trees[(variant.name, index)]
                ran = self._measure(
                    checkout_id, worktree, planned, rep, tally, variant=variant, count=count
                )
                if variant.name == BASE_VARIANT:
                    results.setdefault(index, []).extend(ran)
        for variant in variants:  # adaptive: those not needed
            self.progress.done += tallies[(variant.name, index)].left()
        for variant in variants:
            checkout_id, worktree = trees[(variant.name, index)]
            after = tallies[(variant.name, index)].span.stop
            self.repetitions.profile_extra(
                checkout_id, worktree, planned.checkout, after, variant.config
            )
        if (BASE_VARIANT, index) in trees:
            self.progress.checkout_done(planned.checkout, results.get(index, ()))

    def _rounds(
        self,
        checkouts: Sequence[PlannedCheckout],
        count: _Count,
        tallies: Mapping[Unit, _Tally],
        ready: Mapping[Unit, tuple[int, Path]],
        results: dict[int, list[NewResult]],
    ) -> None:
        """Round ``r`` measures repetition ``r`` of every built checkout (and variant)
        that still wants one (``r`` counted from the start of its span), in the round's
        shuffled order (the same again on a resume)."""
        # every checkout of every variant shuffled together (without variants, the
        # same order as the checkouts alone: a shuffle depends only on their number)
        units = [(planned, variant) for planned in checkouts for variant in self._variants]
        longest = max((len(tally.span) for tally in tallies.values()), default=0)
        for number in range(longest):
            for planned, variant in round_order(units, count.measuring.seed, number):
                unit = (variant.name, planned.checkout.index)
                if unit not in ready:
                    continue
                tally = tallies[unit]
                rep = tally.span.start + number
                if count.next(tally) != rep:  # done already, or needs no more
                    continue
                checkout_id, worktree = ready[unit]
                ran = self._measure(
                    checkout_id, worktree, planned, rep, tally, variant=variant, count=count
                )
                if variant.name == BASE_VARIANT:
                    index = planned.checkout.index
                    results.setdefault(index, []).extend(ran)
                    if count.next(tally) is None:  # its last round
                        self.progress.checkout_done(planned.checkout, results[index])
        for unit in ready:
            self.progress.done += tallies[unit].left()  # adaptive: not needed
        variants = {variant.name: variant for variant in self._variants}
        for planned in checkouts:
            for name, variant in variants.items():
                unit = (name, planned.checkout.index)
                if unit in ready:
                    checkout_id, worktree = ready[unit]
                    after = tallies[unit].span.stop
                    self.repetitions.profile_extra(
                        checkout_id, worktree, planned.checkout, after, variant.config
                    )

    def _measure(
        self,
        checkout_id: int,
        worktree: Path,
        planned: PlannedCheckout,
        rep: int,
        tally: _Tally,
        *,
        variant: WalkVariant,
        count: _Count,
    ) -> tuple[NewResult, ...]:
        """One repetition, counted in the checkout's tally; a checkout whose host hung at
        its last repetitions (:data:`~perfwalk.orchestrate.hosts.hangs.HUNG_IN_A_ROW`)
        gets no more."""
        ran = self.repetitions.measure(checkout_id, worktree, planned.checkout, rep, variant.config)
        tally.done.add(rep)
        hung = self.repetitions.hung_in_a_row.get(checkout_id, 0)
        if hung >= HUNG_IN_A_ROW and count.next(tally) is not None:
            tally.given_up = True
            self.progress.report(
                planned.checkout,
                f"a host hung at {hung} repetitions in a row of this checkout: no more "
                "repetitions of it",
                HUNG,
            )
        for result in ran:
            if result.status is Status.PASS:
                for value, _direction in result.values:
                    tally.add(self._counted, result.test, value.name, value.value)
        return ran

    def _wants_profile(self, checkout_id: int) -> bool:
        """Whether a test's extra profiled run at this checkout is still to run."""
        extra = {
            test.name
            for test in self.setup.config.tests
            if test.profile.on and test.profile.repetitions == "extra"
        }
        return bool(extra - self.setup.store.profiles.extra_done(checkout_id)) if extra else False

    def _tallies(
        self,
        checkouts: Sequence[PlannedCheckout],
        count: _Count,
        spans: Mapping[Unit, range] | None,
    ) -> dict[Unit, _Tally]:
        """What each checkout of each variant has stored already: its repetitions, and
        (adaptive repetitions) its counted values; and the repetition numbers it is to
        have (``spans``, or the first ``count.most``)."""
        tallies: dict[Unit, _Tally] = {}
        for variant in self._variants:
            mine = {
                planned.checkout.index: _Tally(
                    span=range(count.most)
                    if spans is None
                    else spans.get((variant.name, planned.checkout.index), range(0))
                )
                for planned in checkouts
            }
            for index, rep in self.setup.store.done_repetitions(variant.series_id):
                if index in mine:
                    mine[index].done.add(rep)
            if count.measuring.repetitions_max is not None and any(t.done for t in mine.values()):
                for row in self.setup.store.values(variant.series_id):
                    if row.checkout_idx in mine and row.status is Status.PASS:
                        mine[row.checkout_idx].add(self._counted, row.test, row.name, row.value)
            tallies.update(((variant.name, index), tally) for index, tally in mine.items())
        return tallies

    def _counted(self, test: str, name: str) -> bool:
        """Whether the values ``name`` of ``test`` count for adaptive repetitions (a
        metric the analysis ignores does not)."""
        found = self._tests.get(test)
        configured = found.metrics.get(name) if found is not None else None
        return configured is None or not configured.ignore


@dataclass
class _Tally:
    """What one checkout has: its stored repetitions, and its counted values by
    ``test.name`` (for adaptive repetitions); the repetition numbers it is to have."""

    span: range
    done: set[int] = field(default_factory=set)
    values: dict[str, list[float]] = field(default_factory=dict)
    #: its host hung at its last repetitions (hangs.HUNG_IN_A_ROW): it gets no more
    given_up: bool = False

    def measured(self) -> int:
        """How many repetitions of its span it has."""
        return sum(1 for rep in self.done if rep in self.span)

    def left(self) -> int:
        """How many repetitions of its span it does not have."""
        return len(self.span) - self.measured()

    def turn(self, count: _Count) -> int:
        """Its next repetition's place in its span (it wants one)."""
        return cast(int, count.next(self)) - self.span.start

    def add(self, counted: Callable[[str, str], bool], test: str, name: str, value: float) -> None:
        if counted(test, name):
            self.values.setdefault(f"{test}.{name}", []).append(value)


@dataclass(frozen=True)
class _Count:
    """How many repetitions a checkout gets: ``repetitions``, or with adaptive
    repetitions from that many up to ``repetitions_max`` while not precise enough."""

    repetitions: int
    measuring: Measuring

    @property
    def most(self) -> int:
        return self.measuring.repetitions_max or self.repetitions

    def next(self, tally: _Tally) -> int | None:
        """The repetition a checkout gets next; None when it has all it needs (or its
        host hangs at every repetition)."""
        if tally.given_up:
            return None
        if self.measuring.repetitions_max is not None:
            target = self.measuring.rse_target or 0.0
            more = wants_more(
                len(tally.done), tally.values, least=self.repetitions, most=self.most, target=target
            )
            if not more:
                return None
        return next((rep for rep in tally.span if rep not in tally.done), None)


def round_order(checkouts: Sequence[_T], seed: int | None, number: int) -> list[_T]:
    """The checkouts (in walk order) in the shuffled order of round ``number`` of a walk
    seeded ``seed``: the same for the same seed, round and checkouts (a resume
    continues it)."""
    shuffled = list(checkouts)
    random.Random(f"{seed}:{number}").shuffle(shuffled)
    return shuffled
