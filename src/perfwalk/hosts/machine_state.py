"""The machine's state around a repetition: what else ran, how loaded, how fast.

One small ``sh -c`` script (:data:`SNAPSHOT_SCRIPT`) prints a snapshot of the host
it runs on, read from /proc and /sys: uptime, load average, the ``cpu`` line of
/proc/stat, MemAvailable, online cores, clock ticks, the CPUs' current frequency,
governor and turbo state, every process's /proc/PID/stat line and the processes
that carry a marker in their environment. It costs one command through the host's
connection (one multiplexed ssh command on a remote host). A walk takes one
snapshot before a repetition and one after; :func:`state_between` turns the two
into a :class:`~perfwalk.model.MachineState`.

:func:`parse_snapshot` and :func:`state_between` are pure: text in, records out.
Nothing here fails for what a host cannot tell (a VM without cpufreq, a BSD
without /proc): that field is unknown. :func:`take_snapshot` returns ``None`` when
the host cannot run the script at all.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from perfwalk.hosts.base import Host
from perfwalk.model import MachineState

#: The processes listed in a state (the most busy first).
BUSY_SHOWN = 3
#: Seconds allowed to the snapshot script.
SNAPSHOT_TIMEOUT = 30.0

# $1 = the marker to look for in environments ("" = none). Each section starts
# with a line "@name"; what a host lacks leaves its section empty.
# The small files are read by the shell itself (``lines``: every line of each readable
# file, starting with a prefix): a snapshot is taken twice per repetition, and each
# program started costs a millisecond or more.
SNAPSHOT_SCRIPT = r"""
lines() {
  p=$1; shift
  for f do
    [ -r "$f" ] || continue
    while IFS= read -r l || [ -n "$l" ]; do
      case $l in "$p"*) printf '%s\n' "$l" ;; esac
    done < "$f"
  done 2>/dev/null
}
echo "@self $$"
echo @uptime; lines '' /proc/uptime
echo @loadavg; lines '' /proc/loadavg
echo @cpu; lines 'cpu ' /proc/stat
echo @mem; lines 'MemAvailable:' /proc/meminfo
echo @cores; getconf _NPROCESSORS_ONLN 2>/dev/null
echo @ticks; getconf CLK_TCK 2>/dev/null
c=/sys/devices/system/cpu
echo @freq; lines '' $c/cpu[0-9]*/cpufreq/scaling_cur_freq
echo @governor; lines '' $c/cpu[0-9]*/cpufreq/scaling_governor
echo @no_turbo; lines '' $c/intel_pstate/no_turbo
echo @boost; lines '' $c/cpufreq/boost
echo @marked
[ -n "$1" ] && grep -l -s -a -F -e "$1" /proc/[0-9]*/environ 2>/dev/null
echo @stat; cat /proc/[0-9]*/stat 2>/dev/null
echo @end
"""


@dataclass(frozen=True)
class Process:
    """One line of /proc/PID/stat: what the state needs of it."""

    pid: int
    ppid: int
    name: str
    ticks: int  # utime + stime
    start: int  # start time, in clock ticks after boot
    running: bool = False  # state R: running or waiting for a CPU


@dataclass(frozen=True)
class Snapshot:
    """One reading of a host (see :data:`SNAPSHOT_SCRIPT`); ``None``: not readable."""

    uptime: float | None = None
    load1: float | None = None
    cpu: tuple[int, ...] = ()  # the numbers of /proc/stat's cpu line
    mem_available: int | None = None  # kB
    cores: int | None = None
    ticks: int | None = None  # clock ticks per second
    freqs_khz: tuple[int, ...] = ()
    governors: tuple[str, ...] = ()
    no_turbo: str = ""
    boost: str = ""
    self_pid: int | None = None  # the script's shell
    marked: frozenset[int] = frozenset()
    processes: dict[int, Process] = field(default_factory=dict)


def snapshot_command(marker: str = "") -> list[str]:
    """The argv that prints a snapshot of the host it runs on; processes whose
    environment holds ``marker`` (e.g. ``PERFWALK_WALK=token``) are listed as marked."""
    return ["sh", "-c", SNAPSHOT_SCRIPT, "perfwalk-machine", marker]


def parse_snapshot(text: str) -> Snapshot:
    """The snapshot printed by :data:`SNAPSHOT_SCRIPT`; what is missing or garbled is
    left unknown, never an error."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    self_pid: int | None = None
    for line in text.splitlines():
        if line.startswith("@"):
            name, _, rest = line[1:].partition(" ")
            if name == "self":
                self_pid = _int(rest)
                current = None
                continue
            current = sections.setdefault(name, [])
            continue
        if current is not None and line.strip():
            current.append(line)
    return Snapshot(
        uptime=_float(_word(sections, "uptime", 0)),
        load1=_float(_word(sections, "loadavg", 0)),
        cpu=_cpu(sections.get("cpu", [])),
        mem_available=_int(_word(sections, "mem", 1)),
        cores=_int(_word(sections, "cores", 0)),
        ticks=_int(_word(sections, "ticks", 0)),
        freqs_khz=tuple(f for f in (_int(x) for x in sections.get("freq", [])) if f is not None),
        governors=tuple(g.strip() for g in sections.get("governor", []) if g.strip()),
        no_turbo=_word(sections, "no_turbo", 0),
        boost=_word(sections, "boost", 0),
        self_pid=self_pid,
        marked=frozenset(_marked(sections.get("marked", []))),
        processes={p.pid: p for p in map(parse_stat_line, sections.get("stat", [])) if p},
    )


def parse_stat_line(line: str) -> Process | None:
    """A /proc/PID/stat line ("pid (comm) state ppid …"); None when garbled. The name
    may hold spaces and parentheses: it ends at the last ')'."""
    head, sep, tail = line.rpartition(")")
    pid_text, paren, name = head.partition(" (")
    fields = tail.split()
    if not sep or not paren or len(fields) < 20:
        return None
    numbers = [_int(fields[i]) for i in (1, 11, 12, 19)]  # ppid, utime, stime, starttime
    pid = _int(pid_text)
    if pid is None or any(n is None for n in numbers):
        return None
    ppid, utime, stime, start = (n or 0 for n in numbers)
    running = fields[0] == "R"
    return Process(pid=pid, ppid=ppid, name=name, ticks=utime + stime, start=start, running=running)


def state_between(first: Snapshot, last: Snapshot, own: Iterable[int] = ()) -> MachineState:
    """The machine's state over the time between two snapshots of one host.

    The test's own processes are left out of ``others_cpu`` and ``busy``: those
    marked (see :func:`snapshot_command`), those of the process trees of ``own``
    (e.g. the controller's PID on its own machine) and the snapshot scripts'.
    """
    seconds = None
    if first.uptime is not None and last.uptime is not None and last.uptime > first.uptime:
        seconds = last.uptime - first.uptime
    others, busy = _others(first, last, seconds, own)
    runnable = _runnable(first, last, own)
    return MachineState(
        seconds=seconds,
        load1=last.load1,
        cores=last.cores,
        others_cpu=others,
        busy=busy,
        steal=_steal(first.cpu, last.cpu),
        mem_available=last.mem_available,
        freq_mhz=(sum(last.freqs_khz) / len(last.freqs_khz) / 1000) if last.freqs_khz else None,
        governor=",".join(sorted(set(last.governors))) or "unknown",
        turbo=_turbo(last),
        runnable=runnable,
    )


def take_snapshot(
    host: Host, marker: str = "", *, timeout: float = SNAPSHOT_TIMEOUT
) -> Snapshot | None:
    """A snapshot of ``host``; None when the script could not run there."""
    done = host.run(snapshot_command(marker), timeout=timeout)
    if done.error is not None or done.returncode is None:
        return None
    return parse_snapshot(done.stdout.text())


def _others(
    first: Snapshot, last: Snapshot, seconds: float | None, own: Iterable[int]
) -> tuple[float | None, tuple[tuple[str, float], ...]]:
    if seconds is None or not last.ticks or not last.processes:
        return None, ()
    roots = {*own, *(p for p in (first.self_pid, last.self_pid) if p is not None)}
    mine = _trees(last.processes, roots) | _trees(first.processes, roots)
    mine |= first.marked | last.marked
    boot_first = (first.uptime or 0.0) * last.ticks
    used: dict[str, float] = {}
    total = 0.0
    for pid, now in last.processes.items():
        if pid in mine:
            continue
        before = first.processes.get(pid)
        if before is not None and before.start == now.start:
            ticks = now.ticks - before.ticks
        elif now.start >= boot_first:  # started since the first snapshot
            ticks = now.ticks
        else:  # started before it, but not seen then: unknown
            continue
        if ticks <= 0:
            continue
        share = ticks / last.ticks / seconds
        total += share
        used[now.name] = used.get(now.name, 0.0) + share
    ranked = sorted(used.items(), key=lambda item: (-item[1], item[0]))[:BUSY_SHOWN]
    return total, tuple((name, round(share * 100, 1)) for name, share in ranked)


def _runnable(first: Snapshot, last: Snapshot, own: Iterable[int]) -> float | None:
    """The mean number of other processes in state R at the two snapshots."""
    counts = []
    for snapshot in (first, last):
        if not snapshot.processes:
            continue
        roots = {*own, *([snapshot.self_pid] if snapshot.self_pid is not None else [])}
        mine = _trees(snapshot.processes, roots) | snapshot.marked
        counts.append(
            sum(1 for p in snapshot.processes.values() if p.running and p.pid not in mine)
        )
    return sum(counts) / len(counts) if counts else None


def _trees(processes: dict[int, Process], roots: set[int]) -> set[int]:
    """The PIDs of ``roots`` and of all their descendants in ``processes``."""
    children: dict[int, list[int]] = {}
    for process in processes.values():
        children.setdefault(process.ppid, []).append(process.pid)
    found: set[int] = set()
    todo = list(roots)
    while todo:
        pid = todo.pop()
        if pid in found:
            continue
        found.add(pid)
        todo.extend(children.get(pid, ()))
    return found


def _steal(first: tuple[int, ...], last: tuple[int, ...]) -> float | None:
    """The share of CPU time stolen between two cpu lines (user … steal: 8 fields)."""
    if len(first) < 8 or len(last) < 8:
        return None
    total = sum(last[:8]) - sum(first[:8])
    if total <= 0:
        return None
    return max(last[7] - first[7], 0) / total


def _turbo(snapshot: Snapshot) -> str:
    if snapshot.no_turbo in ("0", "1"):
        return "off" if snapshot.no_turbo == "1" else "on"
    if snapshot.boost in ("0", "1"):
        return "on" if snapshot.boost == "1" else "off"
    return "unknown"


def _cpu(lines: list[str]) -> tuple[int, ...]:
    if not lines:
        return ()
    words = lines[0].split()[1:]
    numbers = [_int(w) for w in words]
    if any(n is None for n in numbers):
        return ()
    return tuple(n or 0 for n in numbers)


def _marked(lines: list[str]) -> Iterable[int]:
    for line in lines:  # /proc/PID/environ
        parts = line.strip().split("/")
        if len(parts) == 4 and parts[1] == "proc":
            pid = _int(parts[2])
            if pid is not None:
                yield pid


def _word(sections: dict[str, list[str]], name: str, position: int) -> str:
    lines = sections.get(name, [])
    words = lines[0].split() if lines else []
    return words[position] if len(words) > position else ""


def _int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def _float(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None
