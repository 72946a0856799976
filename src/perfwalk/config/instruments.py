"""The instruments a test may have (``[[test.instrument]] kind``) and the metrics
each adds beside the test's own values, declared once: the configuration checks
the kinds, the measuring names its values after them, the analysis knows which are
load-immune (never suspect on the machine's load: the counts of cachegrind and
perf-stat (but the cycles and cache misses it counts) and rusage's memory, minor
faults and voluntary switches; not what the machine moves), the reference lists
them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InstrumentMetric:
    """One metric an instrument adds: its stored name, unit and meaning; ``work``: it
    counts the work the code did (a witness of a change of wall time: a change of the
    code moves it, a slower machine does not); ``exact``: a deterministic program
    counts the same at every repetition, so its smallest change reported and the
    fewest checkouts of its level are its own (:data:`perfwalk.policy.EXACT_COUNT_MIN_CHANGE`,
    :data:`perfwalk.policy.EXACT_COUNT_MIN_SIZE`), not ``[analysis]``'s."""

    name: str
    unit: str
    meaning: str
    work: bool = False
    exact: bool = False
    #: the machine moves it (another process on the core's other hardware thread or
    #: in its caches slows the same work, a busy CPU preempts the test more often, a
    #: page cache another process emptied is read again): not load-immune, judged
    #: with the machine's state as wall time is
    feels_the_machine: bool = False


#: rusage: what the test's command and the processes it waited for used (wait4)
RUSAGE = "rusage"
#: cachegrind: the test's command under valgrind's cache simulator, its process tree
CACHEGRIND = "cachegrind"

#: perf-stat: the hardware counters of the test's process tree, through ``perf stat``
PERF_STAT = "perf-stat"

#: each kind's metrics, in the order the reference lists them
INSTRUMENT_METRICS: dict[str, tuple[InstrumentMetric, ...]] = {
    RUSAGE: (
        InstrumentMetric(
            "rusage.user_cpu", "s", "CPU time in user mode", work=True, feels_the_machine=True
        ),
        InstrumentMetric(
            "rusage.system_cpu",
            "s",
            "CPU time in the kernel on its behalf",
            feels_the_machine=True,
        ),
        InstrumentMetric(
            "rusage.max_rss", "KiB", "the largest resident set of any one of its processes"
        ),
        InstrumentMetric(
            "rusage.voluntary_switches", "switches", "context switches while waiting (I/O, locks)"
        ),
        InstrumentMetric(
            "rusage.involuntary_switches",
            "switches",
            "context switches by the scheduler (its time slice used up, preempted)",
            feels_the_machine=True,
        ),
        InstrumentMetric(
            "rusage.minor_faults", "faults", "page faults served without I/O (first touches)"
        ),
        InstrumentMetric(
            "rusage.major_faults",
            "faults",
            "page faults that read from storage",
            feels_the_machine=True,
        ),
    ),
    CACHEGRIND: (
        InstrumentMetric(
            "cachegrind.instructions",
            "instructions",
            "instructions executed (Ir), all processes",
            work=True,
            exact=True,
        ),
        InstrumentMetric(
            "cachegrind.cycles",
            "cycles",
            "an estimate of cycles: Ir + 10 x L1 misses + 100 x last-level misses, simulated",
            work=True,
            exact=True,
        ),
    ),
    PERF_STAT: (
        InstrumentMetric(
            "perf-stat.instructions",
            "instructions",
            "instructions retired, counted",
            work=True,
            exact=True,
        ),
        InstrumentMetric(
            "perf-stat.cycles", "cycles", "CPU cycles, counted", work=True, feels_the_machine=True
        ),
        InstrumentMetric(
            "perf-stat.cache_misses",
            "misses",
            "cache misses (the last level's)",
            feels_the_machine=True,
        ),
        InstrumentMetric("perf-stat.branch_misses", "misses", "branches mispredicted"),
    ),
}

#: the kinds ``[[test.instrument]] kind`` may name
INSTRUMENT_KINDS: tuple[str, ...] = tuple(INSTRUMENT_METRICS)

#: ``[[test.instrument]] runs``: every repetition measured, or one extra run per checkout
EVERY_RUN, EXTRA_RUN = "all", "extra"
INSTRUMENT_RUNS = (EVERY_RUN, EXTRA_RUN)


def instrument_metric_names(kind: str) -> frozenset[str]:
    """The names of the metrics the instrument ``kind`` adds."""
    return frozenset(m.name for m in INSTRUMENT_METRICS[kind])


#: the names of the metrics every instrument adds (measured beside a test's parser)
ALL_INSTRUMENT_METRICS: frozenset[str] = frozenset(
    m.name for metrics in INSTRUMENT_METRICS.values() for m in metrics
)


_IMMUNE = frozenset(
    m.name for metrics in INSTRUMENT_METRICS.values() for m in metrics if not m.feels_the_machine
)


_WORK = frozenset(m.name for metrics in INSTRUMENT_METRICS.values() for m in metrics if m.work)
_EXACT = frozenset(m.name for metrics in INSTRUMENT_METRICS.values() for m in metrics if m.exact)


def load_immune(name: str) -> bool:
    """Whether the metric ``name`` is an instrument's that the machine's load does not
    move: load-immune by declaration."""
    return name in _IMMUNE


def exact_count(name: str) -> bool:
    """Whether the metric ``name`` is an instrument's exact count (a deterministic
    program counts the same at every repetition)."""
    return name in _EXACT


def counts_work(name: str) -> bool:
    """Whether the metric ``name`` is an instrument's count of the code's work (a
    witness of its test's other metrics' changes)."""
    return name in _WORK
