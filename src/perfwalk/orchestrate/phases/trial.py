"""Play one trial of a Conductor configuration over ssh: Startup, Run, Collect, Reset.

In each phase every player runs its steps in file order, all players at once,
started together behind a barrier (Conductor sent RUN to one player after
another). A ``spawn`` step starts in the background as a service of its own
process group; it is stopped by its process group id at the end of the trial,
after the Reset steps, and its output is stored (Conductor left it running).
The Reset phase always runs, after a failure, a lost player or Ctrl-C. Each step
gets its timeout (30 s unless the key or value says otherwise); a step that
fails does not stop its phase, as in Conductor, but its status says so.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from perfwalk.config.conduct import PHASES, Player, Step
from perfwalk.model import Status
from perfwalk.orchestrate.hosts.together import run_together
from perfwalk.orchestrate.hosts.topology import Member, Topology
from perfwalk.orchestrate.steps import background
from perfwalk.orchestrate.steps.recorder import Place, StepRecorder
from perfwalk.store.records import NewStep

#: A job of a phase: one player's steps.
_Job = Callable[[threading.Event], None]


@dataclass(frozen=True)
class TrialOutcome:
    """Every step of one trial, and the worst status of each phase."""

    trial: int
    steps: tuple[NewStep, ...]
    worst: dict[str, Status]


@dataclass
class _Trial:
    players: Sequence[Player]
    topology: Topology
    trial: int
    recorder: StepRecorder
    spawned: list[tuple[Place, background.Started, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def play(self) -> None:
        try:
            for phase in PHASES[:-1]:
                self._phase(phase)
        finally:
            self._phase("Reset")
            for place, service, label in self.spawned:
                self.recorder.stop_service(place, service, label)

    def _phase(self, phase: str) -> None:
        players = [p for p in self.players if p.steps(phase)]

        def job(player: Player) -> _Job:
            def run(cancel: threading.Event) -> None:
                place = Place(phase.lower(), player.name, self.topology.member(player.name))
                for step in player.steps(phase):
                    self._step(place, step, cancel)

            return run

        if players:
            run_together([job(p) for p in players])

    def _step(self, place: Place, step: Step, cancel: threading.Event) -> None:
        if not step.spawn:
            self.recorder.shell(place, step.command, step.timeout, cancel, name=step.key)
            return
        member = place.member
        workdir = self.topology.workdir(member.name)
        name = f"trial{self.trial}-{place.phase}-{step.key}"
        label = step.key
        _status, _done, started = self.recorder.start_service(
            place, workdir, name, label, step.command
        )
        if started is not None:
            with self._lock:
                self.spawned.append((Place("reset", place.role, member), started, label))


def play_trial(
    players: Sequence[Player], topology: Topology, trial: int, *, output_limit: int
) -> TrialOutcome:
    """Play trial ``trial`` (1, 2, …); KeyboardInterrupt runs Reset, then is raised."""
    recorder = StepRecorder(
        test="",
        env={"CONDUCTOR_TRIAL": str(trial)},
        output_limit=output_limit,
        artifact_limit=output_limit,
        cwd=_home,
    )
    _Trial(players, topology, trial, recorder).play()
    worst: dict[str, Status] = {}
    for step in recorder.steps:
        phase = step.phase
        worst[phase] = Status.worst([worst.get(phase, Status.PASS), step.status])
    return TrialOutcome(trial, tuple(recorder.steps), worst)


def _home(_member: Member) -> str | None:
    """Steps run where the login puts them (the player's home), as a player daemon did."""
    return None
