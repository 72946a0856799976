"""The process that walks a series: it says so in the store, stops what a killed walk
left running before it measures anything, and marks the series when it stops.

- :func:`take_series`: this process walks the series now (a walk that still runs
  it is an error: two walkers would measure against each other);
- :func:`sweep_gone`: every walker of this machine that is gone (``kill -9``,
  a crash) while its series was unfinished: the processes it left (its builds,
  its tests, their daemons: everything that carries its marker, and its
  cgroups) are killed, and its series, if still ``running``, is ``interrupted``;
- :func:`left_running`: a worker between two jobs marks ``interrupted`` the series
  its own walks left ``running`` (the store was gone when they stopped) and gives
  back their leases;
- :func:`interrupted_on_error`: a walk that stops on an exception or a signal
  stops every process it started that still runs (its marker) and marks its
  series ``interrupted``; when even that fails (the store is gone), the error
  that stopped the walk is the one raised, with the other as a note. Whatever
  happened, no cgroup of its tests is left.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from perfwalk.errors import UsageError
from perfwalk.hosts.leftovers import (
    CGROUP_PREFIX,
    WALK_MARKER,
    Leftover,
    marked,
    stale_cgroups,
    stop,
)
from perfwalk.orchestrate.session.ending import Ending, recorded_end
from perfwalk.store import Store
from perfwalk.store.leases import Holder
from perfwalk.store.walkers import WalkerRow


@dataclass(frozen=True)
class Swept:
    """What a gone walker left running, now stopped."""

    walker: WalkerRow
    stopped: tuple[Leftover, ...]

    def describe(self) -> str:
        count = len(self.stopped)
        named = ", ".join(p.describe() for p in self.stopped)
        return (
            f"stopped {count} process{'es' if count > 1 else ''} left running by the walk "
            f"of series {self.walker.series_id} that is gone ({self.walker.describe()}): "
            f"{named}"
        )


def this_walker(purpose: str) -> Holder:
    """This process, as the walker of a series: its marker is ``holder.token``."""
    return Holder.this_process(purpose)


def take_series(store: Store, series_id: int, holder: Holder, now: datetime) -> None:
    """``holder`` walks ``series_id`` from now on; a UsageError when another walker
    of this machine still walks it (the series is running and its process alive: a
    walker that finished or left it, such as the process that continues a named walk
    again, does not)."""
    previous = store.walkers.of([series_id]).get(series_id)
    if (
        previous is not None
        and previous.token != holder.token
        and previous.liveness() == "alive"
        and store.series(series_id).state == "running"
    ):
        raise UsageError(
            f"series {series_id} is being walked by {previous.describe()}",
            hint=f"wait until it ends, or stop it as Ctrl-C would: kill -TERM {previous.pid}",
        )
    store.walkers.record(series_id, holder, now)


def sweep_gone(store: Store) -> list[Swept]:
    """Stop what the gone walkers of this machine left running; mark their series
    ``interrupted``. What was stopped, per walker that left something."""
    gone = [w for w in store.walkers.unfinished(socket.gethostname()) if w.liveness() == "gone"]
    if not gone:
        return []
    tokens = [w.token for w in gone]
    found = marked(WALK_MARKER, tokens)
    stopped = {p.pid for p in stop(found, WALK_MARKER, tokens)}
    swept = []
    for walker in gone:
        mine = tuple(p for p in found if p.pid in stopped and p.marker == walker.token)
        for cgroup in stale_cgroups(f"{CGROUP_PREFIX}{walker.token}-"):
            mine += tuple(cgroup.members())
            cgroup.end()
        interrupt(store, walker.series_id)
        if mine:
            swept.append(Swept(walker, mine))
    return swept


def interrupt(store: Store, series_id: int) -> list[int]:
    """Mark ``series_id`` and its variants' series ``interrupted`` where they are still
    ``running`` (their walk is gone); those marked."""
    marked_now = []
    for walked in (series_id, *(v.id for v in store.variant_series(series_id))):
        if store.series(walked).state == "running":
            store.set_series_state(walked, "interrupted")
            marked_now.append(walked)
    return marked_now


def left_running(store: Store, process: Holder) -> list[int]:
    """The series that ``process`` (its machine, PID and start: a worker between two
    jobs, which walks nothing) left ``running`` because the store was gone when their
    walk stopped, now marked ``interrupted``, with its leases released."""
    walked = [
        w.series_id
        for w in store.walkers.unfinished(process.machine)
        if w.pid == process.pid and w.process_start == process.process_start
    ]
    store.leases.release_process(process)
    return [marked_now for series_id in walked for marked_now in interrupt(store, series_id)]


@contextmanager
def interrupted_on_error(
    store: Store, series_id: int, marker: str = "", also: Sequence[int] = ()
) -> Iterator[None]:
    """When the block raises (Ctrl-C included): stop the processes that carry the
    walk's ``marker``, mark ``series_id`` (and the series ``also`` walked with it: its
    variants') interrupted, and raise that error again; a
    failure to do so becomes a note on that error. In any case, at the end, remove
    the cgroups of the walk's tests that could not be removed when each ended (a
    killed process the machine's init had not reaped yet)."""

    def record(ending: Ending) -> None:
        if ending is Ending.FINISHED:
            return
        if marker:
            stop(marked(WALK_MARKER, [marker]), WALK_MARKER, [marker])
        for walked in (series_id, *also):
            store.set_series_state(walked, "interrupted")

    try:
        with recorded_end(record, f"series {series_id}"):
            yield
    finally:
        if marker:  # (empty by now: a signal here leaves no process, only a folder)
            for cgroup in stale_cgroups(f"{CGROUP_PREFIX}{marker}-"):
                cgroup.end()
