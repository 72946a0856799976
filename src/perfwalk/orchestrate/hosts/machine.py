"""Watch the machine's state over each repetition of a walk: one snapshot of each
host the repetition runs on before it, one after (:mod:`perfwalk.hosts.machine_state`).

The hosts are the [run] host and the hosts of the roles the tests play (a busy sink
or source disturbs a measure as much as a busy dut). The test's own processes are
not "others": on this machine, the controller's process tree; on any host, the
processes that carry the walk's marker. A host that cannot be read leaves the
repetition without its state; it never fails the walk.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfwalk.config.model import Config
from perfwalk.errors import HostError
from perfwalk.hosts.leftovers import WALK_MARKER
from perfwalk.hosts.machine_state import Snapshot, state_between, take_snapshot
from perfwalk.model import MachineState
from perfwalk.orchestrate.hosts.topology import Member, Topology


def playing(config: Config, topology: Topology) -> list[Member]:
    """The hosts a repetition of ``config``'s tests runs on: the [run] host and the
    host of every role a test, its services or its role phases name (each once, in
    the topology's order)."""
    names = {topology.member("").name}
    for test in config.tests:
        for role in {test.role, *(s.role for s in test.services), *test.roles}:
            if role:
                names.add(topology.member(role).name)
    return [member for member in topology if member.name in names]


@dataclass(frozen=True)
class MachineWatch:
    """Reads the state of ``members`` around repetitions of the walk marked ``marker``."""

    members: Sequence[Member]
    marker: str = ""

    def begin(self) -> dict[str, Snapshot | None]:
        """The snapshot of each host before a repetition (None: not readable)."""
        return {member.name: self._snapshot(member) for member in self.members}

    def end(self, first: Mapping[str, Snapshot | None]) -> dict[str, MachineState]:
        """The state of each host since ``first`` (a host not readable is left out)."""
        found: dict[str, MachineState] = {}
        for member in self.members:
            before = first.get(member.name)
            if before is None:
                continue
            last = self._snapshot(member)
            if last is None:
                continue
            own = (os.getpid(),) if member.local else ()
            found[member.name] = state_between(before, last, own)
        return found

    def _snapshot(self, member: Member) -> Snapshot | None:
        try:
            return take_snapshot(member.host, self._environ())
        except HostError:
            return None

    def _environ(self) -> str:
        return f"{WALK_MARKER}={self.marker}" if self.marker else ""
