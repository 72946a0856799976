"""The two sides of a try measured in turns: each built once, in a worktree of its
own, then one repetition at a time of the side the caller asks for (A B B A …, see
:func:`perfwalk.analysis.sequential.side`), each stored as soon as it finishes.

A try's series (kind ``try``) has two checkouts: A at index 0, B at index 1 (the same
commit as A when B is A with patches or a variant).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from perfwalk.config.model import Config, TestConfig, VariantConfig
from perfwalk.git.repo import Repo
from perfwalk.git.worktree import Worktrees
from perfwalk.model import Checkout
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.session.session import Session
from perfwalk.orchestrate.steps.shell_steps import StepsOutcome
from perfwalk.orchestrate.walk.plan import PlannedCheckout
from perfwalk.orchestrate.walk.preparation import Preparation
from perfwalk.orchestrate.walk.repetition import Repetitions
from perfwalk.orchestrate.walk.walk_parsers import WalkParsers
from perfwalk.orchestrate.walk.walk_progress import Progress, ProgressCount
from perfwalk.orchestrate.walk.walk_setup import WalkSetup
from perfwalk.store.records import NewResult


@dataclass(frozen=True)
class TrySide:
    """One side of a try: its checkout (index 0 for A, 1 for B) and its variant."""

    name: str  # "A" or "B"
    checkout: Checkout
    variant: VariantConfig | None = None


@dataclass(frozen=True)
class BuiltSide:
    """A side once built: its stored checkout, its worktree and its build."""

    side: TrySide
    checkout_id: int
    worktree: Path
    build: StepsOutcome


@dataclass
class Alternation(WalkSetup):
    """Builds and measures the two sides of a try in series ``series_id``."""

    progress: Callable[[Progress], None] = lambda _progress: None

    def __post_init__(self) -> None:
        super().__post_init__()
        self._parsers = WalkParsers(self.config, self.quirks)
        count = ProgressCount(self.progress)
        self._preparation = Preparation(self)
        self._repetitions = Repetitions(self, self._preparation, self._parsers, count)
        self._elsewhere: list[Alternation] = []

    def elsewhere(self, topology: Topology) -> Alternation:
        """The same series built and measured on ``topology`` (an environment's host or
        image), closed with this one."""
        other = dataclasses.replace(self, topology=topology)
        self._elsewhere.append(other)
        return other

    def build(self, side: TrySide) -> BuiltSide:
        """Store the side's checkout and build it (with its variant's patches and build)
        in its own worktree; the build is stored with the checkout."""
        checkout_id = self.store.add_checkout(self.series_id, side.checkout)
        worktree, build = self._preparation.prepare(
            checkout_id,
            PlannedCheckout(side.checkout, side.checkout.index),
            None,
            slot=f"try-{side.name.lower()}",
            variant=side.variant,
        )
        return BuiltSide(side, checkout_id, worktree, build)

    def measure(self, built: BuiltSide, rep: int) -> tuple[NewResult, ...]:
        """Repetition ``rep`` of a built side (its runtime modifiers around each test)."""
        return self._repetitions.measure(
            built.checkout_id, built.worktree, built.side.checkout, rep, built.side.variant
        )

    def profile(self, built: BuiltSide, rep: int, tests: Sequence[TestConfig]) -> int:
        """One extra profiled run of each of ``tests`` (their [test.profile]) on a built
        side, after its counted repetitions (``rep``: the number its commands see),
        stored with its profile and never counted; how many ran."""
        return self._repetitions.profile_extra(
            built.checkout_id,
            built.worktree,
            built.side.checkout,
            rep,
            built.side.variant,
            tests=tests,
        )

    def close(self) -> None:
        """Stop the parsers' helper processes (of those elsewhere too)."""
        for other in self._elsewhere:
            other.close()
        self._parsers.close()


@contextmanager
def alternating(
    session: Session, config: Config, repo: Repo, series_id: int, purpose: str
) -> Iterator[Alternation]:
    """The sides of series ``series_id`` (a try's, an environment drill's) built and
    measured in turns while ``session`` walks it, each in a worktree of its own: the
    parsers' helpers stopped at the end, the worktrees removed once it ended well (kept
    when it stopped, to look at)."""
    store = session.store
    walker = session.walker()
    worktrees = Worktrees.for_series(repo, config.store.worktrees, store.store_id(), series_id)
    with session.walking(series_id, walker), worktrees.held(purpose):
        alternation = Alternation(
            series_id=series_id,
            config=config,
            store=store,
            worktrees=worktrees,
            topology=session.topology,
            quirks=(),
            between=config.run.between,
            progress=lambda _p: session.check(),
            marker=walker.token,
        )
        try:
            yield alternation
        finally:
            alternation.close()
        worktrees.remove()
