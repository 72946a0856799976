"""One test at one repetition, in four phases across its hosts.

1. **startup**: each role's startup steps in order (after the apply commands of the
   variant's runtime modifiers on that role, each recorded in the store first:
   :mod:`perfwalk.orchestrate.phases.modifiers`), then the background services,
   each waited for by its readiness check (a port that accepts, a text in its
   output; never a fixed sleep). A failure skips the run phase: the test is
   NOEXIST, or NORUN when its host could not be reached.
   Then the ``[[snapshot]]`` commands (:mod:`perfwalk.orchestrate.phases.snapshots`).
2. **run**: the test's command on its role's host and every role's run commands,
   all started together behind a barrier (:mod:`perfwalk.orchestrate.hosts.together`).
   The command's output gives the test's values; a role with a parser adds its
   own, named ``<role>.<value>``; the test's derived metrics are computed from them
   (:mod:`perfwalk.orchestrate.phases.derived_values`).
   Then the ``[[snapshot]]`` commands again: their counters' difference is what
   the test changed on each host.
3. **collect**: each role's collect commands (their output is stored) and files
   fetched from its host (stored as artifacts, bounded like logs).
4. **reset**: always, after a failure, a timeout, a lost host or Ctrl-C: the
   services are stopped by their process group id (and their logs fetched), then
   each role's reset steps run, all of them, whatever fails, and last the undo
   commands of the runtime modifiers on that role, in the reverse order (the record
   of a modifier is cleared once its undo commands passed).

Under ``[test.profile]`` (:mod:`perfwalk.orchestrate.instruments.profiling`) the profiled
command runs under the profiler, whose stacks are read back on its host after it
ends; a profile that fails never changes the test's status.

The result's status is the worst of the command's own (see
:func:`perfwalk.orchestrate.phases.outcome.judge`), the run commands', NOLOG when a
collect step or a fetch failed, NOCLEAN when a reset step failed. A host lost
during the test is not asked anything more (NORUN for what it owed) except its
reset, attempted once (:class:`~perfwalk.orchestrate.steps.recorder.StepRecorder`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from perfwalk.config.host_model import InstallConfig
from perfwalk.config.model import SnapshotConfig, TestConfig
from perfwalk.errors import HostError, PerfwalkError
from perfwalk.hosts.base import Completed
from perfwalk.model import EMPTY_LOG, Histogram, Log, Status, Value
from perfwalk.orchestrate.hosts.together import run_together
from perfwalk.orchestrate.hosts.topology import Member, Topology
from perfwalk.orchestrate.instruments.instruments import UNARMED, Armed
from perfwalk.orchestrate.instruments.profiling import (
    CapturedProfile,
    Profiler,
    ProfileRequest,
    merged,
    wrapper,
)
from perfwalk.orchestrate.phases.derived_values import derived_values
from perfwalk.orchestrate.phases.modifiers import ModifierLedger, RuntimeModifier
from perfwalk.orchestrate.phases.outcome import Outcome, judge
from perfwalk.orchestrate.phases.snapshots import Snapshots
from perfwalk.orchestrate.steps import background
from perfwalk.orchestrate.steps.placeholders import names, substitute
from perfwalk.orchestrate.steps.recorder import Place, StepRecorder, never_ran, step_status, why
from perfwalk.parsers import Parser
from perfwalk.store.records import NewResult, NewSnapshot, NewStep


@dataclass(frozen=True)
class TestContext:
    """Where and when a test runs: the hosts, the checkout, the repetition."""

    __test__ = False  # not a pytest test class

    topology: Topology
    worktree: Path
    values: Mapping[str, str]  # placeholders: commit, worktree, repetition, checkout, test
    env: Mapping[str, str]  # PERFWALK_COMMIT, …
    output_limit: int
    artifact_limit: int
    cpus: str = ""  # the CPUs the command runs on (taskset -c); "" = not pinned
    snapshots: tuple[SnapshotConfig, ...] = ()  # [[snapshot]]: around the run phase
    profile: ProfileRequest | None = None  # the run to profile, if any
    profiler: Profiler | None = None  # reads the profile back
    modifiers: tuple[RuntimeModifier, ...] = ()  # the variant's runtime modifiers
    ledger: ModifierLedger | None = None  # records them while they are in place
    instruments: Armed = UNARMED  # what measures the test's command besides its parser


@dataclass(frozen=True)
class TestOutcome:
    """A test's result (with every value) and every step its phases ran."""

    __test__ = False

    result: NewResult
    steps: tuple[NewStep, ...]
    snapshots: tuple[NewSnapshot, ...] = ()
    profile: CapturedProfile | None = None  # what the profiled run gave, when profiled


def run_test(
    test: TestConfig, parser: Parser, role_parsers: Mapping[str, Parser], ctx: TestContext
) -> TestOutcome:
    """Run ``test`` through its four phases; never raises for a failing step.

    KeyboardInterrupt stops the run phase at once, runs the reset phase, and is
    raised again.
    """
    return _TestRun(test, parser, role_parsers, ctx).run()


#: The placeholders of every test command besides the hosts' variables.
TEST_PLACEHOLDERS = ("commit", "worktree", "repetition", "checkout", "test", "hostdir")


def check_placeholders(
    tests: Sequence[TestConfig], install: Mapping[str, InstallConfig], topology: Topology
) -> None:
    """Every placeholder of every command names something: a ConfigError naming the
    key otherwise, before anything runs (not at the first repetition that uses it)."""
    shared = dict.fromkeys((*TEST_PLACEHOLDERS, *topology.placeholders()), "")
    for test in tests:
        known = {**shared, **test.placeholders()}  # a sweep's member: {sweep.<parameter>}
        where = f"test.{test.name}"
        texts = [("command", test.command)]
        texts += [(f"service[{n}].command", s.command) for n, s in enumerate(test.services)]
        for role, phases in test.roles.items():
            for phase in ("startup", "run", "collect", "fetch", "reset"):
                texts += [(f"roles.{role}.{phase}", t) for t in getattr(phases, phase)]
        for key, text in texts:
            substitute(text, known, key=f"{where}.{key}")
    for role, config in install.items():
        for number, step in enumerate(config.steps):
            substitute(step, shared, key=f"install.{role}.steps[{number}]")


def work_cwd(topology: Topology, worktree: Path) -> Callable[[Member], str]:
    """Where commands run: local hosts in the worktree, remote ones in their work directory."""
    return lambda member: str(worktree) if member.local else topology.workdir(member.name)


#: A job of the run phase: its completed commands.
_Job = Callable[[threading.Event], list[Completed]]


@dataclass
class _Note:
    status: Status
    text: str


@dataclass
class _TestRun:
    test: TestConfig
    parser: Parser
    role_parsers: Mapping[str, Parser]
    ctx: TestContext
    notes: list[_Note] = field(default_factory=list)
    services: list[tuple[int, Place, background.Started]] = field(default_factory=list)
    main_command: str = ""
    captured: list[CapturedProfile] = field(default_factory=list)
    #: the records of the modifiers applied, by variant and number (ModifierLedger)
    records: dict[tuple[str, int], int] = field(default_factory=dict)
    #: what the instruments measured of the test's command, and what they said
    instrumented: tuple[Value, ...] = ()
    instrument_notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.steps = StepRecorder(
            test=self.test.name,
            env={**self.ctx.env, **self.test.env},
            output_limit=self.ctx.output_limit,
            artifact_limit=self.ctx.artifact_limit,
            cwd=work_cwd(self.ctx.topology, self.ctx.worktree),
        )
        self.snapshots = Snapshots(
            self.ctx.snapshots, self.test.name, self.test.role, self.ctx.topology, self.steps
        )

    def run(self) -> TestOutcome:
        main: Completed | None = None
        role_values: list[tuple[str, Outcome]] = []
        snapshots: tuple[NewSnapshot, ...] = ()
        try:
            failed = self._startup()
            if failed is None:
                self.snapshots.before()
                main, role_values = self._run_phase()
                snapshots = self.snapshots.after()
                outcome = judge(main, self.parser, self.test.timeout)
            else:
                outcome = Outcome(failed.status, failed.text, ())
            self._collect()
        finally:
            self._reset()
        result = self._result(main, outcome, role_values)
        return TestOutcome(result, tuple(self.steps.steps), snapshots, merged(self.captured))

    def _place(self, phase: str, role: str) -> Place:
        return Place(phase, role, self.ctx.topology.member(role))

    # -- phases ---------------------------------------------------------------------

    def _roles(self) -> list[str]:
        """The roles of the test's own steps, then those only its modifiers name."""
        roles = list(self.test.roles)
        modified = dict.fromkeys(modifier.config.role for modifier in self.ctx.modifiers)
        return roles + [role for role in modified if role not in self.test.roles]

    def _modifiers_on(self, role: str) -> list[RuntimeModifier]:
        return [modifier for modifier in self.ctx.modifiers if modifier.config.role == role]

    def _startup(self) -> _Note | None:
        """Startup steps (after the modifiers' apply commands), then services; the
        failure that stops the test, if any."""
        for role in self._roles():
            place = self._place("startup", role)
            for modifier in self._modifiers_on(role):
                failure = self._apply(place, modifier)
                if failure is not None:
                    return failure
            phases = self.test.roles.get(role)
            for text in () if phases is None else phases.startup:
                command = self._command(text, place.member, f"roles.{role}.startup")
                status, done = self.steps.shell(place, command, self.test.phase_timeout)
                if status is not Status.PASS:
                    return self._startup_failure(place, command, status, done)
        for number, service in enumerate(self.test.services):
            failure = self._start_service(number, self._place("startup", service.role))
            if failure is not None:
                return failure
        return None

    def _apply(self, place: Place, modifier: RuntimeModifier) -> _Note | None:
        """Record ``modifier`` as in place on the role's host, then run its apply
        commands; the failure that stops the test, if any."""
        member, ledger = place.member, self.ctx.ledger
        if ledger is not None:
            undo = [
                self._command(text, member, f"{modifier.key}.undo") for text in modifier.config.undo
            ]
            try:
                cwd = self.steps.cwd(member) or ""
            except HostError:
                cwd = ""
            record = ledger.applying(
                member,
                modifier,
                role=place.role,
                undo=undo,
                cwd=cwd,
                timeout=self.test.phase_timeout,
            )
            self.records[modifier.variant, modifier.number] = record
        for text in modifier.config.apply:
            command = self._command(text, member, f"{modifier.key}.apply")
            status, done = self.steps.shell(place, command, self.test.phase_timeout)
            if status is not Status.PASS:
                return self._startup_failure(place, command, status, done)
        return None

    def _startup_failure(
        self, place: Place, what: str, status: Status, done: Completed | None
    ) -> _Note:
        name, reason = place.member.name, why(done, status)
        if self.steps.is_lost(place.member):
            return _Note(
                Status.NORUN, f"startup: host {name} ({place.role}) lost: {what}: {reason}"
            )
        return _Note(Status.NOEXIST, f"startup failed on {place.role} ({name}): {what}: {reason}")

    def _start_service(self, number: int, place: Place) -> _Note | None:
        service = self.test.services[number]
        command = self._command(service.command, place.member, f"service[{number}].command")
        label = f"service {number}"
        workdir = self.ctx.topology.workdir_or_none(place.member.name)
        name = f"{self.test.name}-{number}"
        status, done, running = self.steps.start_service(place, workdir, name, label, command)
        if running is None:
            return self._startup_failure(place, f"{label}: {command}", status, done)
        self.services.append((number, place, running))
        what = _readiness(service.ready_port, service.ready_text)
        ready = background.wait_ready(
            running, port=service.ready_port, text=service.ready_text, timeout=service.ready_timeout
        )
        self.steps.mark_lost(place.member, ready)
        status = step_status(ready)
        self.steps.record(place, "ready", f"{label} ready", what, done=ready, status=status)
        if status is Status.PASS:
            return None
        if ready.timed_out:
            late = never_ran("", f"not ready after {service.ready_timeout:g} s ({what})")
            return self._startup_failure(place, label, Status.NOEXIST, late)
        return self._startup_failure(place, f"{label} ({what})", status, ready)

    def _run_phase(self) -> tuple[Completed, list[tuple[str, Outcome]]]:
        """The command and every role's run commands, started together."""
        member = self.ctx.topology.member(self.test.role)
        command = self._command(self.test.command, member, "command")
        self.main_command = command

        def main(cancel: threading.Event) -> list[Completed]:
            if self.steps.is_lost(member):
                return [never_ran(command, f"host {member.name} was lost earlier in this test")]
            pin = ("taskset", "-c", self.ctx.cpus) if self.ctx.cpus else ()
            armed = self.ctx.instruments
            done = self._profiled(member, "", command, cancel, pin=(*pin, *armed.prefix))
            self.instrumented, self.instrument_notes = armed.read(done)
            return [done]

        def role_job(role: str, texts: Sequence[str]) -> _Job:
            def job(cancel: threading.Event) -> list[Completed]:
                place = self._place("run", role)
                done = []
                for number, text in enumerate(texts):
                    command = self._command(text, place.member, f"roles.{role}.run")
                    if self._profiling(role):
                        if self.steps.is_lost(place.member):
                            done.append(self.steps.shell(place, command, self.test.timeout)[1])
                            continue
                        ran = self._profiled(place.member, role, command, cancel, number=number)
                        status = step_status(ran)
                        self.steps.record(
                            place, "command", command, command, done=ran, status=status
                        )
                        done.append(ran)
                        continue
                    done.append(self.steps.shell(place, command, self.test.timeout, cancel)[1])
                return [d for d in done if d is not None]

            return job

        runners = [(role, p.run) for role, p in self.test.roles.items() if p.run]
        jobs: list[_Job] = [main, *(role_job(role, texts) for role, texts in runners)]
        results = run_together(jobs)
        role_values = [
            (role, self._role_outcome(role, done))
            for (role, _texts), done in zip(runners, results[1:], strict=True)
            if role in self.role_parsers
        ]
        return results[0][0], role_values

    def _profiling(self, role: str) -> bool:
        request = self.ctx.profile
        return request is not None and self.ctx.profiler is not None and request.role == role

    def _profiled(
        self,
        member: Member,
        role: str,
        command: str,
        cancel: threading.Event,
        *,
        pin: Sequence[str] = (),
        number: int = 0,
    ) -> Completed:
        """Run ``command`` on ``member``: under the profiler when ``role`` is profiled
        (its stacks read back afterwards), else as it is."""
        request, profiler = self.ctx.profile, self.ctx.profiler
        if request is None or profiler is None or request.role != role:
            return self.steps.run_on(member, command, self.test.timeout, cancel, pin)
        path = f"{request.path}.{number}"
        prefix = (*pin, *wrapper(request.config, path))
        done = self.steps.run_on(member, command, self.test.timeout, cancel, prefix)
        here = ProfileRequest(request.config, request.role, path)
        self.captured.append(profiler.read(member, here))
        return done

    def _role_outcome(self, role: str, done: Sequence[Completed]) -> Outcome:
        merged = Completed(
            argv=("run", role),
            returncode=0,
            stdout=Log.of(b"".join(d.stdout.data for d in done)),
            stderr=EMPTY_LOG,
            started=datetime.now(UTC),
            duration=sum(d.duration for d in done),
        )
        return judge(merged, self.role_parsers[role], self.test.timeout)

    def _collect(self) -> None:
        for role, phases in self.test.roles.items():
            place = self._place("collect", role)
            for text in phases.collect:
                command = self._command(text, place.member, f"roles.{role}.collect")
                status, done = self.steps.shell(place, command, self.test.phase_timeout)
                if status is not Status.PASS:
                    owed = Status.NORUN if self.steps.is_lost(place.member) else Status.NOLOG
                    self._note(owed, f"collect on {role}: {command}: {why(done, status)}")
        for role, phases in self.test.roles.items():
            place = self._place("collect", role)
            for text in phases.fetch:
                path = self._command(text, place.member, f"roles.{role}.fetch", quote=False)
                status = self.steps.fetch(place, path, path)
                if status is not Status.PASS:
                    self._note(status, f"fetch {path} from {role}: {status.name}")

    def _reset(self) -> None:
        for number, started, service in reversed(self.services):
            place = Place("reset", started.role, started.member)
            status = self.steps.stop_service(place, service, f"service {number}")
            if status is not Status.PASS:
                if self.steps.is_lost(place.member):
                    status = Status.NORUN  # its host is gone, and the service with it
                self._note(status, f"reset on {place.role}: service {number}: {status.name}")
        for role in self._roles():
            place = self._place("reset", role)
            phases = self.test.roles.get(role)
            for text in () if phases is None else phases.reset:
                self._reset_step(place, text, f"roles.{role}.reset")
            for modifier in reversed(self._modifiers_on(role)):
                passed = [
                    self._reset_step(place, text, f"{modifier.key}.undo")
                    for text in modifier.config.undo
                ]
                self._undone(place, modifier, all(passed))

    def _reset_step(self, place: Place, text: str, key: str) -> bool:
        """Run one reset step; whether it passed."""
        command = self._command(text, place.member, key)
        if not self.steps.reachable_for_reset(place.member):
            self.steps.record_not_run(place, "command", command, command)
            self._note(Status.NORUN, f"reset on {place.role}: host {place.member.name} lost")
            return False
        status, done = self.steps.shell(place, command, self.test.phase_timeout)
        if status is not Status.PASS:
            self._note(Status.NOCLEAN, f"reset on {place.role}: {command}: {why(done, status)}")
            return False
        return True

    def _undone(self, place: Place, modifier: RuntimeModifier, passed: bool) -> None:
        """Clear the record of ``modifier`` once its undo commands ``passed`` (one that
        failed keeps it: the next walk on the host undoes it first)."""
        record = self.records.pop((modifier.variant, modifier.number), None)
        if record is None or self.ctx.ledger is None or not passed:
            return
        try:
            self.ctx.ledger.undone(record)
        except PerfwalkError as error:  # undone, but the next walk undoes it once more
            self._note(Status.NOCLEAN, f"reset on {place.role}: {modifier.key}: {error}")

    # -- helpers --------------------------------------------------------------------

    def _note(self, status: Status, text: str) -> None:
        self.notes.append(_Note(status, text))

    def _command(self, text: str, member: Member, key: str, *, quote: bool = True) -> str:
        """``text`` with its placeholders, for a command run on ``member``."""
        values = dict(self.ctx.values)
        values.update(self.ctx.topology.placeholders())
        if "hostdir" in names(text):
            values["hostdir"] = self.ctx.topology.workdir_or_none(member.name) or ""
        return substitute(text, values, key=f"test.{self.test.name}.{key}", quote=quote)

    def _result(
        self, main: Completed | None, outcome: Outcome, role_values: Sequence[tuple[str, Outcome]]
    ) -> NewResult:
        member = self.ctx.topology.member(self.test.role)
        statuses = [outcome.status]
        messages = [outcome.message] if outcome.message else []
        measured = [
            (value, self.test.metric(value.name, value.unit).direction.value)
            for value in outcome.values
        ]
        for value in self.instrumented:
            measured.append((value, self.test.metric(value.name, value.unit).direction.value))
        messages.extend(self.instrument_notes)
        for role, role_outcome in role_values:
            if not role_outcome.values:
                statuses.append(Status.FAIL)
                messages.append(f"{role}: {role_outcome.message or 'no value'}")
            for value in role_outcome.values:
                named = Value(
                    f"{role}.{value.name}", value.value, value.unit, role_histogram(role, value)
                )
                measured.append((named, self.test.metric(named.name, named.unit).direction.value))
        derived, left_out = derived_values(self.test, [value for value, _ in measured])
        measured.extend(derived)
        messages.extend(left_out)
        for step in self.steps.steps:
            if step.phase == "run" and step.status is not Status.PASS:
                statuses.append(step.status)
                messages.append(f"run on {step.role}: {step.command}: {step.message}")
        for note in self.notes:
            statuses.append(note.status)
            messages.append(note.text)
        return NewResult(
            test=self.test.name,
            status=Status.worst(statuses),
            message="; ".join(messages),
            duration=None if main is None else main.duration,
            exit_code=None if main is None else main.returncode,
            command=self.main_command or self.test.command,
            stdout=EMPTY_LOG if main is None else main.stdout,
            stderr=EMPTY_LOG if main is None else main.stderr,
            values=tuple(measured),
            role=self.test.role,
            host=member.name,
        )


def _readiness(port: int, text: str) -> str:
    checks = []
    if port:
        checks.append(f"port {port} accepts")
    if text:
        checks.append(f"output contains {text!r}")
    return " and ".join(checks)


def role_histogram(role: str, value: Value) -> Histogram | None:
    """The histogram ``value`` carries, named as the role's values are (``<role>.<name>``)."""
    if value.histogram is None:
        return None
    return replace(value.histogram, name=f"{role}.{value.histogram.name}")
