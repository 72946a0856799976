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

import secrets
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

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
from perfwalk.store.records import NewRepetition, NewResult, NewStep

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
        self._limit = self.config.store.log_limit
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
        """Measure every repetition of the plan not stored yet, checkout after checkout."""
        return self._walk(plan.checkouts, plan.repetitions)

    def measure_more(self, planned: PlannedCheckout, repetitions: int) -> Measured:
        """Store ``repetitions`` more repetitions of one checkout (a drill's request).

        The checkout is built unless it was the last one built by this walk; a
        checkout whose build failed gets nothing more.
        """
        done = self.store.done_repetitions(self.series_id)
        have = sum(1 for idx, _rep in done if idx == planned.checkout.index)
        return self._walk([planned], have + repetitions)

    def _walk(self, checkouts: Sequence[PlannedCheckout], repetitions: int) -> Measured:
        try:
            return self._run(checkouts, repetitions)
        finally:
            self._parsing.close()  # (started again by the next parse)

    def _run(self, checkouts: Sequence[PlannedCheckout], repetitions: int) -> Measured:
        done = self.store.done_repetitions(self.series_id)
        built = {row.idx: row.build_status for row in self.store.checkouts(self.series_id)}
        total = len(checkouts) * repetitions
        finished = len(done)
        stored = Counter(idx for idx, rep in done if rep < repetitions)
        count = len(checkouts)
        builds: dict[int, Status] = {}
        results: dict[int, list[NewResult]] = {}
        previous: int | None = None
        for planned in checkouts:
            checkout = planned.checkout
            checkout_id = self.store.add_checkout(self.series_id, checkout)
            # counted, not listed: nothing here grows with the number of repetitions
            have = stored[checkout.index]
            todo = (r for r in range(repetitions) if (checkout.index, r) not in done)
            prior = previous if previous is not None else planned.since
            previous = planned.position
            before = built.get(checkout.index)
            if have == repetitions or before is Status.NOEXIST:
                if before is not None:
                    builds[checkout.index] = before
                continue
            self._report(finished, total, checkout, count, f"building {checkout.commit[:12]}")
            worktree, build = self._prepare_once(checkout_id, planned, prior)
            builds[checkout.index] = build.status
            if build.status is not Status.PASS:
                finished += repetitions - have
                self._report(finished, total, checkout, count, f"build failed: {build.failed}")
                continue
            ran = results.setdefault(checkout.index, [])
            for rep in todo:
                between = self._between(worktree, checkout, rep) if rep > 0 else None
                ran.extend(self._repetition(checkout_id, worktree, checkout, rep, between))
                finished += 1
                self._report(finished, total, checkout, count, f"repetition {rep + 1}")
        return Measured(builds, {index: tuple(found) for index, found in results.items()})

    def _report(
        self, done: int, total: int, checkout: Checkout, checkouts: int, message: str
    ) -> None:
        self.progress(Progress(done, total, checkout.index + 1, checkouts, message))

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
        """:meth:`_prepare`, unless this checkout is the one built last and still there."""
        if self._ready is not None and self._ready[0] == checkout_id:
            return self._ready[1], self._ready[2]
        worktree, build = self._prepare(checkout_id, planned, prior)
        self._ready = (checkout_id, worktree, build) if build.status is Status.PASS else None
        return worktree, build

    def _prepare(
        self, checkout_id: int, planned: PlannedCheckout, prior: int | None
    ) -> tuple[Path, StepsOutcome]:
        """Worktree at the commit, the quirks that hold (patches) and those crossed
        (commands, reboots), then the build steps (a quirk's, where one replaces them)."""
        checkout = planned.checkout
        worktree = self.worktrees.checkout(checkout.commit)
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
        self, test: TestConfig, worktree: Path, checkout: Checkout, rep: int
    ) -> tuple[NewResult, tuple[NewStep, ...]]:
        verify_checkout(worktree, checkout.commit)  # nothing else moved it since the build
        test, parser = self._test_here(test, checkout)
        run_id = secrets.token_hex(8)
        context = TestContext(
            topology=self.topology,
            worktree=worktree,
            values={**self._values(checkout, worktree, rep), "test": test.name},
            env=self._env({RUN_MARKER: run_id}, checkout, rep),
            output_limit=self._limit,
            artifact_limit=self.config.store.artifact_limit,
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


def _joined(first: StepsOutcome, then: StepsOutcome) -> StepsOutcome:
    """Two outcomes as one: the worse status, the time and the logs of both."""
    log = Log(
        data=first.log.data + then.log.data,
        total=first.log.total + then.log.total,
        truncated=first.log.truncated or then.log.truncated,
    )
    status = Status.worst([first.status, then.status])
    return StepsOutcome(status, first.seconds + then.seconds, log, first.failed or then.failed)
