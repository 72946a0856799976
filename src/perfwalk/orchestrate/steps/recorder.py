"""Run the steps of a test's phases (or of a conductor trial) and record each one.

A :class:`StepRecorder` runs shell steps, background services and file fetches
on the hosts of a topology, and keeps a :class:`~perfwalk.store.records.NewStep`
for each: where (phase, role, host), what, its status, its output, when. It
keeps track of the hosts lost on the way: a lost host is asked nothing more
(the step is recorded NORUN) except in the reset phase, where it gets one more
try, since it may be back. It is safe to use from several threads at once.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from perfwalk.errors import HostError
from perfwalk.hosts.base import Completed
from perfwalk.model import EMPTY_LOG, Status
from perfwalk.orchestrate.hosts.topology import Member
from perfwalk.orchestrate.steps import background
from perfwalk.store.records import NewStep

#: Seconds allowed to start a service, to stop one (after its grace), to fetch a file.
SERVICE_START_TIMEOUT = 30.0
SERVICE_STOP_GRACE = 5.0
FETCH_TIMEOUT = 300.0
RESET_PROBE_TIMEOUT = 30.0


@dataclass(frozen=True)
class Place:
    """Where a step runs: its phase, its role (or player) and that role's host."""

    phase: str
    role: str
    member: Member


def step_status(done: Completed) -> Status:
    """The status of one step (not a measured command: no parser is involved)."""
    if done.error is not None:
        return Status.NORUN
    if done.timed_out or done.host_lost:
        return Status.NOTERM
    if done.returncode != 0:
        return Status.NOEXIT
    return Status.PASS


def why(done: Completed | None, status: Status) -> str:
    """What went wrong with a step, in a few words ("" when nothing did)."""
    if done is None:
        return status.name
    if done.error is not None:
        return done.error
    if done.host_lost:
        return "the host was lost while it ran"
    if done.timed_out:
        return f"timed out after {done.duration:.0f} s"
    if done.returncode not in (0, None):
        tail = done.stderr.text().strip().splitlines()
        return f"exit {done.returncode}" + (f": {tail[-1][:200]}" if tail else "")
    return ""


def never_ran(command: str, reason: str) -> Completed:
    """The result of a command that was not started."""
    return Completed(
        argv=("sh", "-c", command),
        returncode=None,
        stdout=EMPTY_LOG,
        stderr=EMPTY_LOG,
        started=datetime.now(UTC),
        duration=0.0,
        error=reason,
    )


@dataclass
class StepRecorder:
    """Runs and records the steps of one test (``test``) or conductor trial."""

    test: str
    env: Mapping[str, str]
    output_limit: int
    artifact_limit: int
    cwd: Callable[[Member], str | None]
    steps: list[NewStep] = field(default_factory=list)
    lost: set[str] = field(default_factory=set)
    retried: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def is_lost(self, member: Member) -> bool:
        with self._lock:
            return member.name in self.lost

    def shell(
        self,
        place: Place,
        command: str,
        timeout: float,
        cancel: threading.Event | None = None,
        *,
        name: str = "",
    ) -> tuple[Status, Completed | None]:
        """Run one shell step (called ``name``, else by its command); record it; its
        status (NORUN, unrun, on a lost host)."""
        label = name or command
        if self.is_lost(place.member) and place.phase != "reset":
            self.record_not_run(place, "command", label, command)
            return Status.NORUN, None
        done = self.run_on(place.member, command, timeout, cancel)
        status = step_status(done)
        self.record(place, "command", label, command, done=done, status=status)
        return status, done

    def run_on(
        self,
        member: Member,
        command: str,
        timeout: float,
        cancel: threading.Event | None = None,
        prefix: Sequence[str] = (),
    ) -> Completed:
        """Run ``sh -c command`` on ``member`` in its directory, behind ``prefix`` (a
        ``taskset -c CPUS``); a host that cannot even give its directory is lost (the
        command never ran)."""
        try:
            cwd = self.cwd(member)
        except HostError as error:
            done = never_ran(command, str(error))
            done = dataclasses.replace(done, host_lost=True)
        else:
            done = member.host.run(
                [*prefix, "sh", "-c", command],
                timeout=timeout,
                env=dict(self.env),
                cwd=cwd,
                output_limit=self.output_limit,
                cancel=cancel,
            )
        self.mark_lost(member, done)
        return done

    def start_service(
        self, place: Place, workdir: str | None, name: str, label: str, command: str
    ) -> tuple[Status, Completed | None, background.Started | None]:
        """Start a background service; record it; the running service, if it started."""
        if self.is_lost(place.member):
            self.record_not_run(place, "service", label, command)
            return Status.NORUN, None, None
        if not workdir:
            done = dataclasses.replace(never_ran(command, "no work directory"), host_lost=True)
            self.mark_lost(place.member, done)
            self.record(place, "service", label, command, done=done, status=Status.NORUN)
            return Status.NORUN, done, None
        done = background.start(
            place.member.host,
            workdir,
            name,
            command,
            timeout=SERVICE_START_TIMEOUT,
            env=dict(self.env),
        )
        self.mark_lost(place.member, done)
        pid = background.started_pid(done)
        status = Status.PASS if pid is not None else step_status(done)
        self.record(place, "service", label, command, done=done, status=status)
        if pid is None:
            return status, done, None
        log = background.log_path(workdir, name)
        return status, done, background.Started(place.member.host, pid, log)

    def stop_service(self, place: Place, service: background.Started, label: str) -> Status:
        """Stop a service by its process group id, then fetch its log; the worse status."""
        if not self.reachable_for_reset(place.member):
            self.record_not_run(place, "service", f"stop {label}", f"kill -TERM -{service.pid}")
            return Status.NOCLEAN
        grace = SERVICE_STOP_GRACE
        done = background.stop(service, grace=grace, timeout=grace + 30)
        self.mark_lost(place.member, done)
        status = step_status(done)
        command = f"kill -TERM -{service.pid}"
        self.record(place, "service", f"stop {label}", command, done=done, status=status)
        if status is not Status.PASS:
            return Status.NOCLEAN
        return self.fetch(place, service.log, f"{label} log")

    def fetch(self, place: Place, path: str, name: str) -> Status:
        """Fetch a file of the host into the store (a step whose stdout is the file):
        PASS, NOLOG when it could not be fetched, NORUN when its host is lost.

        A relative ``path`` is looked up where the host's commands run (the
        worktree on the local host, the work directory on an ssh host), so a file
        a startup step wrote by a relative name is found by that name."""
        if self.is_lost(place.member) and place.phase != "reset":
            self.record_not_run(place, "fetch", name, path)
            return Status.NORUN
        try:
            cwd = self.cwd(place.member)
        except HostError as error:
            done = dataclasses.replace(never_ran(f"cat -- {path}", str(error)), host_lost=True)
        else:
            done = place.member.host.run(
                ["cat", "--", path],
                timeout=FETCH_TIMEOUT,
                cwd=cwd,
                output_limit=self.artifact_limit,
            )
        self.mark_lost(place.member, done)
        status = Status.PASS if step_status(done) is Status.PASS else Status.NOLOG
        self.record(place, "fetch", name, path, done=done, status=status)
        return status

    def reachable_for_reset(self, member: Member) -> bool:
        """A lost host gets one more try in the reset phase (it may be back)."""
        with self._lock:
            if member.name not in self.lost:
                return True
            if member.name in self.retried:
                return False
            self.retried.add(member.name)
        done = member.host.run(["true"], timeout=RESET_PROBE_TIMEOUT)
        if done.host_lost or done.error is not None:
            return False
        with self._lock:
            self.lost.discard(member.name)
        return True

    def mark_lost(self, member: Member, done: Completed) -> None:
        if done.host_lost:
            with self._lock:
                self.lost.add(member.name)

    def record(
        self, place: Place, kind: str, name: str, command: str, *, done: Completed, status: Status
    ) -> None:
        self._add(
            NewStep(
                test=self.test,
                phase=place.phase,
                role=place.role,
                host=place.member.name,
                kind=kind,
                name=name,
                command=command,
                status=status,
                message=why(done, status),
                exit_code=done.returncode,
                started_at=done.started,
                finished_at=done.started + timedelta(seconds=done.duration),
                stdout=done.stdout,
                stderr=done.stderr,
            )
        )

    def record_not_run(self, place: Place, kind: str, name: str, command: str) -> None:
        now = datetime.now(UTC)
        self._add(
            NewStep(
                test=self.test,
                phase=place.phase,
                role=place.role,
                host=place.member.name,
                kind=kind,
                name=name,
                command=command,
                status=Status.NORUN,
                message=f"not run: host {place.member.name} was lost",
                started_at=now,
                finished_at=now,
            )
        )

    def _add(self, step: NewStep) -> None:
        with self._lock:
            self.steps.append(step)
