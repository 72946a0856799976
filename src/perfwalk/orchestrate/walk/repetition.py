"""Run one repetition of a checkout and store it as soon as it finishes: the
checkout's warm-up runs before its first repetition of the walk's call, the action
between repetitions, every test through its four phases on the hosts of the run's
topology (:mod:`perfwalk.orchestrate.phases.phases`), the state of each of those hosts
around it (:mod:`perfwalk.orchestrate.hosts.machine`).

With ``layout = "random"``, each repetition is measured on a layout of its own, laid
out before it with its seed, which it keeps as a step
(:meth:`perfwalk.orchestrate.walk.preparation.Preparation.lay_out`).

A test's ``[[test.instrument]]``s measure its command in every repetition (not in its
warm-up runs) beside its parser (:mod:`perfwalk.orchestrate.instruments.instruments`).

A test with ``[test.profile]`` is profiled (:mod:`perfwalk.orchestrate.instruments.profiling`):
in every repetition (``repetitions = "all"``), or in one extra run per checkout after
its counted repetitions (:meth:`Repetitions.profile_extra`), stored with its profile
and never as a repetition: no summary, change, drill or try counts its values.

Each test run carries its own marker (``PERFWALK_RUN_ID``) besides the walk's: what
a test leaves running is stopped and reported (:mod:`perfwalk.orchestrate.phases.containment`).
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from perfwalk.config.instruments import EVERY_RUN, EXTRA_RUN, instrument_metric_names
from perfwalk.config.model import InstrumentConfig, TestConfig, VariantConfig
from perfwalk.git.worktree import verify_checkout
from perfwalk.hosts.leftovers import RUN_MARKER
from perfwalk.model import Checkout, Direction, MachineState, Status, Value
from perfwalk.orchestrate.checkout.checkout_env import checkout_env, checkout_values
from perfwalk.orchestrate.checkout.variants import base_variant
from perfwalk.orchestrate.hosts.hangs import NOTHING, Recovered
from perfwalk.orchestrate.hosts.machine import MachineWatch, playing
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.instruments.cachegrind import Cachegrind
from perfwalk.orchestrate.instruments.instruments import UNARMED, Instruments
from perfwalk.orchestrate.instruments.perf_stat import PerfStat
from perfwalk.orchestrate.instruments.profiling import (
    CapturedProfile,
    Profiler,
    ProfileRequest,
    failed,
)
from perfwalk.orchestrate.instruments.rusage import Rusage
from perfwalk.orchestrate.phases.containment import Containment
from perfwalk.orchestrate.phases.modifiers import ModifierLedger, runtime_modifiers
from perfwalk.orchestrate.phases.phases import TestContext, TestOutcome, run_test
from perfwalk.orchestrate.steps.shell_steps import StepsOutcome, joined
from perfwalk.orchestrate.walk.preparation import Preparation
from perfwalk.orchestrate.walk.walk_parsers import ParserWatch, WalkParsers
from perfwalk.orchestrate.walk.walk_progress import HUNG, VALUES_LOST, ProgressCount
from perfwalk.orchestrate.walk.walk_setup import WalkSetup
from perfwalk.store.profiles import NewProfile
from perfwalk.store.records import NewRepetition, NewResult, NewSnapshot, NewStep


@dataclass
class Repetitions:
    """Runs and stores the repetitions of the checkouts ``preparation`` prepared."""

    setup: WalkSetup
    preparation: Preparation
    parsers: WalkParsers
    progress: ProgressCount
    #: the checkouts (ids) whose warm-up runs ran in this call of the walk
    warm: set[int] = field(default_factory=set)
    #: the state of each host over the last repetition measured (none read: empty)
    last_states: dict[str, MachineState] = field(default_factory=dict)
    #: by checkout id: how many of its last repetitions in a row a host hung in
    hung_in_a_row: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._machine = MachineWatch(
            playing(self.setup.config, self.setup.topology), self.setup.marker
        )
        self._base = base_variant(self.setup.config)
        self._profiler = Profiler()
        self._instruments = Instruments(
            {kind.kind: kind for kind in (Rusage(), Cachegrind(), PerfStat())}
        )
        self._ledger = ModifierLedger(self.setup.store, self.setup.series_id, self.setup.marker)
        self._watch = ParserWatch(self.setup.store)

    def measure(
        self,
        checkout_id: int,
        worktree: Path,
        checkout: Checkout,
        rep: int,
        variant: VariantConfig | None = None,
    ) -> tuple[NewResult, ...]:
        """Repetition ``rep`` of the checkout as ``variant`` (None: the plain checkout)
        changes it, after the checkout's warm-up runs, the first time."""
        variant = variant or self._base
        if checkout_id not in self.warm:
            self.warm.add(checkout_id)
            self._warm_up(worktree, checkout, rep, variant)
        between = (
            self.preparation.between_repetitions(worktree, checkout, rep, variant)
            if rep > 0
            else None
        )
        if (again := self.preparation.install_again(worktree, checkout, variant)) is not None:
            between = again if between is None else joined(again, between)
        if (laid_out := self.preparation.lay_out(worktree, checkout, rep, variant)) is not None:
            self.preparation.pending_steps.append(laid_out)
        ran = self._repetition(checkout_id, worktree, checkout, rep, between, variant=variant)
        series = next(
            (v.series_id for v in self.setup.variants if v.config is variant), self.setup.series_id
        )
        for said in self._watch.check(series, checkout.index, ran):
            self.progress.report(checkout, said, VALUES_LOST)
        self.progress.done += 1
        self.progress.report(checkout, f"repetition {rep + 1}")
        return ran

    def _warm_up(
        self, worktree: Path, checkout: Checkout, rep: int, variant: VariantConfig | None
    ) -> None:
        """Each test's warm-up runs: run, never counted; each kept as a ``warmup`` step
        of the checkout's next repetition (with its output), its values nowhere."""
        for test in self.setup.config.tests:
            runs = test.warmups(self.setup.config.run)
            for number in range(runs):
                self.progress.report(checkout, f"warm-up {number + 1}/{runs} of {test.name}")
                started = datetime.now(UTC)
                outcome = self._test(
                    test, worktree, checkout, rep, variant=variant, warmup=number + 1
                )
                self.preparation.pending_steps.append(
                    _as_step(outcome.result, "warmup", f"warm-up {number + 1}/{runs}", started)
                )
                recovered = self._recover(outcome, checkout, "warmup")
                self.preparation.pending_steps.extend(recovered.steps)
                if recovered.error is not None:
                    raise recovered.error
                if recovered.hung:
                    return  # the repetition runs on the host as it came back

    def _extra_run(
        self,
        test: TestConfig,
        worktree: Path,
        checkout: Checkout,
        rep: int,
        variant: VariantConfig | None,
    ) -> tuple[tuple[tuple[Value, Direction | str], ...], str, NewStep]:
        """The extra run of ``test`` under its instruments of ``runs = "extra"``, before
        the checkout's first repetition: what they measured, what to say of the run,
        and the run as a step (its values of the test counted nowhere)."""
        extra = test.instruments_of(EXTRA_RUN)
        kinds = ", ".join(instrument.kind for instrument in extra)
        self.progress.report(checkout, f"extra run of {test.name} under {kinds}")
        started = datetime.now(UTC)
        outcome = self._test(test, worktree, checkout, rep, variant=variant, instruments=extra)
        result = outcome.result
        names = frozenset(name for i in extra for name in instrument_metric_names(i.kind))
        values = tuple(pair for pair in result.values if pair[0].name in names)
        said = result.message  # what the instruments could not measure, when anything
        if result.status is not Status.PASS:
            said = f"the extra run under {kinds} was {result.status.name}"
            said += f": {result.message}" if result.message else ""
        return values, said, _as_step(result, "instrument", f"extra run under {kinds}", started)

    def _repetition(
        self,
        checkout_id: int,
        worktree: Path,
        checkout: Checkout,
        rep: int,
        between: StepsOutcome | None,
        *,
        variant: VariantConfig | None,
    ) -> tuple[NewResult, ...]:
        started = datetime.now(UTC)
        first = self._machine.begin()
        steps = list(self.preparation.pending_steps)
        self.preparation.pending_steps.clear()
        results = []
        snapshots: list[NewSnapshot] = []
        profiles: list[tuple[TestConfig, TestOutcome]] = []
        hung = NOTHING
        for test in self.setup.config.tests:
            if hung.hung:  # a host was power-cycled: the rest of the repetition is not run
                results.append(_not_run(test, self.setup.topology, hung.message))
                continue
            extra = None
            if rep == 0 and test.instruments_of(EXTRA_RUN):
                extra = self._extra_run(test, worktree, checkout, rep, variant)
            every = test.profile.on and test.profile.repetitions == "all"
            outcome = self._test(test, worktree, checkout, rep, variant=variant, profiled=every)
            result = outcome.result
            if extra is not None:  # the extra run's measures, stored with the first repetition
                values, said, step = extra
                steps.append(step)
                message = "; ".join(m for m in (result.message, said) if m)
                result = dataclasses.replace(result, values=result.values + values, message=message)
            steps.extend(outcome.steps)
            hung = self._recover(outcome, checkout, "run")
            if hung.hung:
                result = dataclasses.replace(result, message=_also(result.message, hung.message))
                steps.extend(hung.steps)
            results.append(result)
            snapshots.extend(outcome.snapshots)
            if every:
                profiles.append((test, outcome))
        finished = datetime.now(UTC)
        self.last_states = self._machine.end(first)
        self.setup.store.add_repetition(
            checkout_id,
            NewRepetition(
                idx=rep,
                started_at=started,
                finished_at=finished,
                between_status=None if between is None else between.status,
                between_log=None if between is None else between.log,
                results=tuple(results),
                steps=tuple(steps),
                snapshots=tuple(snapshots),
                machines=self.last_states,
            ),
        )
        for test, outcome in profiles:
            self._store_profile(checkout_id, test, outcome, rep)
        self.hung_in_a_row[checkout_id] = (
            self.hung_in_a_row.get(checkout_id, 0) + 1 if hung.hung else 0
        )
        if hung.error is not None:  # once the repetition is stored
            raise hung.error
        return tuple(results)

    def _recover(self, outcome: TestOutcome, checkout: Checkout, phase: str) -> Recovered:
        """The hosts a test timed out on or lost, asked whether they answer and
        power-cycled when they do not (:mod:`perfwalk.orchestrate.hosts.hangs`)."""
        hangs = self.setup.hangs
        places = [(outcome.result.host, outcome.result.status)]
        places += [(step.host, step.status) for step in outcome.steps]
        suspects = hangs.suspects(places)
        if not suspects:
            return NOTHING
        names = ", ".join(m.name for m in suspects)
        self.progress.report(checkout, f"asking {names} whether it answers")
        recovered = hangs.recover(suspects, phase=phase)
        if recovered.hung:
            self.progress.report(checkout, recovered.message, HUNG)
        return recovered

    def profile_extra(
        self,
        checkout_id: int,
        worktree: Path,
        checkout: Checkout,
        rep: int,
        variant: VariantConfig | None = None,
        *,
        tests: Sequence[TestConfig] | None = None,
    ) -> int:
        """The extra profiled run of each test with ``repetitions = "extra"`` whose run
        at this checkout is not stored yet (``rep``: the repetition number its commands
        see, the one after the counted ones); each stored with its profile as it ends,
        its values there and nowhere else (``tests``: these instead of the walk's). How
        many ran."""
        variant = variant or self._base
        wanted = [
            test
            for test in (self.setup.config.tests if tests is None else tests)
            if test.profile.on and test.profile.repetitions == "extra"
        ]
        if not wanted:
            return 0
        done = self.setup.store.profiles.extra_done(checkout_id)
        ran = 0
        for test in wanted:
            if test.name in done:
                continue
            self.progress.report(checkout, f"profiled run of {test.name}")
            outcome = self._test(test, worktree, checkout, rep, variant=variant, profiled=True)
            self._store_profile(checkout_id, test, outcome, None)
            ran += 1
        return ran

    def _store_profile(
        self, checkout_id: int, test: TestConfig, outcome: TestOutcome, rep: int | None
    ) -> None:
        captured = outcome.profile
        result = outcome.result
        if captured is None:  # the profiled role never ran its commands
            member = self.setup.topology.member(test.role)
            captured = failed(
                test.profile, test.profile.role, member, "the profiled commands did not run"
            )
        message = captured.message
        if result.status is not Status.PASS:
            said = f"the profiled run was {result.status.name}"
            said += f": {result.message}" if result.message else ""
            message = f"{message}; {said}" if message else said
        self.setup.store.profiles.add(
            checkout_id,
            NewProfile(
                test=test.name,
                role=captured.role,
                host=captured.host,
                tool=captured.tool,
                event=captured.event,
                status=captured.status,
                message=message,
                stacks=captured.stacks,
                repetition=rep,
                values=tuple((v.name, v.value, v.unit) for v, _direction in result.values)
                if rep is None
                else (),
                duration=result.duration,
            ),
            limit=test.profile.limit,
        )

    def _test(
        self,
        test: TestConfig,
        worktree: Path,
        checkout: Checkout,
        rep: int,
        *,
        variant: VariantConfig | None,
        warmup: int = 0,
        profiled: bool = False,
        instruments: Sequence[InstrumentConfig] | None = None,
    ) -> TestOutcome:
        """Run ``test`` once, with the runtime modifiers of ``variant``: repetition
        ``rep``, or (``warmup`` > 0, in the environment as ``PERFWALK_WARMUP``) that
        warm-up run before it; ``profiled``: under its [test.profile] profiler, when
        that can record on the host (else as it is, the profile XFAIL); ``instruments``:
        these instead of its instruments of every run."""
        verify_checkout(worktree, checkout.commit)  # nothing else moved it since the build
        test, parser = self.parsers.here(test, self.preparation.holding(checkout))
        run_id = secrets.token_hex(8)
        extra = {**(variant.run_env if variant is not None else {}), RUN_MARKER: run_id}
        if warmup:
            extra["PERFWALK_WARMUP"] = str(warmup)
        context = TestContext(
            topology=self.setup.topology,
            worktree=worktree,
            values={
                **checkout_values(checkout, worktree, rep),
                "test": test.name,
                **test.placeholders(),
            },
            env=checkout_env(extra, checkout, rep, self.setup.marker),
            output_limit=self.setup.config.store.log_limit,
            artifact_limit=self.setup.config.store.artifact_limit,
            cpus=test.pinned(self.setup.config.run),
            snapshots=self.setup.config.snapshots,
            modifiers=runtime_modifiers(variant),
            ledger=self._ledger,
            instruments=UNARMED
            if warmup
            else self._instruments.arm(
                test.name,
                test.instruments_of(EVERY_RUN) if instruments is None else instruments,
                self.setup.topology.member(test.role),
                f"/tmp/perfwalk-instrument-{run_id}",
            ),
        )
        unable: CapturedProfile | None = None
        if profiled:
            config = test.profile
            role = "" if config.role in ("", test.role) else config.role
            member = self.setup.topology.member(role or test.role)
            problem = self._profiler.unavailable(member, config)
            if problem is None:
                path = f"/tmp/perfwalk-profile-{run_id}"
                request = ProfileRequest(config, role, path)
                context = dataclasses.replace(context, profile=request, profiler=self._profiler)
            else:
                unable = failed(config, role, member, problem)
        contained = Containment(self.setup.topology, self.setup.marker, run_id)
        try:
            outcome = run_test(test, parser, self.parsers.roles(test.name), context)
        finally:
            leftovers = contained.end()  # also after Ctrl-C: nothing of the test outlives it
        outcome = contained.report(outcome, leftovers)
        if unable is not None:
            outcome = dataclasses.replace(outcome, profile=unable)
        return outcome


def _as_step(result: NewResult, phase: str, name: str, started: datetime) -> NewStep:
    """A run of a test that is not counted (a warm-up, an instrument's extra run) as
    a step of the repetition after it, with its output."""
    return NewStep(
        phase=phase,
        role=result.role,
        host=result.host,
        kind="command",
        name=name,
        command=result.command,
        status=result.status,
        started_at=started,
        finished_at=datetime.now(UTC),
        test=result.test,
        message=result.message,
        exit_code=result.exit_code,
        stdout=result.stdout,
        stderr=result.stderr,
    )


def _not_run(test: TestConfig, topology: Topology, why: str) -> NewResult:
    """The result of a test not run in a repetition where a host was power-cycled."""
    member = topology.member(test.role)
    message = f"not run: {why}"
    return NewResult(
        test=test.name, status=Status.NORUN, message=message, role=test.role, host=member.name
    )


def _also(message: str, more: str) -> str:
    return f"{message}; {more}" if message else more
