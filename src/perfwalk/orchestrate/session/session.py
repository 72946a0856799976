"""The session of a use case: its hold on a store, hosts and their leases, and its end.

A use case that runs things on hosts (a walk, a drill, a regress run, a Conductor
run) opens a session (:func:`open_session`, or :func:`config_session` for the hosts
of a configuration): the store, its logs masked with the secrets given, and the
hosts as a topology, not connected yet, to plan with. Then it holds them
(:meth:`Session.holding`): a lease on each host in the store (renewed while held,
:meth:`Session.check` raises once another process broke one), every ssh host
connected and each host's work directory made. Work that keeps a record in the
store as it goes runs inside :meth:`Session.ending` (or :meth:`Session.walking` for
a series), which records how it ended: finished, failed (a lost host, a crash) or
interrupted (Ctrl-C, a stopping signal). Whatever happened, the hosts whose
``at_end`` says so are powered off, the leases are released, then the work
directories are removed (the hosts' reset) and the connections closed, then the
store is closed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from perfwalk.config.model import Config
from perfwalk.config.secrets import config_secrets
from perfwalk.interrupts import shielded
from perfwalk.orchestrate.hosts.power import power_off_at_end
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.phases.modifiers import undo_left
from perfwalk.orchestrate.session.ending import Ending, recorded_end
from perfwalk.orchestrate.session.leases import HeldLeases
from perfwalk.orchestrate.session.run_hosts import (
    connect_all,
    control_directory,
    leased_hosts,
    open_topology,
)
from perfwalk.orchestrate.session.walker import (
    interrupted_on_error,
    sweep_gone,
    take_series,
    this_walker,
)
from perfwalk.store import Store
from perfwalk.store.leases import Holder


@dataclass(frozen=True)
class Leasing:
    """The leases a session takes: the hosts' lease names, how long to wait for
    another holder, how long a lease lasts unless renewed (seconds)."""

    hosts: Sequence[str]
    wait: float
    expiry: float


@dataclass
class Session:
    """One use case's store and hosts; see the module's doc."""

    store: Store
    topology: Topology
    purpose: str  # what the leases and the walker say this process does
    leasing: Leasing
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    say: Callable[[str], None] = lambda _said: None  # hears the hosts powered on and off
    _held: HeldLeases | None = field(default=None, init=False)

    @contextmanager
    def holding(
        self, connect: Callable[[Topology], Sequence[str] | None] | None = connect_all
    ) -> Iterator[Session]:
        """Lease the hosts, ``connect`` them (all at once by default: a host that does
        not answer is powered on when it has a power_on command) and make their work
        directories (None: neither, each host connects on first use); at the end, the
        hosts whose ``at_end`` says so are powered off (whatever happened), then the
        leases released."""
        leasing = self.leasing
        held = HeldLeases(
            self.store,
            list(leasing.hosts),
            self.purpose,
            wait=leasing.wait,
            expiry=leasing.expiry,
            clock=self.clock,
        )
        with held:
            self._held = held
            try:
                if connect is not None:
                    for said in connect(self.topology) or ():
                        self.say(said)
                    self.topology.prepare()
                yield self
            finally:
                self._held = None
                with shielded():
                    for said in power_off_at_end(self.topology):
                        self.say(said)

    def check(self) -> None:
        """Raise HostError once another process broke one of the leases held."""
        if self._held is not None:
            self._held.check()

    def ending(self, record: Callable[[Ending], None]) -> AbstractContextManager[None]:
        """Run the use case's work and ``record`` how it ended (see
        :func:`perfwalk.orchestrate.session.ending.recorded_end`)."""
        return recorded_end(record, self.purpose)

    def sweep(self, say: Callable[[str], None]) -> None:
        """Before measuring anything: stop what the walks of this machine that are gone
        left running and mark their series interrupted, then undo the runtime modifiers
        an earlier walk left in place on the hosts leased (``say`` tells each; a
        HostError names those that cannot be undone)."""
        for swept in sweep_gone(self.store):
            say(swept.describe())
        for undone in undo_left(self.store, self.topology, self.leasing.hosts):
            say(undone.describe())

    def walker(self) -> Holder:
        """This process as the walker of a series: the marker of what it starts. While
        the session holds its leases, the walker is their holder (one token), so that
        the leases' heartbeat tells whether the walk still runs."""
        if self._held is not None:
            return self._held.holder
        return this_walker(self.purpose)

    @contextmanager
    def walking(self, series_id: int, walker: Holder, also: Sequence[int] = ()) -> Iterator[None]:
        """``walker`` walks ``series_id`` (and the series ``also`` walked with it: its
        variants') during the block: marked ``finished`` when the block returns; when
        it raises, every process that carries the walker's marker is stopped and the
        series marked ``interrupted`` (``run --resume`` continues them)."""
        take_series(self.store, series_id, walker, self.clock())
        for walked in also:
            self.store.set_series_state(walked, "running")
        with interrupted_on_error(self.store, series_id, walker.token, also):
            yield
        for walked in (*also, series_id):
            self.store.set_series_state(walked, "finished", self.clock())


@contextmanager
def open_session(
    url: str,
    topology: Callable[[Path], Topology],
    *,
    purpose: str,
    leasing: Leasing,
    secrets: Iterable[str] = (),
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    say: Callable[[str], None] = lambda _said: None,
) -> Iterator[Session]:
    """A session on the store at ``url`` and the hosts ``topology`` opens (given the
    directory of the ssh control sockets); everything is closed at the end; ``say``
    hears the hosts powered on and off."""
    store = Store.open(url)
    try:
        store.mask_logs(secrets)
        with control_directory() as control:
            hosts = topology(control)
            try:
                yield Session(store, hosts, purpose, leasing, clock, say)
            finally:
                hosts.close()
    finally:
        store.close()


def config_session(
    config: Config,
    purpose: str,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    say: Callable[[str], None] = lambda _said: None,
    also: Collection[str] = (),
) -> AbstractContextManager[Session]:
    """The session of a use case that runs ``config``'s tests and installs on its hosts,
    and on the hosts ``also`` names (``say`` hears the hosts powered on and off)."""
    return open_session(
        config.store.url,
        lambda control: open_topology(config, control, also),
        purpose=purpose,
        leasing=Leasing(leased_hosts(config, also), config.run.lease_wait, config.run.lease_expiry),
        secrets=config_secrets(config),
        clock=clock,
        say=say,
    )
