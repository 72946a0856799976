"""Wait for a quiet machine before a re-measure (``[run] confirm_wait``): the state of
every host a repetition runs on is read over a short sample, as a walk reads it
around each repetition (:class:`perfwalk.orchestrate.hosts.machine.MachineWatch`, the
test's own processes left out), until every host is quiet
(:func:`perfwalk.analysis.quiet.why_busy`) or the bound is reached.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from perfwalk.analysis.quiet import why_busy
from perfwalk.orchestrate.hosts.machine import MachineWatch

#: seconds between the two snapshots of one reading of the machine
SAMPLE_SECONDS = 1.0
#: seconds between two readings while the machine is busy
POLL_SECONDS = 2.0


@dataclass(frozen=True)
class Waited:
    """A wait for a quiet machine: how long, whether it got quiet (None: not looked
    at, ``[run] confirm_wait = 0``), how many readings it took and why the machine
    was busy at the last busy one ("" when none was)."""

    seconds: float
    quiet: bool | None
    readings: int = 0
    why: str = ""

    def said(self) -> str:
        """How the re-measure began, in words."""
        if self.quiet is None:
            return "measured without looking at the machine's load ([run] confirm_wait = 0)"
        if self.quiet and not self.why:
            return "measured on a quiet machine"
        if self.quiet:
            return f"waited {self.seconds:.0f} s for a quiet machine ({self.why})"
        return (
            f"measured without waiting for a quiet machine: still busy after "
            f"{self.seconds:.0f} s ([run] confirm_wait): {self.why}"
        )

    def record(self, at: datetime) -> dict[str, Any]:
        """As the store keeps it with the re-measure."""
        return {
            "at": at.isoformat(),
            "seconds": round(self.seconds, 3),
            "quiet": self.quiet,
            "readings": self.readings,
            "why": self.why,
        }


def wait_quiet(
    watch: MachineWatch, bound: float, told: Callable[[str], None] = lambda _why: None
) -> Waited:
    """Read the machine until every host is quiet, at most ``bound`` seconds (a reading
    that would end beyond it is not started); ``told`` hears why it waits, at each
    busy reading. ``bound`` 0: no reading at all."""
    if bound <= 0:
        return Waited(0.0, None)
    began = time.monotonic()
    busy, readings = "", 0
    while True:
        first = watch.begin()
        time.sleep(SAMPLE_SECONDS)
        why = why_busy(watch.end(first))
        readings += 1
        waited = time.monotonic() - began
        if not why:
            return Waited(waited, True, readings, busy)
        busy = why
        if waited + POLL_SECONDS + SAMPLE_SECONDS > bound:
            return Waited(waited, False, readings, busy)
        told(why)
        time.sleep(POLL_SECONDS)
