"""Measure a change's two checkouts again (``[run] confirm``): one more repetition of
each, in a new round, before, after, before, after… Each checkout is built again in a
worktree of its own; the quirks the walk crossed to reach it are not run again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfwalk.model import Status
from perfwalk.orchestrate.plan import PlannedCheckout
from perfwalk.orchestrate.preparation import Preparation
from perfwalk.orchestrate.repetition import Repetitions
from perfwalk.orchestrate.walk_progress import ProgressCount
from perfwalk.orchestrate.walk_setup import WalkSetup
from perfwalk.store.records import NewResult


@dataclass(frozen=True)
class Remeasured:
    """A change's two checkouts measured again (:meth:`Remeasure.measure_again`): the
    index of the repetition added at each and its results."""

    before_rep: int
    after_rep: int
    before: tuple[NewResult, ...]
    after: tuple[NewResult, ...]


@dataclass
class Remeasure:
    """Measures checkouts of series ``series_id`` again, after the walk."""

    setup: WalkSetup
    preparation: Preparation
    repetitions: Repetitions
    progress: ProgressCount

    def measure_again(
        self, pairs: Sequence[tuple[PlannedCheckout, PlannedCheckout]]
    ) -> list[Remeasured | None]:
        """One more repetition of each checkout of each pair, in the order of ``pairs``
        (installed again before each repetition when the walk installs builds; its
        warm-up runs before its first). Per pair, the repetitions it got, or None when
        one of its checkouts did not build."""
        every = {p.checkout.index: p for pair in pairs for p in pair}
        have: dict[int, int] = {}  # the next free repetition index of each checkout
        for index, rep in self.setup.store.done_repetitions(self.setup.series_id):
            have[index] = max(have.get(index, 0), rep + 1)
        self.progress.start(
            0, 2 * len(pairs), len(self.setup.store.checkouts(self.setup.series_id))
        )
        self.repetitions.warm = set()
        ready: dict[int, tuple[int, Path] | None] = {}
        installed: int | None = None  # the checkout installed last (builds installed)
        found: list[Remeasured | None] = []
        for pair in pairs:
            got: list[tuple[int, tuple[NewResult, ...]]] = []
            for planned in pair:
                index = planned.checkout.index
                if index not in ready or (self.setup.config.install and installed != index):
                    ready[index] = self._ready_again(every[index])
                    installed = index
                prepared = ready[index]
                if prepared is None:
                    break
                checkout_id, worktree = prepared
                rep = have.get(index, 0)
                have[index] = rep + 1
                ran = self.repetitions.measure(checkout_id, worktree, planned.checkout, rep)
                got.append((rep, ran))
            if len(got) < 2:
                found.append(None)
                self.progress.done += 2 - len(got)
                continue
            (before_rep, before), (after_rep, after) = got
            found.append(Remeasured(before_rep, after_rep, before, after))
        return found

    def _ready_again(self, planned: PlannedCheckout) -> tuple[int, Path] | None:
        """A checkout built again for a re-measure (no quirk crossed: the walk crossed
        them already), or None when it does not build."""
        checkout = planned.checkout
        checkout_id = self.setup.store.add_checkout(self.setup.series_id, checkout)
        self.progress.report(checkout, f"building {checkout.commit[:12]} again")
        slot = f"checkout-{checkout.index}"
        worktree, build = self.preparation.prepare(
            checkout_id, planned, planned.position, slot=slot
        )
        if build.status is not Status.PASS:
            self.progress.report(checkout, f"build failed: {build.failed}")
            return None
        return checkout_id, worktree
