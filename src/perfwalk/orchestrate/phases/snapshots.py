"""The ``[[snapshot]]`` commands around one test: run on each chosen role's host right
before the run phase (after startup) and right after it (before collect), each run a
step of the repetition (phases ``snapshot-before`` and ``snapshot-after``, kind
``snapshot``, named by the snapshot), its output read into counters by the snapshot's
parser (:mod:`perfwalk.parsers.snapshots`).

A snapshot observes the test; it is not part of it: one that fails (its command fails
or times out, its host is lost, its output has no counter) is kept with its status and
its reason, and never changes the test's status. Its output is stored whatever
happens, so no value is lost: a parser that improves can read it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from perfwalk.config.model import SnapshotConfig
from perfwalk.errors import ParseError
from perfwalk.hosts.base import Completed
from perfwalk.model import Status
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.steps.recorder import Place, StepRecorder, step_status, why
from perfwalk.parsers.snapshots import SNAPSHOT_PARSERS, Counters
from perfwalk.store.records import NewSnapshot
from perfwalk.store.snapshots import AFTER, BEFORE

#: The kind of a step that ran a snapshot's command.
KIND = "snapshot"


@dataclass(frozen=True)
class _Side:
    """One run of a snapshot's command: its counters, or why there are none."""

    counters: Counters | None
    status: Status
    message: str


@dataclass
class Snapshots:
    """The snapshots around one run of the test ``test`` (whose command runs on
    ``role``'s host; "" = the [run] host)."""

    configs: tuple[SnapshotConfig, ...]
    test: str
    role: str
    topology: Topology
    steps: StepRecorder
    _before: dict[tuple[str, str], _Side] = field(default_factory=dict)

    def _places(self) -> list[tuple[SnapshotConfig, str]]:
        return [
            (config, role)
            for config in self.configs
            if config.around(self.test)
            for role in (config.roles or (self.role,))
        ]

    def before(self) -> None:
        """Run every snapshot before the run phase; keep what each read."""
        for config, role in self._places():
            self._before[config.name, role] = self._take(BEFORE, config, role)

    def after(self) -> tuple[NewSnapshot, ...]:
        """Run every snapshot after the run phase: each with what it read before."""
        found = []
        for config, role in self._places():
            missing = _Side(None, Status.NORUN, "not run before the test")
            first = self._before.get((config.name, role), missing)
            second = self._take(AFTER, config, role)
            sides = (("before", first), ("after", second))
            reasons = [f"{when}: {side.message}" for when, side in sides if side.message]
            found.append(
                NewSnapshot(
                    test=self.test,
                    name=config.name,
                    role=role,
                    host=self.topology.member(role).name,
                    parser=config.parser,
                    before=first.counters,
                    after=second.counters,
                    status=Status.worst([first.status, second.status]),
                    message="; ".join(reasons),
                )
            )
        return tuple(found)

    def _take(self, phase: str, config: SnapshotConfig, role: str) -> _Side:
        place = Place(phase, role, self.topology.member(role))
        if self.steps.is_lost(place.member):
            self.steps.record_not_run(place, KIND, config.name, config.command)
            return _Side(None, Status.NORUN, f"host {place.member.name} was lost")
        done = self.steps.run_on(place.member, config.command, config.timeout)
        status = step_status(done)
        side = _read(config, done, status)
        self.steps.record(place, KIND, config.name, config.command, done=done, status=side.status)
        return side


def _read(config: SnapshotConfig, done: Completed, status: Status) -> _Side:
    """The counters of one run, or why there are none."""
    if status is not Status.PASS:
        return _Side(None, status, why(done, status))
    try:
        return _Side(SNAPSHOT_PARSERS[config.parser](done.stdout.text()), Status.PASS, "")
    except ParseError as error:
        return _Side(None, Status.FAIL, error.message)
