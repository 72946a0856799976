"""Hosts that hang during a walk, recovered by their power command.

After each test (and each reboot that did not come back), the hosts it timed out on
or lost (a result or a step NOTERM or NORUN there) that have a ``power_cycle``
command are asked whether they still answer (:func:`~perfwalk.orchestrate.hosts.power.answers`,
within ``alive_timeout``). One that does not is power-cycled and waited for
(:func:`~perfwalk.orchestrate.hosts.power.power_cycle`): the walk goes on with it, and
the roles installed on it are installed again before the next repetition (a power
cycle may boot another kernel; a tmpfs work directory is empty).

Each host is power-cycled at most ``power_cycles`` times in one walk: once more, or a
host that does not answer after its power cycle, and :class:`Recovered` carries the
error that ends the walk, raised once what was measured is stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from perfwalk.errors import HostError
from perfwalk.hosts.base import Host
from perfwalk.model import Status
from perfwalk.orchestrate.hosts.power import Waiting, answers, power_cycle
from perfwalk.orchestrate.hosts.topology import Member, Topology
from perfwalk.store.records import NewStep

#: A checkout at whose last repetitions in a row a host hung this many times gets no
#: more repetitions: it hangs its host (a functional break, not a speed to measure).
HUNG_IN_A_ROW = 2

#: The statuses that say a host may have hung: a command timed out or lost its host
#: (NOTERM), or could not start there (NORUN).
SUSPECT = frozenset({Status.NOTERM, Status.NORUN})


@dataclass(frozen=True)
class Recovered:
    """What came of asking the suspect hosts: the hosts power-cycled, the steps (each
    power cycle and the console after it), what to say, and the error that ends the
    walk (a host that hung once too often or did not come back), if any."""

    hosts: tuple[str, ...] = ()
    steps: tuple[NewStep, ...] = ()
    message: str = ""
    error: HostError | None = None

    @property
    def hung(self) -> bool:
        """Whether a host hung (power-cycled, or the walk must end)."""
        return bool(self.hosts) or self.error is not None


#: Nothing hung.
NOTHING = Recovered()


@dataclass
class Hangs:
    """The hosts of one walk that hung, and their power cycles."""

    topology: Topology
    controller: Host | None = None  # where power commands run (None: this machine)
    waiting: Waiting = field(default_factory=Waiting)
    #: power cycles so far, by host
    cycles: dict[str, int] = field(default_factory=dict)
    #: the hosts power-cycled since their roles were last installed
    uninstalled: set[str] = field(default_factory=set)

    def suspects(self, places: Iterable[tuple[str, Status]]) -> list[Member]:
        """The hosts with a power command among ``places`` (host, status) whose status
        says they may have hung, in the order of the topology."""
        names = {host for host, status in places if status in SUSPECT}
        return [m for m in self.topology if m.name in names and m.power.cycle]

    def recover(self, suspects: Iterable[Member], *, phase: str) -> Recovered:
        """Ask each suspect whether it answers; power-cycle those that do not. Stops at
        the first host that cannot be recovered (its error in the answer)."""
        hosts: list[str] = []
        steps: list[NewStep] = []
        said: list[str] = []
        for member in suspects:
            t0 = self.waiting.clock()
            if answers(member, member.power.alive_timeout, self.waiting):
                continue
            silent = self.waiting.clock() - t0
            used = self.cycles.get(member.name, 0)
            if used >= member.power.cycles:
                said.append(
                    f"host {member.name} hung ({silent:.0f} s without an answer), "
                    f"power-cycled {used} times in this walk already: not again"
                )
                return Recovered(tuple(hosts), tuple(steps), "; ".join(said), _too_often(member))
            self.cycles[member.name] = used + 1
            cycled = power_cycle(
                member, phase=phase, silent=silent, controller=self.controller, waiting=self.waiting
            )
            steps.extend(cycled.steps)
            said.append(cycled.message)
            if not cycled.back:
                error = _not_back(member, cycled.message)
                return Recovered(tuple(hosts), tuple(steps), "; ".join(said), error)
            hosts.append(member.name)
            self.topology.restore_workdir(member.name)
            self.uninstalled.add(member.name)
        if not said:
            return NOTHING
        return Recovered(tuple(hosts), tuple(steps), "; ".join(said))

    def installed(self, hosts: Iterable[str] | None = None) -> None:
        """The roles on ``hosts`` (None: every host) were installed again."""
        if hosts is None:
            self.uninstalled.clear()
        else:
            self.uninstalled.difference_update(hosts)


_RESUME = (
    "every repetition that finished is stored (`perfwalk show`); `perfwalk run --resume` "
    "continues the walk"
)


def _too_often(member: Member) -> HostError:
    name = member.name
    return HostError(
        f"host {name} hung again after {member.power.cycles} power cycles in this walk "
        f"(hosts.{name}.power_cycles = {member.power.cycles}): the walk stops here",
        hint=f"a checkout may hang it at every boot: see the console output stored with "
        f"the repetitions that hung (`perfwalk log SERIES:CHECKOUT`); {_RESUME}, and a larger "
        "power_cycles lets a night go on further",
    )


def _not_back(member: Member, said: str) -> HostError:
    return HostError(
        f"{said}: the walk stops here",
        hint=f"check host {member.name}: its console, its power (run hosts.{member.name}."
        f"power_cycle by hand), its network and that `ssh` to it works; {_RESUME} once it "
        "answers",
    )
