"""The hosts of a run and the roles they play: which host runs what, where on it,
and the ``{host.<role>.<variable>}`` placeholders.

A :class:`Topology` holds opened hosts (local or ssh) by name. Each host gets a
work directory of its own for the run (``mktemp -d`` on the host: service logs
and pid files, installed files, the ``{hostdir}`` placeholder), removed at the end;
those that killed runs of this machine left there are removed as it is made
(:mod:`perfwalk.orchestrate.hosts.workdirs`).
"""

from __future__ import annotations

import shlex
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from perfwalk.config.settings import default_of
from perfwalk.errors import ConfigError, HostError
from perfwalk.hosts.base import Host
from perfwalk.orchestrate.hosts import workdirs


@dataclass(frozen=True)
class Power:
    """The power commands of a host (run on this machine) and how a walk uses them
    (:mod:`perfwalk.orchestrate.hosts.power`): ``cycle`` a host that stopped answering
    for ``alive_timeout`` seconds, at most ``cycles`` times a run; ``on`` when it does
    not answer as a run starts; ``off`` when the run ends, if ``at_end`` says so."""

    cycle: str = ""
    cycles: int = default_of("hosts.<name>.power_cycles")
    alive_timeout: float = default_of("hosts.<name>.alive_timeout")
    on: str = ""
    off: str = ""
    at_end: str = default_of("hosts.<name>.at_end")


@dataclass(frozen=True)
class Member:
    """One host of the topology."""

    name: str
    host: Host
    local: bool
    roles: tuple[str, ...] = ()
    vars: Mapping[str, str] = field(default_factory=dict)
    reboot: str = ""
    reboot_timeout: float = 600.0
    console: str = ""
    lease: str = ""  # the name it is leased under (run_hosts.lease_name); "": not known
    power: Power = Power()


class Topology:
    """Hosts by name, roles by name, the default host of tests without a role."""

    def __init__(self, members: Mapping[str, Member], default: str) -> None:
        self.members = dict(members)
        if default not in self.members:
            raise ValueError(f"default host {default!r} is not a member")
        self.default = default
        self.roles = {role: m.name for m in self.members.values() for role in m.roles}
        self._workdirs: dict[str, str] = {}
        self._lock = threading.Lock()

    def defaulting(self, member: Member) -> Topology:
        """The same hosts, work directories and roles, with ``member`` running what has
        no role (in the place of its namesake, when it has one): an environment's host
        or image. Its work directories are this topology's (made, removed and kept
        once)."""
        other = Topology({**self.members, member.name: member}, member.name)
        other._workdirs = self._workdirs  # one set of work directories, made and removed once
        other._lock = self._lock
        return other

    @classmethod
    def single(cls, host: Host, *, local: bool = True) -> Topology:
        """One host that runs everything (a walk without [hosts])."""
        return cls({host.name: Member(host.name, host, local)}, host.name)

    def __iter__(self) -> Iterator[Member]:
        return iter(self.members.values())

    def member(self, role: str) -> Member:
        """The host that plays ``role`` ("" = the default host)."""
        if not role:
            return self.members[self.default]
        try:
            return self.members[self.roles[role]]
        except KeyError:
            known = ", ".join(sorted(self.roles)) or "none"
            raise ConfigError(
                f"no host plays the role {role!r}",
                hint=f"roles of [hosts]: {known}; add it to the roles of a host",
            ) from None

    def placeholders(self) -> dict[str, str]:
        """``host.<role>.<variable>`` for every role and variable of its host."""
        values: dict[str, str] = {}
        for role, name in self.roles.items():
            for var, value in self.members[name].vars.items():
                values[f"host.{role}.{var}"] = value
        return values

    def workdir(self, name: str) -> str:
        """The run's work directory on host ``name``, made on first use."""
        with self._lock:
            if name in self._workdirs:
                return self._workdirs[name]
        member = self.members[name]
        me = workdirs.this_run()
        owner = "" if me is None else me.text()
        done = member.host.run(["sh", "-c", workdirs.MAKE_WORKDIR, "sh", owner], timeout=60)
        path, others = workdirs.made(done.stdout.text())
        if done.returncode != 0 or not path.startswith("/"):
            why = done.error or done.stderr.text().strip() or f"exit {done.returncode}"
            raise HostError(
                f"host {name}: cannot make a work directory: {why}",
                hint="check that the host is reachable and its $TMPDIR (or /tmp) is writable",
            )
        left = [] if me is None else workdirs.left_over(others, me)
        if left:  # best effort: what a killed run left is no reason to stop this one
            member.host.run(["rm", "-rf", "--", *left], timeout=60)
        with self._lock:
            return self._workdirs.setdefault(name, path)

    def workdir_or_none(self, name: str) -> str | None:
        """The work directory on host ``name``, or None when the host cannot make one."""
        try:
            return self.workdir(name)
        except HostError:
            return None

    def prepare(self) -> None:
        """Make every work directory now, while every host answers (a run's start)."""
        for name in self.members:
            self.workdir(name)

    def restore_workdir(self, name: str) -> None:
        """Make the work directory again after a reboot (a tmpfs /tmp is empty)."""
        with self._lock:
            path = self._workdirs.get(name)
        if path is not None:
            self.members[name].host.run(["mkdir", "-p", path], timeout=60)

    def cleanup(self, only: str | None = None) -> None:
        """Remove the work directories (best effort: a lost host keeps its own); ``only``:
        that host's alone."""
        with self._lock:
            made = {n: p for n, p in self._workdirs.items() if only in (None, n)}
            self._workdirs = {n: p for n, p in self._workdirs.items() if n not in made}
        for name, path in made.items():
            self.members[name].host.run(["sh", "-c", f"rm -rf {shlex.quote(path)}"], timeout=60)

    def close(self) -> None:
        """Remove the work directories and close every host."""
        try:
            self.cleanup()
        finally:
            for member in self.members.values():
                member.host.close()
