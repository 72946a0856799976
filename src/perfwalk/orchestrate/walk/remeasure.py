"""Measure a change's two checkouts again (``[run] confirm``, ``[watch] confirm``): one
more repetition at a time of the checkout the caller asks for (before, after, after,
before… :mod:`perfwalk.orchestrate.confirm.confirm`), each stored as soon as it finishes with
the walk's other repetitions. Each checkout is built again once per round of
re-measures, in a worktree of its own (installed again before each repetition when
the walk installs builds and another checkout was installed since); the quirks the
walk crossed to reach it are not run again."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from perfwalk.model import MachineState, Status
from perfwalk.orchestrate.walk.plan import PlannedCheckout
from perfwalk.orchestrate.walk.preparation import Preparation
from perfwalk.orchestrate.walk.repetition import Repetitions
from perfwalk.orchestrate.walk.walk_progress import ProgressCount
from perfwalk.orchestrate.walk.walk_setup import WalkSetup
from perfwalk.store.records import NewResult


@dataclass(frozen=True)
class OneMore:
    """One repetition measured again: the checkout, the repetition's index, its results
    and the state of each host it ran on."""

    checkout: int
    rep: int
    results: tuple[NewResult, ...]
    states: dict[str, MachineState]


@dataclass
class Remeasure:
    """Measures checkouts of series ``series_id`` again, after the walk."""

    setup: WalkSetup
    preparation: Preparation
    repetitions: Repetitions
    progress: ProgressCount
    #: per checkout index: its stored id and worktree, built in this round (None: failed)
    _ready: dict[int, tuple[int, Path] | None] = field(default_factory=dict)
    _installed: int | None = None  # the checkout installed last (builds installed)
    _next: dict[int, int] = field(default_factory=dict)  # the next free repetition index

    def start(self, total: int) -> None:
        """A new round of re-measures, of about ``total`` repetitions: every checkout is
        built again (and warmed up) before its first repetition in it. Each is numbered
        after those stored and after those the walk plans at the checkout, so that it is
        never read as one of the walk's own (a checkout of adaptive repetitions that
        stopped below their most)."""
        store, series_id = self.setup.store, self.setup.series_id
        self._ready, self._installed, self._next = {}, None, {}
        series, rows = store.series(series_id), store.checkouts(series_id)
        for row in rows:
            self._next[row.idx] = series.planned_at(row) or 0
        for index, rep in store.done_repetitions(series_id):
            self._next[index] = max(self._next.get(index, 0), rep + 1)
        self.repetitions.warm = set()
        self.progress.start(0, total, len(rows))

    def once(self, planned: PlannedCheckout) -> OneMore | None:
        """One more repetition of a checkout (its warm-up runs before its first in this
        round); None when it does not build."""
        index = planned.checkout.index
        if index not in self._ready or (self.setup.config.install and self._installed != index):
            self._ready[index] = self._ready_again(planned)
            self._installed = index
        prepared = self._ready[index]
        if prepared is None:
            self.progress.done += 1
            return None
        checkout_id, worktree = prepared
        rep = self._next.get(index, 0)
        self._next[index] = rep + 1
        ran = self.repetitions.measure(checkout_id, worktree, planned.checkout, rep)
        return OneMore(index, rep, ran, dict(self.repetitions.last_states))

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
