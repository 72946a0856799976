"""Leases on hosts, held in the store for the life of a use case.

A use case that runs things on hosts (a walk, a drill, a regress run, a
Conductor run) holds a lease on each of them (:class:`HeldLeases`): a second one
waits or stops with the name of the holder instead of measuring against it. A
lease names its host as :func:`lease_name` says.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from types import TracebackType

from perfwalk.config.host_model import HostConfig
from perfwalk.errors import HostError, PerfwalkError
from perfwalk.store import Store
from perfwalk.store.leases import Holder, LeaseRow

#: Seconds between two attempts to take leases that another run holds.
LEASE_POLL = 1.0


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
        refused: Callable[[list[LeaseRow], datetime, float], PerfwalkError] | None = None,
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
        self._refused = refused or _held_error

    def __enter__(self) -> HeldLeases:
        deadline = time.monotonic() + self._wait
        while True:
            blocking = self._store.leases.take(
                self.hosts, self.holder, expiry=self._expiry, now=self._clock()
            )
            if not blocking:
                break
            if time.monotonic() >= deadline:
                raise self._refused(blocking, self._clock(), self._wait)
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


class HostsLeased(HostError):
    """Another run holds a lease on some of the hosts (``hosts``, their lease names)."""

    def __init__(self, message: str, *, hosts: list[str], hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.hosts = hosts


def _held_error(blocking: list[LeaseRow], now: datetime, waited: float) -> PerfwalkError:
    by_holder: dict[str, list[LeaseRow]] = {}
    for row in blocking:
        by_holder.setdefault(row.token, []).append(row)
    held = "; ".join(
        f"{', '.join(r.host for r in rows)} {rows[0].describe(now)}" for rows in by_holder.values()
    )
    after = f" (waited {waited:g} s)" if waited else ""
    return HostsLeased(
        f"host leased by another run{after}: {held}",
        hosts=sorted(row.host for row in blocking),
        hint="wait until it finishes, set [run] lease_wait to wait for it, or, if that run "
        "is gone, break its lease: perfwalk hosts --break HOST",
    )
