"""What one test run leaves running on this machine: found, reported, stopped.

Every process a test run starts carries ``PERFWALK_RUN_ID=<random>`` in its
environment (and the walk's ``PERFWALK_WALK``). On Linux with a writable cgroup v2
hierarchy (as root), the commands a test runs on the local host also start in a
cgroup of their own, which nothing they start can leave. After the test's reset
phase, whatever still runs there, or still carries the run's marker, outlived the
test (a daemon that left the process group with ``setsid … &``): it is killed
and reported in the test's message and as a NOCLEAN ``leftover`` step. The
test's own status and values stay what they were: the measurement is not at
fault, the cleanup was.

Commands on ssh hosts are not watched this way: their reset phase and their
process groups are all there is.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from perfwalk.hosts.leftovers import (
    CGROUP_PREFIX,
    RUN_MARKER,
    Cgroup,
    Leftover,
    marked,
    new_cgroup,
    stop,
)
from perfwalk.hosts.local import LocalHost
from perfwalk.interrupts import shielded
from perfwalk.model import Status
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.phases.phases import TestOutcome
from perfwalk.store.records import NewStep

#: Processes named in a test's message (the step's message names them all).
NAMED = 3


class Containment:
    """The processes of one test run on the local host: :meth:`end` after the test."""

    def __init__(self, topology: Topology, walk: str, run_id: str) -> None:
        self.run_id = run_id
        self._local = [m for m in topology if m.local and isinstance(m.host, LocalHost)]
        self.cgroup: Cgroup | None = None
        self.why_no_cgroup = "no test command runs on this machine"
        if self._local:
            name = f"{CGROUP_PREFIX}{walk or 'nowalk'}-{run_id}"
            self.cgroup, self.why_no_cgroup = new_cgroup(name)
        for member in self._local:
            assert isinstance(member.host, LocalHost)
            member.host.cgroup = None if self.cgroup is None else str(self.cgroup.procs)

    def end(self) -> list[Leftover]:
        """Stop whatever the test run left running here; what was found (by PID).
        A signal that arrives meanwhile is raised once it is done."""
        with shielded():
            return self._end()

    def _end(self) -> list[Leftover]:
        for member in self._local:
            assert isinstance(member.host, LocalHost)
            member.host.cgroup = None
        if not self._local:
            return []
        # the marker too where there is a cgroup: a command that could not enter it
        # (a cgroup.procs this user may not write) still carries the marker
        found = {p.pid: p for p in marked(RUN_MARKER, [self.run_id])}
        if self.cgroup is not None:
            found.update((p.pid, p) for p in self.cgroup.members())
            self.cgroup.end()
        stop(list(found.values()), RUN_MARKER, [self.run_id])
        return sorted(found.values(), key=lambda p: p.pid)

    def report(self, outcome: TestOutcome, leftovers: list[Leftover]) -> TestOutcome:
        """``outcome`` with the processes left running named in its message and in a
        NOCLEAN ``leftover`` step of the reset phase."""
        if not leftovers:
            return outcome
        how = f"by {RUN_MARKER}={self.run_id}" + (" and in its cgroup" if self.cgroup else "")
        count = f"{len(leftovers)} process{'es' if len(leftovers) > 1 else ''}"
        named = ", ".join(p.describe() for p in leftovers[:NAMED])
        more = f" and {len(leftovers) - NAMED} more" if len(leftovers) > NAMED else ""
        note = f"{count} left running after the test, killed: {named}{more}"
        result = outcome.result
        message = "; ".join(m for m in (result.message, note) if m)
        now = datetime.now(UTC)
        every = ", ".join(p.describe() for p in leftovers)
        step = NewStep(
            test=result.test,
            phase="reset",
            role=result.role,
            host=self._local[0].name,
            kind="leftover",
            name="processes left running",
            command=f"found {how}",
            status=Status.NOCLEAN,
            message=f"killed: {every}"
            + ("" if self.cgroup is not None else f" (no cgroup: {self.why_no_cgroup})"),
            started_at=now,
            finished_at=now,
        )
        return dataclasses.replace(
            outcome,
            result=dataclasses.replace(result, message=message),
            steps=(*outcome.steps, step),
        )
