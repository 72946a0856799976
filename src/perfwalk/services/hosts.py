"""The hosts use case: ``perfwalk hosts`` lists the configured hosts, every lease and
every runtime modifier left in place; ``perfwalk hosts --break NAME`` removes a stale
lease (leases are taken by the session of a use case,
:mod:`perfwalk.orchestrate.session.session`); ``perfwalk hosts --forget-modifier ID`` the
record of a modifier undone by hand (:mod:`perfwalk.orchestrate.phases.modifiers`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from perfwalk.config.host_model import HostConfig
from perfwalk.config.model import Config
from perfwalk.errors import UsageError
from perfwalk.orchestrate.session.leases import lease_name
from perfwalk.store import Store
from perfwalk.store.leases import LeaseRow
from perfwalk.store.modifiers import AppliedModifier


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
    modifiers: list[AppliedModifier]  # runtime modifiers left in place, on any host


def hosts_report(config: Config, store: Store, now: datetime | None = None) -> HostsReport:
    """The configured hosts and every lease of the store."""
    hosts = dict(config.hosts)
    if config.run.host not in hosts:
        hosts[config.run.host] = HostConfig(target=config.run.host)
    lines = [
        HostLine(name, host.target, host.roles, dict(host.vars), lease_name(host))
        for name, host in sorted(hosts.items())
    ]
    return HostsReport(lines, store.leases.list(), now or datetime.now(UTC), store.modifiers.on())


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


def forget_modifier(store: Store, record: int) -> AppliedModifier:
    """Remove the record ``record`` of a runtime modifier left in place (undone by hand)."""
    forgotten = store.modifiers.forget(record)
    if forgotten is None:
        left = ", ".join(str(m.id) for m in store.modifiers.on()) or "none"
        raise UsageError(
            f"no record {record} of a modifier left in place (records now: {left})",
            hint="`perfwalk hosts` lists the modifiers left in place with their records",
        )
    return forgotten
