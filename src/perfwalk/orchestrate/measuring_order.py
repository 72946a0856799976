"""The order in which a walk measures its checkouts: checkout after checkout (each
built, then all its repetitions), or in rounds (every checkout built first, in a
worktree of its own, then one repetition of each per round, in a seeded shuffled
order: :func:`round_order`); and how many repetitions each gets (``_Count``): the
planned number, or with adaptive repetitions as many as its precision asks for.

What is stored already is not measured again: a resumed walk continues where it
stopped, in the same order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from perfwalk.analysis.precision import wants_more
from perfwalk.model import Status
from perfwalk.orchestrate.plan import PlannedCheckout
from perfwalk.orchestrate.preparation import Preparation
from perfwalk.orchestrate.repetition import Repetitions
from perfwalk.orchestrate.walk_progress import ProgressCount
from perfwalk.orchestrate.walk_setup import WalkSetup
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


@dataclass
class MeasuringOrder:
    """Measures checkouts of series ``series_id`` in the order ``measuring`` asks for."""

    setup: WalkSetup
    preparation: Preparation
    repetitions: Repetitions
    progress: ProgressCount

    def __post_init__(self) -> None:
        self._tests = {test.name: test for test in self.setup.config.tests}

    def measure(
        self, checkouts: Sequence[PlannedCheckout], repetitions: int, measuring: Measuring
    ) -> Measured:
        """Measure every repetition of ``checkouts`` not stored yet (``repetitions`` of
        each, or adaptive ones as ``measuring`` says): checkout after checkout, or, in
        rounds, every checkout built first, then one repetition of each per round."""
        count = _Count(repetitions, measuring)
        tallies = self._tallies(checkouts, count)
        built = {
            row.idx: row.build_status for row in self.setup.store.checkouts(self.setup.series_id)
        }
        done = sum(min(len(t.done), count.most) for t in tallies.values())
        self.progress.start(done, len(checkouts) * count.most, len(checkouts))
        self.repetitions.warm = set()
        builds: dict[int, Status] = {}
        results: dict[int, list[NewResult]] = {}
        rounds = count.measuring.order == "rounds"
        ready: dict[int, tuple[int, Path]] = {}  # checkout index -> its id, its worktree
        previous: int | None = None
        for planned in checkouts:
            checkout = planned.checkout
            checkout_id = self.setup.store.add_checkout(self.setup.series_id, checkout)
            tally = tallies[checkout.index]
            prior = previous if previous is not None else planned.since
            previous = planned.position
            before = built.get(checkout.index)
            if count.next(tally) is None or before is Status.NOEXIST:
                if before is not None:
                    builds[checkout.index] = before
                continue
            self.progress.report(checkout, f"building {checkout.commit[:12]}")
            if rounds:  # each checkout in a worktree of its own, kept for every round
                worktree, build = self.preparation.prepare(
                    checkout_id, planned, prior, slot=f"checkout-{checkout.index}"
                )
            else:
                worktree, build = self.preparation.prepare_once(checkout_id, planned, prior)
            builds[checkout.index] = build.status
            if build.status is not Status.PASS:
                self.progress.done += count.most - len(tally.done)
                self.progress.report(checkout, f"build failed: {build.failed}")
                continue
            if rounds:
                ready[checkout.index] = (checkout_id, worktree)
                continue
            ran = results.setdefault(checkout.index, [])
            while (rep := count.next(tally)) is not None:
                ran.extend(self._measure(checkout_id, worktree, planned, rep, tally))
            self.progress.done += count.most - len(tally.done)  # adaptive: those not needed
        if rounds:
            self._rounds(checkouts, count, tallies, ready, results)
        return Measured(builds, {index: tuple(found) for index, found in results.items()})

    def _rounds(
        self,
        checkouts: Sequence[PlannedCheckout],
        count: _Count,
        tallies: Mapping[int, _Tally],
        ready: Mapping[int, tuple[int, Path]],
        results: dict[int, list[NewResult]],
    ) -> None:
        """Round ``r`` measures repetition ``r`` of every built checkout that still
        wants one, in the round's shuffled order (the same again on a resume)."""
        for number in range(count.most):
            for planned in round_order(checkouts, count.measuring.seed, number):
                checkout = planned.checkout
                if checkout.index not in ready:
                    continue
                tally = tallies[checkout.index]
                if count.next(tally) != number:  # done already, or needs no more
                    continue
                checkout_id, worktree = ready[checkout.index]
                ran = results.setdefault(checkout.index, [])
                ran.extend(self._measure(checkout_id, worktree, planned, number, tally))
        for index in ready:
            self.progress.done += count.most - len(tallies[index].done)  # adaptive: not needed

    def _measure(
        self, checkout_id: int, worktree: Path, planned: PlannedCheckout, rep: int, tally: _Tally
    ) -> tuple[NewResult, ...]:
        """One repetition, counted in the checkout's tally."""
        ran = self.repetitions.measure(checkout_id, worktree, planned.checkout, rep)
        tally.done.add(rep)
        for result in ran:
            if result.status is Status.PASS:
                for value, _direction in result.values:
                    tally.add(self._counted, result.test, value.name, value.value)
        return ran

    def _tallies(self, checkouts: Sequence[PlannedCheckout], count: _Count) -> dict[int, _Tally]:
        """What each checkout has stored already: its repetitions, and (adaptive
        repetitions) its counted values."""
        tallies = {planned.checkout.index: _Tally() for planned in checkouts}
        for index, rep in self.setup.store.done_repetitions(self.setup.series_id):
            if index in tallies:
                tallies[index].done.add(rep)
        if count.measuring.repetitions_max is not None and any(t.done for t in tallies.values()):
            for row in self.setup.store.values(self.setup.series_id):
                if row.checkout_idx in tallies and row.status is Status.PASS:
                    tallies[row.checkout_idx].add(self._counted, row.test, row.name, row.value)
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
    ``test.name`` (for adaptive repetitions)."""

    done: set[int] = field(default_factory=set)
    values: dict[str, list[float]] = field(default_factory=dict)

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
        """The repetition a checkout gets next; None when it has all it needs."""
        if self.measuring.repetitions_max is not None:
            target = self.measuring.rse_target or 0.0
            more = wants_more(
                len(tally.done), tally.values, least=self.repetitions, most=self.most, target=target
            )
            if not more:
                return None
        return next((rep for rep in range(self.most) if rep not in tally.done), None)


def round_order(checkouts: Sequence[_T], seed: int | None, number: int) -> list[_T]:
    """The checkouts (in walk order) in the shuffled order of round ``number`` of a walk
    seeded ``seed``: the same for the same seed, round and checkouts (a resume
    continues it)."""
    shuffled = list(checkouts)
    random.Random(f"{seed}:{number}").shuffle(shuffled)
    return shuffled
