"""Frozen value types shared by every layer: statuses, commits, checkouts, values."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime


class Status(enum.IntEnum):
    """Result status; the integer value is the severity (higher is worse)."""

    PASS = 1
    XFAIL = 2
    SKIP = 3
    XPASS = 4
    FAIL = 5
    NOEXIT = 6
    NOTERM = 7
    NORUN = 8
    NOLOG = 9
    NOCLEAN = 10
    NOEXIST = 11

    @property
    def severity(self) -> int:
        return int(self)

    @classmethod
    def worst(cls, statuses: list[Status] | tuple[Status, ...]) -> Status:
        """The most severe of ``statuses``; PASS for none."""
        return max(statuses, default=cls.PASS)


STATUS_MEANING: dict[Status, str] = {
    Status.PASS: "ran, produced its values",
    Status.XFAIL: "failed as expected",
    Status.SKIP: "not applicable here / prerequisites missing",
    Status.XPASS: "passed unexpectedly (or passed with error counters)",
    Status.FAIL: "ran to the end but the parser found no value / the test reported failure",
    Status.NOEXIT: "exit status not 0",
    Status.NOTERM: "timed out; the whole process group was killed; partial output kept",
    Status.NORUN: "could not start (exec failed, host unreachable)",
    Status.NOLOG: "output could not be stored",
    Status.NOCLEAN: "reset / cleanup failed",
    Status.NOEXIST: "startup / setup failed (build failed, test missing)",
}


class Direction(enum.Enum):
    """Which way a metric gets better."""

    HIGHER = "higher"
    LOWER = "lower"


@dataclass(frozen=True)
class Histogram:
    """A distribution a test reported whole (a latency histogram): its buckets as
    ``(low, high, count)``, ``count`` samples between ``low`` and ``high`` (``low ==
    high``: at that value, or an open bucket at its finite bound), ascending, in
    ``unit``; ``name`` is what the tool called it (``latency``, bpftrace's ``usecs``)."""

    name: str
    unit: str
    buckets: tuple[tuple[float, float, int], ...]

    @property
    def count(self) -> int:
        return sum(count for _, _, count in self.buckets)


@dataclass(frozen=True)
class Value:
    """One measured number, as a parser found it; a value derived from a histogram
    (its percentiles) carries the histogram, which is stored with it whole."""

    name: str
    value: float
    unit: str
    histogram: Histogram | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Commit:
    """One commit of the project's history (untrusted text in author/subject/body)."""

    id: str
    date: datetime  # committer date, timezone-aware
    author: str
    subject: str
    body: str = ""
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class Checkout:
    """One commit chosen by a walk, with the commits since the previous checkout."""

    index: int
    commit: str
    date: datetime
    since: tuple[Commit, ...] = field(default=())
    quirks: tuple[str, ...] = field(default=())  # letters of the quirks that apply


@dataclass(frozen=True)
class Pruned:
    """What retention (``perfwalk prune``) did to a log, a profile or a checkout's
    outputs: dropped them on ``at`` by ``rule`` ("older than 30 days"); the values,
    summaries and statuses are kept."""

    at: datetime
    rule: str

    def said(self, what: str) -> str:
        """``log pruned on 2026-03-01 (retention: older than 30 days)``, ``what`` first."""
        return f"{what} pruned on {self.at:%Y-%m-%d} (retention: {self.rule})"


@dataclass(frozen=True)
class Log:
    """Captured output, bounded: the head and tail of it past a limit.

    ``data`` holds what was kept (head, a marker line, tail when ``truncated``);
    ``total`` is the number of bytes the process produced.
    """

    data: bytes
    total: int
    truncated: bool = False
    pruned: Pruned | None = None  # dropped by retention: ``data`` is empty

    @classmethod
    def of(cls, data: bytes) -> Log:
        return cls(data=data, total=len(data), truncated=False)

    def text(self) -> str:
        """The log as text; invalid UTF-8 becomes U+FFFD, never an error."""
        return self.data.decode("utf-8", errors="replace")


EMPTY_LOG = Log(data=b"", total=0, truncated=False)


@dataclass(frozen=True)
class MachineState:
    """What could disturb one repetition, read on the host where it ran, over its run.

    ``load1`` is the 1-minute load average at its end and ``cores`` the host's online
    CPUs; ``others_cpu`` the CPU the other processes used over the repetition (in
    CPUs: 1.0 = one CPU busy the whole time), the test's own processes excluded, and
    ``busy`` the three of them that used the most (name, % of one CPU); ``steal`` the
    share of CPU time a hypervisor took; ``mem_available`` MemAvailable in kB;
    ``freq_mhz`` the mean current frequency of the CPUs; ``governor`` and ``turbo``
    the frequency governor(s) and turbo/boost state ("on", "off"); ``runnable`` the
    mean number of other processes running or waiting for a CPU at the two readings
    (what they asked for, where ``others_cpu`` is what they got: on a saturated
    machine the CPU they get hardly grows with their number, their queue does). ``None`` or
    ``"unknown"``: not readable there (a VM has no cpufreq; a BSD has no /proc).
    ``seconds`` is the time between the two readings.
    """

    seconds: float | None = None
    load1: float | None = None
    cores: int | None = None
    others_cpu: float | None = None
    busy: tuple[tuple[str, float], ...] = ()
    steal: float | None = None
    mem_available: int | None = None
    freq_mhz: float | None = None
    governor: str = "unknown"
    turbo: str = "unknown"
    runnable: float | None = None
