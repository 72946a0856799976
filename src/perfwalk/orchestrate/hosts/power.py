"""The power of a host, through the commands of its ``[hosts.<name>]`` table, each run
on this machine (IPMI, a PDU, ``virsh``):

- :func:`answers`: whether the host runs ``true`` within a bound, over a new
  connection each try;
- :func:`power_cycle`: its ``power_cycle`` command, then a wait until it answers
  again within ``reboot_timeout``; kept as a ``power cycle`` step (the command, its
  output and what came of it), with the output of its ``console`` command after it;
- :func:`power_on`: a host that does not answer as a run starts, powered on and
  waited for;
- :func:`power_off`: a host powered off as a run ends (``at_end = "power_off"``:
  :func:`power_off_at_end`).

Nothing here raises for a command that fails but :func:`power_on`, whose host the
run cannot do without.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from perfwalk.config.settings import AT_END
from perfwalk.errors import HostError
from perfwalk.hosts.base import Completed, Host, Reconnecting
from perfwalk.hosts.local import LocalHost
from perfwalk.model import Status
from perfwalk.orchestrate.hosts.reboot import console_step, with_line
from perfwalk.orchestrate.hosts.topology import Member, Topology
from perfwalk.store.phase_steps import POWER_CYCLE
from perfwalk.store.records import NewStep

#: Seconds allowed for a power command itself.
POWER_TIMEOUT = 120.0
#: Seconds allowed for one ``true`` when asking whether a host answers.
ALIVE_TRY = 10.0
#: Seconds between two tries.
POLL = 0.5
#: ``at_end`` of a host powered off when a run ends.
POWER_OFF = AT_END[1]


@dataclass(frozen=True)
class Waiting:
    """How waits pass: the clock and the pause between two tries (a test's are fake)."""

    clock: Callable[[], float] = time.monotonic
    pause: Callable[[float], None] = time.sleep


def answers(member: Member, timeout: float, waiting: Waiting = Waiting()) -> bool:
    """Whether ``member``'s host runs ``true`` within ``timeout`` seconds, over a new
    connection each try (one to a host that hung may look alive for a while), until
    the bound."""
    host = member.host
    deadline = waiting.clock() + timeout
    while True:
        if isinstance(host, Reconnecting):
            host.forget()
        left = deadline - waiting.clock()
        done = host.run(["true"], timeout=max(1.0, min(left, ALIVE_TRY)))
        if done.returncode == 0:
            return True
        left = deadline - waiting.clock()
        if left <= 0:
            return False
        waiting.pause(min(POLL, left))


@dataclass(frozen=True)
class PowerCycle:
    """How one power cycle went: whether the host answers again, what to say of it
    (``host dut hung: power-cycled after …``), its steps."""

    host: str
    back: bool
    message: str
    steps: tuple[NewStep, ...]


def power_cycle(
    member: Member,
    *,
    phase: str,
    silent: float,
    controller: Host | None = None,
    waiting: Waiting = Waiting(),
) -> PowerCycle:
    """Power-cycle ``member``, which went ``silent`` seconds without an answer, and
    wait until it answers again within its ``reboot_timeout``; never raises."""
    here = controller if controller is not None else LocalHost()
    if isinstance(member.host, Reconnecting):
        member.host.forget()
    started_at = datetime.now(UTC)
    t0 = waiting.clock()
    sent = here.run(["sh", "-c", member.power.cycle], timeout=POWER_TIMEOUT)
    failed = command_failure(sent)
    back = not failed and answers(member, member.reboot_timeout, waiting)
    took = waiting.clock() - t0
    hung = f"host {member.name} hung"
    if failed:
        status = Status.NOEXIT
        message = (
            f"{hung} ({silent:.0f} s without an answer); its power_cycle command failed: {failed}"
        )
    elif not back:
        status = Status.NOTERM
        message = (
            f"{hung}: power-cycled after {silent:.0f} s without an answer, but it did not "
            f"answer within {member.reboot_timeout:g} s (reboot_timeout)"
        )
    else:
        status = Status.PASS
        message = (
            f"{hung}: power-cycled after {silent:.0f} s without an answer; it answered "
            f"again {took:.1f} s later"
        )
    steps = [
        NewStep(
            phase=phase,
            role=",".join(member.roles),
            host=member.name,
            kind=POWER_CYCLE,
            name="power cycle",
            command=member.power.cycle,
            status=status,
            message=message,
            exit_code=sent.returncode,
            started_at=started_at,
            finished_at=started_at + timedelta(seconds=took),
            stdout=with_line(sent.stdout, message),
            stderr=sent.stderr,
        )
    ]
    if member.console:
        steps.append(console_step(member, phase, here))
    return PowerCycle(member.name, back, message, tuple(steps))


def power_on(
    member: Member, *, why: str, controller: Host | None = None, waiting: Waiting = Waiting()
) -> str:
    """Power on ``member``, which does not answer (``why``), and wait until it answers
    within its ``reboot_timeout``: what to say of it, or a HostError naming the host."""
    here = controller if controller is not None else LocalHost()
    t0 = waiting.clock()
    failed = command_failure(here.run(["sh", "-c", member.power.on], timeout=POWER_TIMEOUT))
    why = why.removeprefix(f"host {member.name}: ")
    if failed:
        raise HostError(
            f"host {member.name} does not answer ({why}) and its power_on command failed: {failed}",
            hint=f"run hosts.{member.name}.power_on by hand on this machine and check the "
            "power switch (or BMC) it talks to",
        )
    if not answers(member, member.reboot_timeout, waiting):
        raise HostError(
            f"host {member.name} did not answer within {member.reboot_timeout:g} s "
            f"(reboot_timeout) after its power_on command ({why} before)",
            hint="look at its console: it may not boot, or boot another system; check its "
            "network and that `ssh` to it works from this machine",
        )
    return (
        f"host {member.name} did not answer ({why}): powered on, answering after "
        f"{waiting.clock() - t0:.1f} s"
    )


def power_off(member: Member, *, controller: Host | None = None) -> str:
    """Power off ``member`` with its ``power_off`` command; what came of it (never raises)."""
    here = controller if controller is not None else LocalHost()
    if isinstance(member.host, Reconnecting):
        member.host.forget()
    failed = command_failure(here.run(["sh", "-c", member.power.off], timeout=POWER_TIMEOUT))
    if failed:
        return f"host {member.name}: its power_off command failed: {failed}; it may still be on"
    return f"host {member.name} powered off"


def power_off_at_end(topology: Topology, *, controller: Host | None = None) -> list[str]:
    """Power off the hosts whose ``at_end`` says so, their work directories removed
    first; what came of each."""
    said = []
    for member in topology:
        if member.power.at_end == POWER_OFF and member.power.off:
            topology.cleanup(member.name)
            said.append(power_off(member, controller=controller))
    return said


def command_failure(done: Completed) -> str:
    """Why a power command failed, in a few words ("" when it ran and exited 0)."""
    if done.error is not None:
        return done.error
    if done.timed_out:
        return f"timed out after {done.duration:.0f} s"
    if done.returncode != 0:
        lines = done.stderr.text().strip().splitlines()
        return f"exit {done.returncode}" + (f": {lines[-1][:200]}" if lines else "")
    return ""
