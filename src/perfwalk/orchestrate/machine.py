"""Watch the machine's state over each repetition of a walk: one snapshot of the
[run] host before the repetition, one after (:mod:`perfwalk.hosts.machine_state`).

The test's own processes are not "others": on this machine, the controller's
process tree; on any host, the processes that carry the walk's marker. A host that
cannot be read leaves the repetition without a state; it never fails the walk.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from perfwalk.errors import HostError
from perfwalk.hosts.leftovers import WALK_MARKER
from perfwalk.hosts.machine_state import Snapshot, state_between, take_snapshot
from perfwalk.model import MachineState
from perfwalk.orchestrate.topology import Member


@dataclass(frozen=True)
class MachineWatch:
    """Reads the state of ``member`` around repetitions of the walk marked ``marker``."""

    member: Member
    marker: str = ""

    def begin(self) -> Snapshot | None:
        """The snapshot before a repetition (None: not readable)."""
        try:
            return take_snapshot(self.member.host, self._environ())
        except HostError:
            return None

    def end(self, first: Snapshot | None) -> MachineState | None:
        """The state since ``first`` (None: not readable)."""
        if first is None:
            return None
        last = self.begin()
        if last is None:
            return None
        own = (os.getpid(),) if self.member.local else ()
        return state_between(first, last, own)

    def _environ(self) -> str:
        return f"{WALK_MARKER}={self.marker}" if self.marker else ""
