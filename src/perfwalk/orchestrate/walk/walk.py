"""Walk the plan of a series (:mod:`perfwalk.orchestrate.walk.plan`): prepare, build,
install, run the repetitions, store each repetition as soon as it finishes, and
return what was measured.

The parts of a walk each have a module: the preparation of a checkout and the action
between repetitions (:mod:`perfwalk.orchestrate.walk.preparation`), one repetition
(:mod:`perfwalk.orchestrate.walk.repetition`), the order of the checkouts and how many
repetitions each gets (:mod:`perfwalk.orchestrate.walk.measuring_order`), the re-measure
of a change's checkouts (:mod:`perfwalk.orchestrate.walk.remeasure`).

Tests run through their four phases on the hosts of the run's topology
(:mod:`perfwalk.orchestrate.phases.phases`); a walk without ``[hosts]`` has one host,
the [run] host, where every command runs in the checkout's worktree.

Every process the walk starts carries its marker (``PERFWALK_WALK``, see
:mod:`perfwalk.orchestrate.session.walker`), and each test run its own
(``PERFWALK_RUN_ID``): what a test leaves running is stopped and reported
(:mod:`perfwalk.orchestrate.phases.containment`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

from perfwalk.config.model import TestConfig
from perfwalk.model import Status
from perfwalk.orchestrate.phases.regress_suite import bounded_log, run_in_checkout
from perfwalk.orchestrate.walk.measuring_order import Measured, MeasuringOrder
from perfwalk.orchestrate.walk.plan import PlannedCheckout, Unit, WalkPlan
from perfwalk.orchestrate.walk.preparation import Preparation
from perfwalk.orchestrate.walk.remeasure import Remeasure
from perfwalk.orchestrate.walk.repetition import Repetitions
from perfwalk.orchestrate.walk.walk_parsers import WalkParsers, record_parser_losses
from perfwalk.orchestrate.walk.walk_progress import Frame, Progress, ProgressCount
from perfwalk.orchestrate.walk.walk_setup import WalkSetup
from perfwalk.store.records import Measuring, NewRepetition, NewResult


@dataclass
class Walk(WalkSetup):
    """One series being measured on the hosts of ``topology`` (builds on its [run]
    host); :meth:`run` is handed the plan, and may be handed it again to resume it."""

    progress: Callable[[Progress], None] = lambda _progress: None

    def __post_init__(self) -> None:
        super().__post_init__()
        self._parsers = WalkParsers(self.config, self.quirks)
        count = self._count = ProgressCount(self.progress)
        preparation = Preparation(self)
        repetitions = Repetitions(self, preparation, self._parsers, count)
        self._preparation, self._repetitions = preparation, repetitions
        self._order = MeasuringOrder(self, preparation, repetitions, count)
        self._again = Remeasure(self, preparation, repetitions, count)

    def run(self, plan: WalkPlan) -> Measured:
        """Measure every repetition of the plan not stored yet: checkout after checkout,
        or, in rounds, every checkout built first, then one repetition of each per round."""
        spans = plan.extension.spans if plan.extension is not None else None
        return self._measure(plan.checkouts, plan.repetitions, plan.measuring, spans)

    def counted_in(self, frame: Frame | None) -> None:
        """Tell the progress of the calls that follow as parts of ``frame`` (None: each
        call on its own)."""
        self._count.frame = frame

    def measure_more(self, planned: PlannedCheckout, repetitions: int) -> Measured:
        """Store ``repetitions`` more repetitions of one checkout (a drill's request).

        The checkout is built unless it was the last one built by this walk; a
        checkout whose build failed gets nothing more.
        """
        done = self.store.done_repetitions(self.series_id)
        have = sum(1 for idx, _rep in done if idx == planned.checkout.index)
        return self._measure([planned], have + repetitions, Measuring())

    def profile_at(self, planned: PlannedCheckout, tests: Sequence[TestConfig]) -> Status:
        """One extra profiled run of each of ``tests`` (their [test.profile]) at one
        checkout, unless stored already (a drill's culprit and its parent); the
        checkout is built unless it was the last one built. The build's status."""
        checkout_id = self.store.add_checkout(self.series_id, planned.checkout)
        try:
            worktree, build = self._preparation.prepare_once(checkout_id, planned, planned.position)
            if build.status is Status.PASS:
                done = self.store.done_repetitions(self.series_id)
                rep = sum(1 for idx, _rep in done if idx == planned.checkout.index)
                self._repetitions.profile_extra(
                    checkout_id, worktree, planned.checkout, rep, tests=tests
                )
            return build.status
        finally:
            self._parsers.close()

    def regress_test_at(self, planned: PlannedCheckout, test: str) -> tuple[Status, Status | None]:
        """The regress suite's ``test`` run once at one checkout, after its build, in the
        checkout's copy of regress.dir (a drill of a regress test's break:
        :func:`perfwalk.orchestrate.phases.regress_suite.run_in_checkout`), stored as a
        repetition of the checkout with its output; the checkout is built unless it was
        the last one built. The build's status, and the test's (None: not built)."""
        checkout_id = self.store.add_checkout(self.series_id, planned.checkout)
        try:
            worktree, build = self._preparation.prepare_once(checkout_id, planned, planned.position)
            if build.status is not Status.PASS:
                return build.status, None
            started = datetime.now(UTC)
            ran = run_in_checkout(self.config, self.topology.member("").host, worktree, test)
            done = self.store.done_repetitions(self.series_id)
            result = NewResult(
                test=test,
                status=ran.status,
                message=ran.message,
                duration=ran.duration,
                stdout=bounded_log(ran.log, self.config.store.log_limit),
            )
            self.store.add_repetition(
                checkout_id,
                NewRepetition(
                    idx=sum(1 for idx, _rep in done if idx == planned.checkout.index),
                    started_at=started,
                    finished_at=datetime.now(UTC),
                    results=(result,),
                ),
            )
            return build.status, ran.status
        finally:
            self._parsers.close()

    @contextmanager
    def measuring_again(self, total: int) -> Iterator[Remeasure]:
        """A round of re-measures of changes' checkouts (``[run] confirm``), of about
        ``total`` repetitions, one at a time as the caller asks
        (:meth:`Remeasure.once`): each checkout is built once in the round, in a
        worktree of its own (installed again before each repetition when the walk
        installs builds); its warm-up runs run before its first repetition."""
        self._again.start(total)
        try:
            yield self._again
        finally:
            self._parsers.close()

    def _measure(
        self,
        checkouts: Sequence[PlannedCheckout],
        repetitions: int,
        measuring: Measuring,
        spans: Mapping[Unit, range] | None = None,
    ) -> Measured:
        try:
            measured = self._order.measure(checkouts, repetitions, measuring, spans)
        finally:
            self._parsers.close()  # (started again by the next parse)
        for series_id in (self.series_id, *(v.series_id for v in self.variants)):
            record_parser_losses(self.store, series_id)  # what its checkout pages mark
        return measured
