"""Walk the plan of a series (:mod:`perfwalk.orchestrate.plan`): prepare, build,
install, run the repetitions, store each repetition as soon as it finishes, and
return what was measured.

Tests run through their four phases on the hosts of the run's topology
(:mod:`perfwalk.orchestrate.phases`); a walk without ``[hosts]`` has one host,
the [run] host, where every command runs in the checkout's worktree.

Every process the walk starts carries its marker (``PERFWALK_WALK``, see
:mod:`perfwalk.orchestrate.walker`), and each test run its own
(``PERFWALK_RUN_ID``): what a test leaves running is stopped and reported
(:mod:`perfwalk.orchestrate.containment`).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from perfwalk.analysis.precision import wants_more
from perfwalk.config.model import Config, TestConfig
from perfwalk.git.worktree import Worktrees, apply_patch, verify_checkout
from perfwalk.hosts.leftovers import RUN_MARKER, WALK_MARKER
from perfwalk.model import Checkout, Log, Status
from perfwalk.orchestrate.containment import Containment
from perfwalk.orchestrate.install import install_checkout
from perfwalk.orchestrate.machine import MachineWatch
from perfwalk.orchestrate.parsing import ParseWorker
from perfwalk.orchestrate.phases import TestContext, run_test
from perfwalk.orchestrate.plan import PlannedCheckout, WalkPlan
from perfwalk.orchestrate.quirks import (
    PlannedQuirk,
    applying,
    build_steps,
    describe_holding,
    replaced_test,
)
from perfwalk.orchestrate.reboot import RebootOutcome, reboot
from perfwalk.orchestrate.shell_steps import StepsOutcome, run_steps
from perfwalk.orchestrate.together import run_together
from perfwalk.orchestrate.topology import Member, Topology
from perfwalk.parsers import Parser, get_parser
from perfwalk.store import Store
from perfwalk.store.records import Measuring, NewRepetition, NewResult, NewStep

_T = TypeVar("_T")

#: what happens between two repetitions besides a command
BETWEEN_ACTIONS = ("keep", "reboot", "rebuild")


@dataclass(frozen=True)
class Progress:
    """Where a walk stands, for a progress bar."""

    done: int  # repetitions finished (or given up) so far
    total: int
    checkout: int
    checkouts: int
    message: str


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


@dataclass(frozen=True)
class Remeasured:
    """A change's two checkouts measured again (:meth:`Walk.measure_again`): the index
    of the repetition added at each and its results."""

    before_rep: int
    after_rep: int
    before: tuple[NewResult, ...]
    after: tuple[NewResult, ...]


@dataclass
class Walk:
    """One series being measured on the hosts of ``topology`` (builds on its [run]
    host); :meth:`run` is handed the plan, and may be handed it again to resume it."""

    series_id: int
    config: Config
    store: Store
    worktrees: Worktrees
    topology: Topology
    quirks: Sequence[PlannedQuirk]
    between: str
    progress: Callable[[Progress], None] = lambda _progress: None
    marker: str = ""  # PERFWALK_WALK of every process it starts ("" for none)

    def __post_init__(self) -> None:
        self._parsing = ParseWorker()  # parsers run there, under each test's parse_timeout
        self._parsers: dict[str, Parser] = {
            test.name: self._parsing.bounded(
                get_parser(test.parser, test.parser_options, key=f"test.{test.name}.parser"),
                limit=test.parse_timeout,
                label=f"parser {test.parser!r} of test {test.name}",
                setting=f"test.{test.name}.parse_timeout",
            )
            for test in self.config.tests
        }
        self._role_parsers: dict[str, dict[str, Parser]] = {
            test.name: {
                role: self._parsing.bounded(
                    get_parser(
                        phases.parser, phases.parser_options, key=f"test.{test.name}.roles.{role}"
                    ),
                    limit=test.parse_timeout,
                    label=f"parser {phases.parser!r} of test {test.name}, role {role}",
                    setting=f"test.{test.name}.parse_timeout",
                )
                for role, phases in test.roles.items()
                if phases.parser
            }
            for test in self.config.tests
        }
        self._tests = {test.name: test for test in self.config.tests}
        self._limit = self.config.store.log_limit
        self._done = self._total = self._count = 0  # progress of the current call
        self._warm: set[int] = set()  # checkouts whose warm-up runs ran in this call
        self.host = self.topology.member("").host
        self._quirk_parsers: dict[tuple[str, str], Parser] = {}  # (letter, test): a parser
        for quirk in self.quirks:
            for test in self.config.tests:
                replaced = quirk.config.tests.get(test.name)
                if replaced is None or not (replaced.parser or replaced.parser_options):
                    continue
                applied = replaced.applied(test)
                self._quirk_parsers[(quirk.letter, test.name)] = self._parsing.bounded(
                    get_parser(
                        applied.parser,
                        applied.parser_options,
                        key=f"quirk[{quirk.index}].test.{test.name}.parser",
                    ),
                    limit=test.parse_timeout,
                    label=f"parser {applied.parser!r} of test {test.name}, quirk {quirk.letter}",
                    setting=f"test.{test.name}.parse_timeout",
                )
        self._holding: dict[str, list[PlannedQuirk]] = {}  # by commit: the quirks that hold
        self._machine = MachineWatch(self.topology.member(""), self.marker)
        self._pending_steps: list[NewStep] = []  # reboots before the next repetition
        self._ready: tuple[int, Path, StepsOutcome] | None = None  # the checkout built last

    def run(self, plan: WalkPlan) -> Measured:
        """Measure every repetition of the plan not stored yet: checkout after checkout,
        or, in rounds, every checkout built first, then one repetition of each per round."""
        return self._walk(plan.checkouts, plan.repetitions, plan.measuring)

    def measure_more(self, planned: PlannedCheckout, repetitions: int) -> Measured:
        """Store ``repetitions`` more repetitions of one checkout (a drill's request).

        The checkout is built unless it was the last one built by this walk; a
        checkout whose build failed gets nothing more.
        """
        done = self.store.done_repetitions(self.series_id)
        have = sum(1 for idx, _rep in done if idx == planned.checkout.index)
        return self._walk([planned], have + repetitions, Measuring())

    def measure_again(
        self, pairs: Sequence[tuple[PlannedCheckout, PlannedCheckout]]
    ) -> list[Remeasured | None]:
        """One more repetition of each checkout of each pair (a change's two checkouts,
        ``[run] confirm``), in a new round: before, after, before, after… in the order
        of ``pairs``. Each checkout is built once, in a worktree of its own (installed
        again before each repetition when the walk installs builds); its warm-up runs
        run before its first. Per pair, the repetitions it got, or None when one of
        its checkouts did not build."""
        try:
            return self._measure_again(pairs)
        finally:
            self._parsing.close()

    def _measure_again(
        self, pairs: Sequence[tuple[PlannedCheckout, PlannedCheckout]]
    ) -> list[Remeasured | None]:
        every = {p.checkout.index: p for pair in pairs for p in pair}
        have: dict[int, int] = {}  # the next free repetition index of each checkout
        for index, rep in self.store.done_repetitions(self.series_id):
            have[index] = max(have.get(index, 0), rep + 1)
        self._done, self._total = 0, 2 * len(pairs)
        self._count = len(self.store.checkouts(self.series_id))
        self._warm = set()
        ready: dict[int, tuple[int, Path] | None] = {}
        installed: int | None = None  # the checkout installed last (builds installed)
        found: list[Remeasured | None] = []
        for pair in pairs:
            got: list[tuple[int, tuple[NewResult, ...]]] = []
            for planned in pair:
                index = planned.checkout.index
                if index not in ready or (self.config.install and installed != index):
                    ready[index] = self._ready_again(every[index])
                    installed = index
                prepared = ready[index]
                if prepared is None:
                    break
                checkout_id, worktree = prepared
                rep = have.get(index, 0)
                have[index] = rep + 1
                ran = self._measure(checkout_id, worktree, planned.checkout, rep, _Tally())
                got.append((rep, ran))
            if len(got) < 2:
                found.append(None)
                self._done += 2 - len(got)
                continue
            (before_rep, before), (after_rep, after) = got
            found.append(Remeasured(before_rep, after_rep, before, after))
        return found

    def _ready_again(self, planned: PlannedCheckout) -> tuple[int, Path] | None:
        """A checkout built again for a re-measure (no quirk crossed: the walk crossed
        them already), or None when it does not build."""
        checkout = planned.checkout
        checkout_id = self.store.add_checkout(self.series_id, checkout)
        self._report(checkout, f"building {checkout.commit[:12]} again")
        slot = f"checkout-{checkout.index}"
        worktree, build = self._prepare(checkout_id, planned, planned.position, slot=slot)
        if build.status is not Status.PASS:
            self._report(checkout, f"build failed: {build.failed}")
            return None
        return checkout_id, worktree

    def _walk(
        self, checkouts: Sequence[PlannedCheckout], repetitions: int, measuring: Measuring
    ) -> Measured:
        try:
            return self._run(checkouts, _Count(repetitions, measuring))
        finally:
            self._parsing.close()  # (started again by the next parse)

    def _run(self, checkouts: Sequence[PlannedCheckout], count: _Count) -> Measured:
        tallies = self._tallies(checkouts, count)
        built = {row.idx: row.build_status for row in self.store.checkouts(self.series_id)}
        self._done = sum(min(len(t.done), count.most) for t in tallies.values())
        self._total = len(checkouts) * count.most
        self._count = len(checkouts)
        self._warm = set()
        builds: dict[int, Status] = {}
        results: dict[int, list[NewResult]] = {}
        rounds = count.measuring.order == "rounds"
        ready: dict[int, tuple[int, Path]] = {}  # checkout index -> its id, its worktree
        previous: int | None = None
        for planned in checkouts:
            checkout = planned.checkout
            checkout_id = self.store.add_checkout(self.series_id, checkout)
            tally = tallies[checkout.index]
            prior = previous if previous is not None else planned.since
            previous = planned.position
            before = built.get(checkout.index)
            if count.next(tally) is None or before is Status.NOEXIST:
                if before is not None:
                    builds[checkout.index] = before
                continue
            self._report(checkout, f"building {checkout.commit[:12]}")
            if rounds:  # each checkout in a worktree of its own, kept for every round
                worktree, build = self._prepare(
                    checkout_id, planned, prior, slot=f"checkout-{checkout.index}"
                )
            else:
                worktree, build = self._prepare_once(checkout_id, planned, prior)
            builds[checkout.index] = build.status
            if build.status is not Status.PASS:
                self._done += count.most - len(tally.done)
                self._report(checkout, f"build failed: {build.failed}")
                continue
            if rounds:
                ready[checkout.index] = (checkout_id, worktree)
                continue
            ran = results.setdefault(checkout.index, [])
            while (rep := count.next(tally)) is not None:
                ran.extend(self._measure(checkout_id, worktree, checkout, rep, tally))
            self._done += count.most - len(tally.done)  # adaptive: those not needed
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
                ran.extend(self._measure(checkout_id, worktree, checkout, number, tally))
        for index in ready:
            self._done += count.most - len(tallies[index].done)  # adaptive: not needed

    def _tallies(self, checkouts: Sequence[PlannedCheckout], count: _Count) -> dict[int, _Tally]:
        """What each checkout has stored already: its repetitions, and (adaptive
        repetitions) its counted values."""
        tallies = {planned.checkout.index: _Tally() for planned in checkouts}
        for index, rep in self.store.done_repetitions(self.series_id):
            if index in tallies:
                tallies[index].done.add(rep)
        if count.measuring.repetitions_max is not None and any(t.done for t in tallies.values()):
            for row in self.store.values(self.series_id):
                if row.checkout_idx in tallies and row.status is Status.PASS:
                    tallies[row.checkout_idx].add(self._counted, row.test, row.name, row.value)
        return tallies

    def _counted(self, test: str, name: str) -> bool:
        """Whether the values ``name`` of ``test`` count for adaptive repetitions (a
        metric the analysis ignores does not)."""
        found = self._tests.get(test)
        configured = found.metrics.get(name) if found is not None else None
        return configured is None or not configured.ignore

    def _measure(
        self, checkout_id: int, worktree: Path, checkout: Checkout, rep: int, tally: _Tally
    ) -> tuple[NewResult, ...]:
        """One repetition (after the checkout's warm-up runs, the first time), counted."""
        if checkout.index not in self._warm:
            self._warm.add(checkout.index)
            self._warm_up(worktree, checkout, rep)
        between = self._between(worktree, checkout, rep) if rep > 0 else None
        ran = self._repetition(checkout_id, worktree, checkout, rep, between)
        tally.done.add(rep)
        for result in ran:
            if result.status is Status.PASS:
                for value, _direction in result.values:
                    tally.add(self._counted, result.test, value.name, value.value)
        self._done += 1
        self._report(checkout, f"repetition {rep + 1}")
        return ran

    def _warm_up(self, worktree: Path, checkout: Checkout, rep: int) -> None:
        """Each test's warm-up runs: run, never counted; each kept as a ``warmup`` step
        of the checkout's next repetition (with its output), its values nowhere."""
        for test in self.config.tests:
            runs = test.warmups(self.config.run)
            for number in range(runs):
                self._report(checkout, f"warm-up {number + 1}/{runs} of {test.name}")
                started = datetime.now(UTC)
                result, _steps = self._test(test, worktree, checkout, rep, warmup=number + 1)
                self._pending_steps.append(
                    NewStep(
                        phase="warmup",
                        role=result.role,
                        host=result.host,
                        kind="command",
                        name=f"warm-up {number + 1}/{runs}",
                        command=result.command,
                        status=result.status,
                        started_at=started,
                        finished_at=datetime.now(UTC),
                        test=test.name,
                        message=result.message,
                        exit_code=result.exit_code,
                        stdout=result.stdout,
                        stderr=result.stderr,
                    )
                )

    def _report(self, checkout: Checkout, message: str) -> None:
        self.progress(Progress(self._done, self._total, checkout.index + 1, self._count, message))

    def _env(self, extra: Mapping[str, str], checkout: Checkout, rep: int | None) -> dict[str, str]:
        env = {"PERFWALK_COMMIT": checkout.commit, "PERFWALK_CHECKOUT": str(checkout.index)}
        if self.marker:
            env[WALK_MARKER] = self.marker
        if rep is not None:
            env["PERFWALK_REPETITION"] = str(rep)
        env.update(extra)
        return env

    def _prepare_once(
        self, checkout_id: int, planned: PlannedCheckout, prior: int | None
    ) -> tuple[Path, StepsOutcome]:
        """:meth:`_prepare` in the ``build`` worktree, unless this checkout is the one
        built last there."""
        if self._ready is not None and self._ready[0] == checkout_id:
            return self._ready[1], self._ready[2]
        worktree, build = self._prepare(checkout_id, planned, prior)
        self._ready = (checkout_id, worktree, build) if build.status is Status.PASS else None
        return worktree, build

    def _prepare(
        self, checkout_id: int, planned: PlannedCheckout, prior: int | None, slot: str = "build"
    ) -> tuple[Path, StepsOutcome]:
        """Worktree ``slot`` at the commit, the quirks that hold (patches) and those
        crossed (commands, reboots), then the build steps (a quirk's, where one replaces
        them)."""
        checkout = planned.checkout
        worktree = self.worktrees.checkout(checkout.commit, slot=slot)
        holding, crossed = applying(self.quirks, prior, planned.position)
        self._holding[checkout.commit] = holding
        env = self._env(dict(self.config.build.env), checkout, None)
        # a resumed walk does not run again what already ran here: the machine has it
        done = self._quirks_done(checkout_id) if crossed else set()
        runs: dict[str, StepsOutcome] = {}
        for quirk in holding:
            ran = StepsOutcome(Status.PASS, 0.0, Log.of(describe_holding(quirk).encode()), None)
            if quirk.patch is not None:
                status, log = self._apply_patch(worktree, quirk.patch)
                failed = None if status is Status.PASS else f"patch of quirk {quirk.letter}"
                ran = _joined(StepsOutcome(status, 0.0, log, failed), ran)
            if ran.status is not Status.PASS:
                self.store.add_quirk_run(checkout_id, quirk.letter, ran.status, ran.log)
                self.store.set_build(checkout_id, Status.NOEXIST, None, ran.log)
                return worktree, StepsOutcome(Status.NOEXIST, 0.0, ran.log, ran.failed)
            runs[quirk.letter] = ran
        for quirk in crossed:
            if quirk.letter in done:
                runs.pop(quirk.letter, None)  # its stored run says what ran
                continue
            ran = self._steps(quirk.commands, worktree, env, Status.NOEXIST)
            if ran.status is Status.PASS and quirk.config.reboot:
                ran = _joined(ran, self._reboot_all("quirk"))
            runs[quirk.letter] = _joined(runs[quirk.letter], ran) if quirk.letter in runs else ran
        for letter, ran in runs.items():
            self.store.add_quirk_run(checkout_id, letter, ran.status, ran.log)
        steps = build_steps(holding, self.config.build.steps)
        build = self._steps(steps, worktree, env, Status.NOEXIST)
        if build.status is Status.PASS and self.config.install:
            installed = install_checkout(
                self.config.install,
                self.topology,
                worktree,
                env=env,
                values=self._values(checkout, worktree, None),
                output_limit=self._limit,
            )
            build = _joined(build, installed)
        self.store.set_build(checkout_id, build.status, build.seconds, build.log)
        return worktree, build

    def _quirks_done(self, checkout_id: int) -> set[str]:
        """The letters of the quirks that already ran (PASS) at a checkout."""
        return {
            run.letter
            for row in self.store.checkouts(self.series_id)
            if row.id == checkout_id
            for run in row.quirk_runs
            if run.status is Status.PASS
        }

    def _apply_patch(self, worktree: Path, patch: Path) -> tuple[Status, Log]:
        try:
            apply_patch(worktree, patch)
        except Exception as error:  # a patch that does not apply is NOEXIST, not a crash
            return Status.NOEXIST, Log.of(f"patch {patch} failed: {error}\n".encode())
        return Status.PASS, Log.of(f"applied {patch}\n".encode())

    def _steps(
        self, steps: Sequence[str], worktree: Path, env: Mapping[str, str], failure: Status
    ) -> StepsOutcome:
        return run_steps(
            self.host,
            steps,
            cwd=str(worktree),
            timeout=self.config.build.timeout,
            env=env,
            output_limit=self._limit,
            failure=failure,
        )

    def _between(self, worktree: Path, checkout: Checkout, rep: int) -> StepsOutcome | None:
        """The action before repetition ``rep``: nothing, a reboot, a rebuild or a command."""
        if self.between == "keep":
            return None
        if self.between == "reboot":
            return self._reboot_all("between")
        env = self._env(dict(self.config.build.env), checkout, rep)
        if self.between == "rebuild":
            steps = build_steps(self._holding.get(checkout.commit, ()), self.config.build.steps)
            return self._steps(steps, worktree, env, Status.NOCLEAN)
        return self._steps([self.between], worktree, env, Status.NOCLEAN)

    def _reboot_all(self, phase: str) -> StepsOutcome:
        """Reboot every ssh host of the run that has a reboot command, all at once."""
        members = [m for m in self.topology if not m.local and m.reboot]

        def job(member: Member) -> Callable[[object], RebootOutcome]:
            return lambda _cancel: reboot(member, phase=phase)

        outcomes = run_together([job(m) for m in members]) if members else []
        for outcome in outcomes:
            if outcome.status is Status.PASS:
                self.topology.restore_workdir(outcome.host)
        self._pending_steps.extend(step for o in outcomes for step in o.steps)
        text = "".join(f"[{o.message}]\n" for o in outcomes) or "[no ssh host to reboot]\n"
        status = Status.worst([o.status for o in outcomes])
        seconds = max((o.up_after or o.down_after or 0.0 for o in outcomes), default=0.0)
        failed = next((o.message for o in outcomes if o.status is not Status.PASS), None)
        return StepsOutcome(status, seconds, Log.of(text.encode()), failed)

    def _repetition(
        self,
        checkout_id: int,
        worktree: Path,
        checkout: Checkout,
        rep: int,
        between: StepsOutcome | None,
    ) -> tuple[NewResult, ...]:
        started = datetime.now(UTC)
        first = self._machine.begin()
        steps, self._pending_steps = self._pending_steps, []
        results = []
        for test in self.config.tests:
            result, test_steps = self._test(test, worktree, checkout, rep)
            results.append(result)
            steps.extend(test_steps)
        self.store.add_repetition(
            checkout_id,
            NewRepetition(
                idx=rep,
                started_at=started,
                finished_at=datetime.now(UTC),
                between_status=None if between is None else between.status,
                between_log=None if between is None else between.log,
                results=tuple(results),
                steps=tuple(steps),
                machine=self._machine.end(first),
                machine_host=self._machine.member.name,
            ),
        )
        return tuple(results)

    def _values(self, checkout: Checkout, worktree: Path, rep: int | None) -> dict[str, str]:
        values = {
            "commit": checkout.commit,
            "worktree": str(worktree),
            "checkout": str(checkout.index),
        }
        if rep is not None:
            values["repetition"] = str(rep)
        return values

    def _test(
        self, test: TestConfig, worktree: Path, checkout: Checkout, rep: int, warmup: int = 0
    ) -> tuple[NewResult, tuple[NewStep, ...]]:
        """Run ``test`` once: repetition ``rep``, or (``warmup`` > 0, in the environment as
        ``PERFWALK_WARMUP``) that warm-up run before it."""
        verify_checkout(worktree, checkout.commit)  # nothing else moved it since the build
        test, parser = self._test_here(test, checkout)
        run_id = secrets.token_hex(8)
        extra = {RUN_MARKER: run_id}
        if warmup:
            extra["PERFWALK_WARMUP"] = str(warmup)
        context = TestContext(
            topology=self.topology,
            worktree=worktree,
            values={**self._values(checkout, worktree, rep), "test": test.name},
            env=self._env(extra, checkout, rep),
            output_limit=self._limit,
            artifact_limit=self.config.store.artifact_limit,
            cpus=test.pinned(self.config.run),
        )
        contained = Containment(self.topology, self.marker, run_id)
        try:
            outcome = run_test(test, parser, self._role_parsers[test.name], context)
        finally:
            leftovers = contained.end()  # also after Ctrl-C: nothing of the test outlives it
        outcome = contained.report(outcome, leftovers)
        return outcome.result, outcome.steps

    def _test_here(self, test: TestConfig, checkout: Checkout) -> tuple[TestConfig, Parser]:
        """``test`` and its parser as they run at ``checkout``: a quirk that holds there
        may replace its command, its parser or the parser's options."""
        test, letter = replaced_test(self._holding.get(checkout.commit, ()), test)
        parser = self._quirk_parsers.get((letter or "", test.name), self._parsers[test.name])
        return test, parser


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


def _joined(first: StepsOutcome, then: StepsOutcome) -> StepsOutcome:
    """Two outcomes as one: the worse status, the time and the logs of both."""
    log = Log(
        data=first.log.data + then.log.data,
        total=first.log.total + then.log.total,
        truncated=first.log.truncated or then.log.truncated,
    )
    status = Status.worst([first.status, then.status])
    return StepsOutcome(status, first.seconds + then.seconds, log, first.failed or then.failed)
