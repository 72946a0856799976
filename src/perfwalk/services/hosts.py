"""The hosts of a configuration: opening them for a run, leasing them, listing them.

A run opens the hosts it needs (the [run] host and the hosts of every role its
tests and installs name), each ssh host over one multiplexed connection with its
socket in a private directory, and holds a lease on all of them in the store
while it runs (:class:`HeldLeases`). ``perfwalk hosts`` lists the configured
hosts and every lease; ``perfwalk hosts --break NAME`` removes a stale lease.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from perfwalk.config.model import Config, HostConfig
from perfwalk.errors import HostError, UsageError
from perfwalk.hosts.base import Host, Reconnecting
from perfwalk.hosts.local import LocalHost
from perfwalk.hosts.ssh import SshHost, SshTarget
from perfwalk.orchestrate.together import run_together
from perfwalk.orchestrate.topology import Member, Topology
from perfwalk.store import Store
from perfwalk.store.leases import Holder, LeaseRow

#: Seconds between two attempts to take leases that another run holds.
LEASE_POLL = 1.0


def run_hosts(config: Config) -> dict[str, HostConfig]:
    """The hosts a run of ``config`` needs, by name.

    The [run] host is a host of [hosts], ``local``, or an ssh destination (then a
    host of that name); the others are the hosts of the roles the tests and the
    installs name.
    """
    hosts = dict(config.hosts)
    default = config.run.host
    if default not in hosts:
        hosts[default] = HostConfig(target=default)
    used = {default}
    roles = {role: name for name, host in hosts.items() for role in host.roles}
    for test in config.tests:
        wanted = {test.role, *(s.role for s in test.services), *test.roles}
        used.update(roles[role] for role in wanted if role)
    used.update(roles[role] for role in config.install)
    return {name: hosts[name] for name in hosts if name in used}


def leased_hosts(config: Config) -> list[str]:
    """The lease names a run of ``config`` takes: the hosts its tests and installs use
    (the [run] host only when a test runs there, without a role)."""
    hosts = run_hosts(config)
    if all(test.role for test in config.tests):
        hosts.pop(config.run.host, None)
    return sorted({lease_name(host) for host in hosts.values()})


def open_topology(config: Config, control_dir: Path) -> Topology:
    """Open the hosts of a run (ssh connections are made on first use)."""
    members = {
        name: Member(
            name=name,
            host=open_host(name, host, control_dir),
            local=host.local,
            roles=host.roles,
            vars=dict(host.vars),
            reboot=host.reboot,
            reboot_timeout=host.reboot_timeout,
            console=host.console,
        )
        for name, host in run_hosts(config).items()
    }
    return Topology(members, config.run.host)


def open_host(name: str, host: HostConfig, control_dir: Path) -> Host:
    """A LocalHost for ``local``, else an SshHost with its connection settings."""
    if host.local:
        return LocalHost(name)
    target = SshTarget(
        destination=host.target,
        ssh_config=host.ssh_config,
        known_hosts=host.known_hosts,
        options=host.ssh_options,
        connect_timeout=host.connect_timeout,
    )
    return SshHost(name, target, control_dir)


def connect_all(topology: Topology) -> None:
    """Open every ssh connection now, all at once: an unreachable host stops the run
    before it starts (HostError naming it)."""
    remote = [m.host for m in topology if isinstance(m.host, Reconnecting)]

    def job(host: Reconnecting) -> Callable[[threading.Event], None]:
        return lambda _cancel: host.connect()

    if remote:
        run_together([job(host) for host in remote])


@contextlib.contextmanager
def control_directory() -> Iterator[Path]:
    """A private directory for the ssh control sockets (short path: sockets are ≤ 104 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="pw-ssh-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def opened_topology(config: Config) -> Iterator[Topology]:
    """The hosts of ``config``, opened (not connected yet), closed at the end."""
    with control_directory() as control:
        topology = open_topology(config, control)
        try:
            yield topology
        finally:
            topology.close()


@contextlib.contextmanager
def ready_hosts(
    store: Store,
    config: Config,
    topology: Topology,
    purpose: str,
    clock: Callable[[], datetime],
) -> Iterator[Callable[[], None]]:
    """Lease every host ``config`` uses, connect and prepare them; yield the check to
    call between steps (it raises once another process broke a lease)."""
    leases = HeldLeases(
        store,
        leased_hosts(config),
        purpose,
        wait=config.run.lease_wait,
        expiry=config.run.lease_expiry,
        clock=clock,
    )
    with leases:
        connect_all(topology)
        topology.prepare()
        yield leases.check


def lease_name(host: HostConfig) -> str:
    """The name under which a host is leased: its lease setting, target or machine name."""
    if host.lease:
        return host.lease
    if host.local:
        return f"local:{socket.gethostname()}"
    return host.target


class HeldLeases:
    """Leases on a set of hosts for the life of a ``with`` block, renewed by a thread.

    Entering takes them all (waiting up to ``wait`` seconds for another holder);
    leaving releases them. :meth:`check` raises once a lease was broken.
    """

    def __init__(
        self,
        store: Store,
        hosts: list[str],
        purpose: str,
        *,
        wait: float,
        expiry: float,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self.hosts = sorted(set(hosts))
        self.holder = Holder.this_process(purpose)
        self._wait = wait
        self._expiry = expiry
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.broken: list[str] = []

    def __enter__(self) -> HeldLeases:
        deadline = time.monotonic() + self._wait
        while True:
            blocking = self._store.leases.take(
                self.hosts, self.holder, expiry=self._expiry, now=self._clock()
            )
            if not blocking:
                break
            if time.monotonic() >= deadline:
                raise _held_error(blocking, self._clock(), self._wait)
            time.sleep(LEASE_POLL)
        self._thread = threading.Thread(target=self._beat, name="perfwalk-lease", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        with contextlib.suppress(Exception):  # a store that went away: the lease expires
            self._store.leases.release(self.holder)

    def _beat(self) -> None:
        interval = max(1.0, self._expiry / 4)
        while not self._stop.wait(interval):
            with contextlib.suppress(Exception):  # a store hiccup: try again next beat
                lost = self._store.leases.renew(
                    self.hosts, self.holder, expiry=self._expiry, now=self._clock()
                )
                if lost:
                    self.broken = lost
                    return

    def check(self) -> None:
        """Raise HostError once another process broke one of these leases."""
        if self.broken:
            raise HostError(
                f"the lease on {', '.join(self.broken)} was broken while this run held it",
                hint="another run may use the host now; `perfwalk hosts` shows who holds it; "
                "`perfwalk run --resume` continues when the host is free",
            )


def _held_error(blocking: list[LeaseRow], now: datetime, waited: float) -> HostError:
    by_holder: dict[str, list[LeaseRow]] = {}
    for row in blocking:
        by_holder.setdefault(row.token, []).append(row)
    held = "; ".join(
        f"{', '.join(r.host for r in rows)} {rows[0].describe(now)}" for rows in by_holder.values()
    )
    after = f" (waited {waited:g} s)" if waited else ""
    return HostError(
        f"host leased by another run{after}: {held}",
        hint="wait until it finishes, set [run] lease_wait to wait for it, or, if that run "
        "is gone, break its lease: perfwalk hosts --break HOST",
    )


@dataclass(frozen=True)
class HostLine:
    """One configured host, as ``perfwalk hosts`` shows it."""

    name: str
    target: str
    roles: tuple[str, ...]
    vars: dict[str, str]
    lease: str


@dataclass(frozen=True)
class HostsReport:
    hosts: list[HostLine]
    leases: list[LeaseRow]
    now: datetime


def hosts_report(config: Config, store: Store, now: datetime | None = None) -> HostsReport:
    """The configured hosts and every lease of the store."""
    hosts = dict(config.hosts)
    if config.run.host not in hosts:
        hosts[config.run.host] = HostConfig(target=config.run.host)
    lines = [
        HostLine(name, host.target, host.roles, dict(host.vars), lease_name(host))
        for name, host in sorted(hosts.items())
    ]
    return HostsReport(lines, store.leases.list(), now or datetime.now(UTC))


def break_lease(config: Config, store: Store, name: str) -> LeaseRow:
    """Remove the lease on ``name`` (a host of the config or a lease name) by force."""
    hosts = dict(config.hosts)
    lease = lease_name(hosts[name]) if name in hosts else name
    removed = store.leases.break_lease(lease)
    if removed is None:
        held = ", ".join(row.host for row in store.leases.list()) or "none"
        raise UsageError(
            f"no lease on {lease!r}", hint=f"leases held now: {held} (see `perfwalk hosts`)"
        )
    return removed
