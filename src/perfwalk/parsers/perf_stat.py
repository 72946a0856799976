"""``perf stat -x,`` output → the counts of a process tree's hardware events.

``perf stat -x, -e EVENTS -o FILE -- COMMAND`` counts the events over the command and
every process it starts (counters are inherited) and writes one line per event:
``value,unit,event,run time,share of the run counted,metric,metric unit``. The value
is ``<not supported>`` where the machine does not expose the counter (most virtual
machines), ``<not counted>`` where it was not counted; the share is below 100 when
the kernel multiplexed the counters (the value is then scaled from a share of the
run: an estimate). On a hybrid CPU an event is counted per kind of core
(``cpu_core/instructions/``, ``cpu_atom/instructions/``): those lines are summed.
Lines starting with ``#`` and empty ones are comments.

All or nothing: the counts of every asked event, each counted for the whole run,
else none, with why (:class:`EventCounts`). Pure; never raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

#: a counted event's line has at least these fields
_FIELDS = 5
#: what perf writes instead of a value
NOT_SUPPORTED, NOT_COUNTED = "<not supported>", "<not counted>"


@dataclass(frozen=True)
class EventCounts:
    """The counts of the asked events (empty when any is missing) and why not."""

    counts: dict[str, int] = field(default_factory=dict)
    problem: str = ""


def base_event(name: str) -> str:
    """``cpu_core/instructions/`` → ``instructions``; ``cycles:u`` → ``cycles``."""
    if "/" in name:
        parts = [part for part in name.split("/") if part]
        name = parts[1] if len(parts) > 1 else parts[0]
    return name.split(":", 1)[0]


def parse_perf_stat(text: str, events: Sequence[str]) -> EventCounts:
    """The counts of ``events`` in ``text`` (``perf stat -x,`` output)."""
    counts: dict[str, int] = {}
    unsupported: list[str] = []
    partial: list[str] = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split(",")
        if len(fields) < _FIELDS:
            continue
        value, event, share = fields[0].strip(), base_event(fields[2].strip()), fields[4]
        if event not in events:
            continue
        if value in {NOT_SUPPORTED, NOT_COUNTED}:
            unsupported.append(f"{value} {event}")
            continue
        try:
            number = int(float(value))
            counted = float(share) if share.strip() else 100.0
        except ValueError:
            partial.append(f"{event}: {value!r}")
            continue
        if number < 0:
            partial.append(f"{event}: {value!r}")
            continue
        if counted < 100.0:
            partial.append(f"{event} counted {counted:g} % of the run (multiplexed)")
        counts[event] = counts.get(event, 0) + number
    if unsupported:
        return EventCounts(problem=", ".join(dict.fromkeys(unsupported)))
    if partial:
        return EventCounts(problem=", ".join(partial))
    missing = [e for e in events if e not in counts]
    if missing:
        return EventCounts(problem=f"no count of {', '.join(missing)}")
    return EventCounts({e: counts[e] for e in events})
