"""Host leases: which run holds which host, taken atomically in the store.

A run takes a lease on all its hosts at once, in one write transaction (SQLite:
``BEGIN IMMEDIATE``; PostgreSQL: a transaction-level advisory lock), or on none
of them. A lease names its holder (user@machine, process, what it runs), when it
started, its last heartbeat and when it expires. The holder renews it while it
lives (:meth:`Leases.renew`); a lease is stale, and anyone may take it, once it
expired or when its holder is a process of this machine that is gone (a run
killed with ``kill -9``). :meth:`Leases.break_lease` removes one by force.
"""

from __future__ import annotations

import getpass
import os
import secrets
import socket
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Row, select, text

from perfwalk.store import schema
from perfwalk.store.connect import StorePart

_lease = schema.host_lease
#: Key of the PostgreSQL advisory lock that serialises lease changes.
_PG_LEASE_KEY = 0x6C656173  # "leas"


def user_at_machine() -> str:
    """Who this process runs for, as leases and triage name a person: user@machine
    (the numeric uid when the user has no name)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = str(os.getuid())
    return f"{user}@{socket.gethostname()}"


@dataclass(frozen=True)
class Holder:
    """Who takes a lease: this process, with a token that identifies its leases."""

    owner: str
    purpose: str
    machine: str
    pid: int
    process_start: str
    token: str

    @classmethod
    def this_process(cls, purpose: str) -> Holder:
        pid = os.getpid()
        return cls(
            owner=user_at_machine(),
            purpose=purpose,
            machine=socket.gethostname(),
            pid=pid,
            process_start=process_start(pid),
            token=secrets.token_hex(16),
        )


@dataclass(frozen=True, kw_only=True)
class LeaseRow:
    """A lease as stored."""

    host: str
    token: str
    owner: str
    purpose: str
    machine: str
    pid: int
    process_start: str
    started_at: datetime
    heartbeat_at: datetime
    expires_at: datetime

    def expired(self, now: datetime) -> bool:
        return self.expires_at <= now

    def holder_gone(self) -> bool:
        """True when the holder is a process of this machine that no longer runs."""
        if self.machine != socket.gethostname():
            return False
        return process_start(self.pid) != self.process_start

    def stale(self, now: datetime) -> bool:
        return self.expired(now) or self.holder_gone()

    def describe(self, now: datetime) -> str:
        """``held by root@lab (pid 42): series 3 of demo, since …, heartbeat 2 s ago``."""
        since = self.started_at.strftime("%Y-%m-%d %H:%M:%S UTC")
        beat = (now - self.heartbeat_at).total_seconds()
        left = (self.expires_at - now).total_seconds()
        state = f"expires in {left:.0f} s" if left > 0 else f"expired {-left:.0f} s ago"
        return (
            f"held by {self.owner} (pid {self.pid}): {self.purpose}, since {since}, "
            f"heartbeat {beat:.0f} s ago, {state}"
        )


class Leases(StorePart):
    """The leases of a store; get it from :attr:`perfwalk.store.Store.leases`."""

    def take(
        self, hosts: Sequence[str], holder: Holder, *, expiry: float, now: datetime
    ) -> list[LeaseRow]:
        """Take a lease on every host of ``hosts``, or on none.

        Returns the leases that stand in the way (held by another, not stale);
        an empty list means the leases are taken (or renewed, if already ours).
        """
        wanted = sorted(set(hosts))
        if not wanted:  # nothing to hold (an empty insert would be a row of NULLs)
            return []
        with self._write(f"take leases on {', '.join(wanted)}") as conn:
            current = [
                _row(row) for row in conn.execute(select(_lease).where(_lease.c.host.in_(wanted)))
            ]
            blocking = [r for r in current if r.token != holder.token and not r.stale(now)]
            if blocking:
                return blocking
            conn.execute(_lease.delete().where(_lease.c.host.in_(wanted)))
            conn.execute(
                _lease.insert(),
                [
                    {
                        "host": host,
                        "token": holder.token,
                        "owner": holder.owner,
                        "purpose": holder.purpose,
                        "machine": holder.machine,
                        "pid": holder.pid,
                        "process_start": holder.process_start,
                        "started_at": now,
                        "heartbeat_at": now,
                        "expires_at": now + timedelta(seconds=expiry),
                    }
                    for host in wanted
                ],
            )
        return []

    def renew(
        self, hosts: Sequence[str], holder: Holder, *, expiry: float, now: datetime
    ) -> list[str]:
        """Renew the holder's leases on ``hosts``; return the hosts it no longer holds."""
        with self._write("renew leases") as conn:
            conn.execute(
                _lease.update()
                .where(_lease.c.token == holder.token)
                .values(heartbeat_at=now, expires_at=now + timedelta(seconds=expiry))
            )
            held = set(
                conn.scalars(select(_lease.c.host).where(_lease.c.token == holder.token)).all()
            )
        return sorted(set(hosts) - held)

    def release(self, holder: Holder) -> None:
        """Give back every lease the holder has."""
        with self._write("release leases") as conn:
            conn.execute(_lease.delete().where(_lease.c.token == holder.token))

    def release_process(self, holder: Holder) -> list[str]:
        """Give back every lease that ``holder``'s process (its machine, PID and start)
        holds, whatever use case took it: for a process that runs one use case at a
        time (a worker), what an earlier one could not give back (the store was gone
        when it ended). The hosts released."""
        mine = (
            (_lease.c.machine == holder.machine)
            & (_lease.c.pid == holder.pid)
            & (_lease.c.process_start == holder.process_start)
        )
        with self._write("release the leases of this process") as conn:
            hosts = sorted(conn.scalars(select(_lease.c.host).where(mine)).all())
            conn.execute(_lease.delete().where(mine))
        return hosts

    def list(self) -> list[LeaseRow]:
        """Every lease, stale or not, by host."""
        with self._read("list the leases") as conn:
            return [_row(row) for row in conn.execute(select(_lease).order_by(_lease.c.host))]

    def break_lease(self, host: str) -> LeaseRow | None:
        """Remove the lease on ``host`` whoever holds it; the removed lease, if any."""
        with self._write(f"break the lease on {host}") as conn:
            row = conn.execute(select(_lease).where(_lease.c.host == host)).first()
            if row is None:
                return None
            conn.execute(_lease.delete().where(_lease.c.host == host))
        return _row(row)

    @contextmanager
    def _write(self, action: str) -> Iterator[Connection]:
        """One write transaction that serialises lease changes on PostgreSQL too."""
        with super()._write(action) as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LEASE_KEY})
            yield conn


def process_start(pid: int) -> str:
    """When process ``pid`` started (Linux clock ticks since boot); "" when it is gone.

    Without /proc, "?" for a live process: a reused pid cannot be told apart there.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        return fields[19].decode()
    except FileNotFoundError:
        return ""
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return ""
    except PermissionError:
        return "?"
    return "?"


def _row(row: Row[Any]) -> LeaseRow:
    return LeaseRow(
        host=row.host,
        token=row.token,
        owner=row.owner,
        purpose=row.purpose,
        machine=row.machine,
        pid=row.pid,
        process_start=row.process_start,
        started_at=row.started_at,
        heartbeat_at=row.heartbeat_at,
        expires_at=row.expires_at,
    )
