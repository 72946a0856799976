"""The ``perf-stat`` instrument: the hardware counters of the test's whole process tree
(instructions, cycles, cache and branch misses), counted by ``perf stat``.

The command runs under ``perf stat -x, -e EVENTS -o FILE --`` (the counters follow
every process it starts; ``perf stat`` ends as the command did), and the file is read
back and removed after the run (:mod:`perfwalk.parsers.perf_stat`). Where the host
does not expose the counters (most virtual machines: ``<not supported>``), or has no
``perf``, the probe before the first run says so once and no metric is stored, never
a zero; a run whose counters were multiplexed (counted for a share of the run, then
scaled) or not counted stores nothing and says why.
"""

from __future__ import annotations

from perfwalk.config.instruments import INSTRUMENT_METRICS, PERF_STAT
from perfwalk.model import Value
from perfwalk.orchestrate.hosts.topology import Member
from perfwalk.orchestrate.instruments.instruments import read_back
from perfwalk.orchestrate.steps.recorder import step_status, why
from perfwalk.parsers.perf_stat import parse_perf_stat

#: seconds allowed to probe perf on a host and to read a measurement back
PROBE_TIMEOUT = 60.0

#: perf's name of each metric's event, in the declared order
EVENTS = {
    "perf-stat.instructions": "instructions",
    "perf-stat.cycles": "cycles",
    "perf-stat.cache_misses": "cache-misses",
    "perf-stat.branch_misses": "branch-misses",
}

#: ``perf stat``'s options, probe included
OPTIONS = ("stat", "-x,", "-e", ",".join(EVENTS.values()))


def values_of(counts: dict[str, int]) -> tuple[Value, ...]:
    """The instrument's values for the counts of its events."""
    return tuple(
        Value(metric.name, float(counts[EVENTS[metric.name]]), metric.unit)
        for metric in INSTRUMENT_METRICS[PERF_STAT]
    )


class PerfStat:
    """The perf-stat instrument
    (:class:`perfwalk.orchestrate.instruments.instruments.Instrument`)."""

    kind = PERF_STAT

    def unavailable(self, member: Member) -> str | None:
        argv = ("perf", *OPTIONS, "-o", "/dev/stdout", "--", "true")
        done = member.host.run(argv, timeout=PROBE_TIMEOUT, output_limit=1 << 16)
        if done.returncode != 0:
            return (
                f"perf stat does not run there: {why(done, step_status(done))}; "
                "install perf on that host (Debian: apt-get install linux-perf)"
            )
        found = parse_perf_stat(done.stdout.text(), tuple(EVENTS.values()))
        if found.problem:
            return (
                f"its hardware counters are not there ({found.problem}): a virtual machine "
                "seldom exposes them; cachegrind counts instructions anywhere"
            )
        return None

    def wrapper(self, member: Member, path: str) -> tuple[str, ...]:  # noqa: ARG002
        return ("perf", *OPTIONS, "-o", path, "--")

    def read(self, member: Member, path: str) -> tuple[tuple[Value, ...], str]:
        text, problem = read_back(member, path, 1 << 20)
        if text is None:
            return (), problem
        found = parse_perf_stat(text, tuple(EVENTS.values()))
        if found.problem:
            return (), f"nothing stored on host {member.name}: {found.problem}"
        return values_of(found.counts), ""
