"""The decisions about a host that may have hung, on scripted hosts (FakeHost) and a
fake clock: which hosts are asked, when one is power-cycled, how often, what is said
and which error ends the walk. The lab tests (tests/lab/test_lab_power.py) do it on
real sshd hosts."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from perfwalk.errors import HostError
from perfwalk.hosts import FakeHost, Rule
from perfwalk.model import Status
from perfwalk.orchestrate.hosts.hangs import NOTHING, Hangs
from perfwalk.orchestrate.hosts.power import (
    POLL,
    Waiting,
    power_off_at_end,
    power_on,
)
from perfwalk.orchestrate.hosts.topology import Member, Power, Topology

CYCLE = "ipmitool chassis power cycle"


@dataclass
class Machine:
    """A host that answers ``true`` while it is up; its power switch on the
    controller; a clock that moves when perfwalk waits."""

    up: bool = True
    comes_back: bool = True
    now: float = 0.0
    switched: list[str] = field(default_factory=list)

    def waiting(self) -> Waiting:
        return Waiting(clock=lambda: self.now, pause=self._pause)

    def _pause(self, seconds: float) -> None:
        self.now += seconds

    def host(self, name: str) -> FakeHost:
        return FakeHost(
            [
                Rule(lambda argv: argv == ("true",) and self.up),
                Rule(("true",), error=f"host {name}: cannot connect", host_lost=True),
                Rule("mktemp", stdout="/tmp/perfwalk.abc\n"),
                Rule("mkdir -p"),
                Rule("rm -rf"),
            ],
            name=name,
        )

    def controller(self) -> FakeHost:
        def switch(argv: tuple[str, ...]) -> bool:
            if argv[:2] == ("sh", "-c") and argv[2] in (CYCLE, "power-on", "power-off"):
                self.switched.append(argv[2])
                self.up = argv[2] != "power-off" and self.comes_back
                return True
            return False

        return FakeHost(
            [
                Rule(switch),
                Rule(("sh", "-c", "cat console"), stdout="panic: fatal trap 12\n"),
                Rule(("sh", "-c", "broken-switch"), returncode=1, stderr="bmc: no route\n"),
            ],
            name="controller",
        )


def _setup(
    machine: Machine, *, cycle: str = CYCLE, cycles: int = 2, at_end: str = "leave"
) -> tuple[Hangs, FakeHost]:
    dut = machine.host("dut")
    power = Power(
        cycle=cycle, cycles=cycles, alive_timeout=5, on="power-on", off="power-off", at_end=at_end
    )
    topology = Topology(
        {
            "ctl": Member("ctl", FakeHost(name="ctl"), local=True),
            "dut": Member(
                "dut",
                dut,
                local=False,
                roles=("dut",),
                reboot_timeout=30,
                console="cat console",
                power=power,
            ),
            "sink": Member("sink", machine.host("sink"), local=False, roles=("sink",)),
        },
        "ctl",
    )
    controller = machine.controller()
    return Hangs(topology, controller=controller, waiting=machine.waiting()), controller


def test_only_hosts_with_a_power_command_that_timed_out_or_were_lost_are_suspects() -> None:
    hangs, _ = _setup(Machine())
    suspects = hangs.suspects(
        [("dut", Status.PASS), ("sink", Status.NOTERM), ("ctl", Status.NORUN)]
    )
    assert suspects == []  # the sink and the controller have no power_cycle
    found = hangs.suspects([("dut", Status.NOEXIT), ("dut", Status.NOTERM)])
    assert [m.name for m in found] == ["dut"]
    assert [m.name for m in hangs.suspects([("dut", Status.NORUN)])] == ["dut"]


def test_a_host_that_answers_is_left_alone() -> None:
    machine = Machine(up=True)
    hangs, controller = _setup(machine)
    recovered = hangs.recover(hangs.suspects([("dut", Status.NOTERM)]), phase="run")
    assert recovered is NOTHING
    assert not recovered.hung
    assert controller.calls == []  # no power command
    assert hangs.cycles == {}


def test_a_host_that_stays_silent_is_power_cycled_and_its_console_kept() -> None:
    machine = Machine(up=False)
    hangs, controller = _setup(machine)
    recovered = hangs.recover(hangs.suspects([("dut", Status.NOTERM)]), phase="run")
    assert recovered.hung
    assert recovered.error is None
    assert recovered.hosts == ("dut",)
    assert machine.switched == [CYCLE]
    assert recovered.message.startswith("host dut hung: power-cycled after 5 s without an answer")
    assert "it answered again" in recovered.message
    cycle, console = recovered.steps
    assert (cycle.kind, cycle.host, cycle.status, cycle.command) == (
        "power cycle",
        "dut",
        Status.PASS,
        CYCLE,
    )
    assert (console.kind, console.stdout.data) == ("console", b"panic: fatal trap 12\n")
    assert hangs.cycles == {"dut": 1}
    assert hangs.uninstalled == {"dut"}  # its roles are installed again before the next one
    hangs.installed({"dut"})
    assert hangs.uninstalled == set()
    # it asked for POLL-spaced answers until alive_timeout, then the switch
    assert [c.argv[2] for c in controller.calls] == [CYCLE, "cat console"]


def test_the_power_cycles_of_a_host_are_bounded_per_walk() -> None:
    machine = Machine(up=False)
    hangs, _controller = _setup(machine, cycles=2)
    for _ in range(2):
        machine.up = False
        assert hangs.recover(hangs.suspects([("dut", Status.NORUN)]), phase="run").error is None
    machine.up = False
    third = hangs.recover(hangs.suspects([("dut", Status.NORUN)]), phase="run")
    assert machine.switched == [CYCLE, CYCLE]  # not a third time
    assert third.hung
    assert third.hosts == ()
    assert "power-cycled 2 times in this walk already: not again" in third.message
    assert isinstance(third.error, HostError)
    assert "host dut hung again after 2 power cycles" in third.error.message
    assert "hosts.dut.power_cycles = 2" in third.error.message
    assert third.error.hint is not None
    assert "perfwalk run --resume" in third.error.hint


def test_a_host_that_does_not_come_back_ends_the_walk_naming_it() -> None:
    machine = Machine(up=False, comes_back=False)
    hangs, _controller = _setup(machine)
    recovered = hangs.recover(hangs.suspects([("dut", Status.NOTERM)]), phase="run")
    assert machine.switched == [CYCLE]
    assert "did not answer within 30 s (reboot_timeout)" in recovered.message
    assert recovered.error is not None
    assert recovered.error.message.startswith("host dut hung: power-cycled after 5 s")
    assert recovered.error.hint is not None
    assert "check host dut: its console, its power" in recovered.error.hint
    cycle = recovered.steps[0]
    assert cycle.status is Status.NOTERM
    assert machine.now >= 5 + 30  # it waited alive_timeout, then reboot_timeout


def test_a_power_command_that_fails_ends_the_walk_with_its_reason() -> None:
    machine = Machine(up=False)
    hangs, _controller = _setup(machine, cycle="broken-switch")
    recovered = hangs.recover(hangs.suspects([("dut", Status.NOTERM)]), phase="between")
    assert recovered.error is not None
    assert "its power_cycle command failed: exit 1: bmc: no route" in recovered.error.message
    assert recovered.steps[0].status is Status.NOEXIT
    assert recovered.steps[0].phase == "between"


def test_a_silent_host_is_asked_again_every_poll_until_its_alive_timeout() -> None:
    machine = Machine(up=False)
    hangs, _controller = _setup(machine)
    dut = hangs.topology.members["dut"].host
    assert isinstance(dut, FakeHost)
    hangs.recover(hangs.suspects([("dut", Status.NOTERM)]), phase="run")
    tries_before = [c for c in dut.calls if c.argv == ("true",)]
    # asked at 0 s and every POLL seconds up to 5 s, then once after the switch
    assert len(tries_before) == round(5 / POLL) + 1 + 1
    assert all(c.timeout is not None and c.timeout <= 10 for c in tries_before)


def test_power_on_waits_for_the_host_and_says_so() -> None:
    machine = Machine(up=False)
    hangs, controller = _setup(machine)
    dut = hangs.topology.members["dut"]
    said = power_on(dut, why="cannot connect", controller=controller, waiting=machine.waiting())
    assert said.startswith("host dut did not answer (cannot connect): powered on")
    assert machine.switched == ["power-on"]


def test_power_on_that_does_not_bring_the_host_raises_naming_it() -> None:
    machine = Machine(up=False, comes_back=False)
    hangs, controller = _setup(machine)
    with pytest.raises(HostError, match="host dut did not answer within 30 s") as info:
        power_on(
            hangs.topology.members["dut"],
            why="cannot connect",
            controller=controller,
            waiting=machine.waiting(),
        )
    assert info.value.hint is not None


def test_at_end_power_off_removes_the_work_directory_first() -> None:
    machine = Machine(up=True)
    hangs, controller = _setup(machine, at_end="power_off")
    topology = hangs.topology
    topology.workdir("dut")
    topology.workdir("sink")
    said = power_off_at_end(topology, controller=controller)
    assert said == ["host dut powered off"]
    assert machine.switched == ["power-off"]
    dut = topology.members["dut"].host
    assert isinstance(dut, FakeHost)
    assert "rm -rf" in " ".join(dut.commands[-1])
    sink = topology.members["sink"].host
    assert isinstance(sink, FakeHost)
    assert not any("rm -rf" in " ".join(c) for c in sink.commands)  # left as it is


def test_leave_at_end_powers_nothing_off() -> None:
    machine = Machine(up=True)
    hangs, controller = _setup(machine, at_end="leave")
    assert power_off_at_end(hangs.topology, controller=controller) == []
    assert machine.switched == []
