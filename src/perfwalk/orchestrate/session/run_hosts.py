"""The hosts a use case runs on: which hosts of a configuration, opened as a topology
(each ssh host over one multiplexed connection with its socket in a private
directory), connected all at once (one that does not answer powered on by its
``power_on`` command, when it has one), and the names under which they are leased."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path

from perfwalk.config.host_model import HostConfig
from perfwalk.config.model import Config
from perfwalk.errors import HostError
from perfwalk.hosts.base import Host, Reconnecting
from perfwalk.hosts.local import LocalHost
from perfwalk.hosts.ssh import SshHost, SshTarget
from perfwalk.orchestrate.hosts import workdirs
from perfwalk.orchestrate.hosts.power import power_on
from perfwalk.orchestrate.hosts.together import run_together
from perfwalk.orchestrate.hosts.topology import Member, Power, Topology
from perfwalk.orchestrate.session.leases import lease_name


def run_hosts(config: Config, also: Collection[str] = ()) -> dict[str, HostConfig]:
    """The hosts a run of ``config`` needs, by name.

    The [run] host is a host of [hosts], ``local``, or an ssh destination (then a
    host of that name); the others are the hosts of the roles the tests, the installs
    and the variants' runtime modifiers name (a walk may measure any variant), and
    those ``also`` names as the [run] host is named (an environment's hosts).
    """
    hosts = dict(config.hosts)
    default = config.run.host
    for name in (default, *also):
        if name not in hosts:
            hosts[name] = HostConfig(target=name)
    used = {default, *also}
    roles = {role: name for name, host in hosts.items() for role in host.roles}
    for test in config.tests:
        wanted = {test.role, *(s.role for s in test.services), *test.roles}
        used.update(roles[role] for role in wanted if role)
    used.update(roles[role] for role in config.install)
    modified = {m.role for variant in config.variants for m in variant.modifiers}
    used.update(roles[role] for role in modified if role)
    return {name: hosts[name] for name in hosts if name in used}


def leased_hosts(config: Config, also: Collection[str] = ()) -> list[str]:
    """The lease names a run of ``config`` takes: the hosts its tests, installs and
    variants' runtime modifiers use (the [run] host only when a test or a modifier
    runs there without a role, or when it holds a role itself), and those ``also``
    names."""
    hosts = run_hosts(config, also)
    modifiers = [m for variant in config.variants for m in variant.modifiers]
    if all(test.role for test in config.tests) and all(m.role for m in modifiers):
        run = hosts.get(config.run.host)
        if run is not None and not run.roles and config.run.host not in also:
            hosts.pop(config.run.host)
    return sorted({lease_name(host) for host in hosts.values()})


def open_topology(config: Config, control_dir: Path, also: Collection[str] = ()) -> Topology:
    """Open the hosts of a run, and those ``also`` names (ssh connections are made on
    first use)."""
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
            lease=lease_name(host),
            power=Power(
                cycle=host.power_cycle,
                cycles=host.power_cycles,
                alive_timeout=host.alive_timeout,
                on=host.power_on,
                off=host.power_off,
                at_end=host.at_end,
            ),
        )
        for name, host in run_hosts(config, also).items()
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


def connect_all(topology: Topology) -> list[str]:
    """Open every ssh connection now, all at once: an unreachable host stops the run
    before it starts (HostError naming it), unless it has a power_on command, which
    powers it on (it is waited for). What was powered on, told."""
    remote = [m for m in topology if isinstance(m.host, Reconnecting)]

    def job(member: Member, host: Reconnecting) -> Callable[[threading.Event], str]:
        def connect(_cancel: threading.Event) -> str:
            try:
                host.connect()
            except HostError as error:
                if not member.power.on:
                    raise
                return power_on(member, why=error.message)
            return ""

        return connect

    jobs = [job(m, m.host) for m in remote if isinstance(m.host, Reconnecting)]
    return [said for said in run_together(jobs) if said] if jobs else []


#: the name of a run's directory of ssh control sockets starts so
_CONTROL = "pw-ssh-"


@contextlib.contextmanager
def control_directory() -> Iterator[Path]:
    """A private directory for the ssh control sockets (short path: sockets are ≤ 104 bytes)."""
    path = Path(tempfile.mkdtemp(prefix=_CONTROL))
    workdirs.owned_here(path, _CONTROL)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def sharing_groups(leases: Mapping[str, Collection[str]]) -> list[list[str]]:
    """The runs of ``leases`` (run → the lease names it takes) in groups that share no
    lease with each other: two runs that share a host, directly or through a third,
    are in one group (and queue behind each other); groups may run at the same time.
    Runs keep their order within a group, groups are ordered by their first run."""
    group_of: dict[str, int] = {}
    groups: list[list[str]] = []
    for run, names in leases.items():
        joined = sorted({group_of[n] for n in names if n in group_of})
        if not joined:
            groups.append([run])
            target = len(groups) - 1
        else:
            target = joined[0]
            for other in joined[1:]:  # this run bridges them: one group
                groups[target].extend(groups[other])
                for name, index in group_of.items():
                    if index == other:
                        group_of[name] = target
                groups[other] = []
            groups[target].append(run)
        for name in names:
            group_of[name] = target
    order = {run: position for position, run in enumerate(leases)}
    return [sorted(g, key=order.__getitem__) for g in groups if g]
