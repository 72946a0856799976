"""Reboot a host and wait until it answers ssh again, within a bound.

The reboot command is sent over the host's connection (which the reboot ends);
perfwalk waits for the host to go down (its master connection ends) and then to
accept a new connection, polling until ``reboot_timeout`` seconds have passed
since the command. How long each took is recorded. A console command (run on
this machine: a serial console's log) is captured after every reboot, whether the
host came back or not, so a kernel that panics leaves its last words in the store.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from perfwalk.errors import ConfigError, HostError
from perfwalk.hosts.base import Completed, Host, Reconnecting
from perfwalk.hosts.local import LocalHost
from perfwalk.model import EMPTY_LOG, Log, Status
from perfwalk.orchestrate.hosts.topology import Member
from perfwalk.store.records import NewStep

#: Seconds allowed for the reboot command itself (it usually loses its connection).
SEND_TIMEOUT = 30.0
CONSOLE_TIMEOUT = 60.0
#: Seconds between two looks at a host that is going down or coming back.
POLL = 0.2


@dataclass(frozen=True)
class RebootOutcome:
    """How one reboot went: its status, the seconds to go down and to come back."""

    host: str
    status: Status
    message: str
    down_after: float | None
    up_after: float | None
    steps: tuple[NewStep, ...]


def rebootable(member: Member) -> Reconnecting:
    """The member's host, if perfwalk can reboot it; ConfigError otherwise."""
    host = member.host
    if member.local or not isinstance(host, Reconnecting):
        raise ConfigError(
            f"host {member.name} is this machine: rebooting it would stop perfwalk",
            key=f"hosts.{member.name}.reboot",
            hint='reboot only ssh hosts; set reboot = "" for this one, or use another between',
        )
    return host


def reboot(
    member: Member, *, phase: str, clock: Callable[[], float] = time.monotonic
) -> RebootOutcome:
    """Reboot ``member``'s host and wait for it; never raises for a host that stays away."""
    host = rebootable(member)
    started_at = datetime.now(UTC)
    t0 = clock()
    deadline = t0 + member.reboot_timeout
    sent = host.run(["sh", "-c", member.reboot], timeout=SEND_TIMEOUT)
    down_after = _wait_down(host, deadline, clock)
    host.forget()
    up_after = None if down_after is None else _wait_up(host, deadline, clock)
    if down_after is None:
        status = Status.NOCLEAN
        message = f"{member.name} did not go down within {member.reboot_timeout:g} s"
    elif up_after is None:
        status = Status.NOCLEAN
        message = (
            f"{member.name} went down after {down_after - t0:.1f} s but did not answer ssh "
            f"within {member.reboot_timeout:g} s"
        )
    else:
        status = Status.PASS
        message = (
            f"{member.name} rebooted: down after {down_after - t0:.1f} s, "
            f"answering ssh after {up_after - t0:.1f} s"
        )
    finished_at = started_at + timedelta(seconds=clock() - t0)
    steps = [
        NewStep(
            phase=phase,
            role=",".join(member.roles),
            host=member.name,
            kind="reboot",
            name="reboot",
            command=member.reboot,
            status=status,
            message=message,
            exit_code=sent.returncode,
            started_at=started_at,
            finished_at=finished_at,
            stdout=with_line(sent.stdout, message),
            stderr=sent.stderr,
        )
    ]
    if member.console:
        steps.append(console_step(member, phase))
    return RebootOutcome(
        host=member.name,
        status=status,
        message=message,
        down_after=None if down_after is None else down_after - t0,
        up_after=None if up_after is None else up_after - t0,
        steps=tuple(steps),
    )


def _wait_down(host: Reconnecting, deadline: float, clock: Callable[[], float]) -> float | None:
    """When the connection ended (the host went down); None if it never did."""
    while clock() < deadline:
        if not host.alive():
            return clock()
        time.sleep(POLL)
    return None


def _wait_up(host: Reconnecting, deadline: float, clock: Callable[[], float]) -> float | None:
    """When a new connection succeeded; None if none did before the deadline."""
    while clock() < deadline:
        try:
            host.connect()
        except HostError:
            time.sleep(POLL)
            continue
        return clock()
    return None


def console_step(member: Member, phase: str, controller: Host | None = None) -> NewStep:
    """The output of ``member``'s console command, run on this machine (``controller``)."""
    here = controller if controller is not None else LocalHost()
    done = here.run(["sh", "-c", member.console], timeout=CONSOLE_TIMEOUT)
    status = Status.PASS if done.returncode == 0 else Status.NOLOG
    return NewStep(
        phase=phase,
        role=",".join(member.roles),
        host=member.name,
        kind="console",
        name="console",
        command=member.console,
        status=status,
        message=_console_message(done),
        exit_code=done.returncode,
        started_at=done.started,
        finished_at=done.started + timedelta(seconds=done.duration),
        stdout=done.stdout,
        stderr=done.stderr,
    )


def _console_message(done: Completed) -> str:
    if done.error is not None:
        return done.error
    if done.timed_out:
        return f"timed out after {CONSOLE_TIMEOUT:g} s"
    return "" if done.returncode == 0 else f"exit {done.returncode}"


def with_line(log: Log, line: str) -> Log:
    """``log`` with ``[line]`` added at its end."""
    data = (log.data if log is not EMPTY_LOG else b"") + f"[{line}]\n".encode()
    return Log(data=data, total=log.total + len(line) + 3, truncated=log.truncated)
