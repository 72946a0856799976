"""Processes that commands left running on this machine: found, described, stopped.

Every process a walk starts on this machine carries markers in its environment,
which everything it starts inherits (``setsid`` or not): :data:`WALK_MARKER`, one
value per walking process, and :data:`RUN_MARKER`, one value per test run.
:func:`marked` finds the live processes of this machine whose environment holds
one of the values asked (Linux, through /proc; elsewhere it finds nothing), and
:func:`stop` kills them. A process is only ever signalled through a pidfd opened
*before* its environment is read once more: a PID that was reused in between is
never signalled.

A process can empty its environment (``env -i``). A :class:`Cgroup` (cgroup v2,
Linux, where the hierarchy is writable: as root, or delegated) holds every process
a command starts, whatever it does, and :meth:`Cgroup.end` kills them all at once
(``cgroup.kill``). :func:`new_cgroup` says why there is none otherwise.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: Set to a random value for every process of one walking perfwalk (``run``, ``drill``).
WALK_MARKER = "PERFWALK_WALK"
#: Set to a random value for every process of one test run (one test, one repetition).
RUN_MARKER = "PERFWALK_RUN_ID"
#: The markers: they describe processes of this machine, and never go to an ssh host
#: (whose processes are ended by their process group there; a host that is this very
#: machine under another name, a namespace, must not be mistaken for this one).
MARKERS = (WALK_MARKER, RUN_MARKER)
#: Seconds to wait for killed processes to be gone.
STOP_WAIT = 2.0
#: Characters of a command line kept to describe a process.
COMMAND_CHARS = 120
#: Name of the cgroups perfwalk creates: ``perfwalk-<walk>-<run>``.
CGROUP_PREFIX = "perfwalk-"

_PROC = Path("/proc")


@dataclass(frozen=True)
class Leftover:
    """A live process found by a marker: its PID, command line (shortened) and the
    marker's value it carries ("" when found otherwise: in a cgroup)."""

    pid: int
    command: str
    marker: str = ""

    def describe(self) -> str:
        return f"pid {self.pid} ({self.command})"


def without_markers(env: Mapping[str, str] | None) -> dict[str, str] | None:
    """``env`` without the markers (for a command sent to another host)."""
    if env is None:
        return None
    return {name: value for name, value in env.items() if name not in MARKERS}


def marked(name: str, values: Iterable[str]) -> list[Leftover]:
    """The live processes of this machine whose environment sets ``name`` to one of
    ``values`` (never this process); none without /proc."""
    wanted = _wanted(name, values)
    if not wanted:
        return []
    try:
        entries = os.listdir(_PROC)
    except OSError:
        return []
    found = []
    for entry in entries:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        value = _carried(int(entry), wanted)
        if value is not None:
            found.append(Leftover(int(entry), command_line(int(entry)), value))
    return sorted(found, key=lambda leftover: leftover.pid)


def _wanted(name: str, values: Iterable[str]) -> dict[bytes, str]:
    return {f"{name}={value}".encode(): value for value in values if value}


def _carried(pid: int, wanted: dict[bytes, str]) -> str | None:
    """The value of ``wanted`` that process ``pid`` carries in its environment; None
    when it carries none, is gone, is a zombie or is not readable (another user's)."""
    try:
        environ = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return None
    return next((wanted[item] for item in environ.split(b"\0") if item in wanted), None)


def command_line(pid: int) -> str:
    """The command line of ``pid``, shortened and without control characters."""
    try:
        raw = (_PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return "?"
    text = raw.rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= COMMAND_CHARS else text[: COMMAND_CHARS - 1] + "…"


def stop(leftovers: Sequence[Leftover], name: str, values: Iterable[str]) -> list[Leftover]:
    """SIGKILL each of ``leftovers`` that still carries ``name`` = one of ``values``;
    wait (bounded) until they are gone; return those it killed."""
    wanted = _wanted(name, values)
    opened: list[tuple[Leftover, int]] = []
    for leftover in leftovers:
        fd = _pidfd(leftover.pid)
        if fd is None:
            continue
        # the pidfd pins the process: if it still carries the marker, it is that one
        if _carried(leftover.pid, wanted) is not None and _pidfd_kill(fd):
            opened.append((leftover, fd))
        else:
            os.close(fd)
    try:
        _wait_gone([fd for _leftover, fd in opened], STOP_WAIT)
    finally:
        for _leftover, fd in opened:
            os.close(fd)
    return [leftover for leftover, _fd in opened]


def _pidfd(pid: int) -> int | None:
    opener = getattr(os, "pidfd_open", None)
    if opener is None:  # no pidfd: never signal a PID that may have been reused
        return None
    try:
        fd: int = opener(pid)
    except OSError:
        return None
    return fd


def _pidfd_kill(fd: int) -> bool:
    sender = getattr(signal, "pidfd_send_signal", None)
    if sender is None:
        return False
    try:
        sender(fd, signal.SIGKILL)
    except OSError:
        return False
    return True


def _wait_gone(fds: Sequence[int], bound: float) -> None:
    """Wait up to ``bound`` seconds until every process behind ``fds`` has exited (a
    pidfd is readable once its process exited)."""
    left = list(fds)
    end = time.monotonic() + bound
    while left:
        wait = end - time.monotonic()
        if wait <= 0:
            return
        ready, _, _ = select.select(left, [], [], wait)
        left = [fd for fd in left if fd not in ready]


def start_time(pid: int) -> str:
    """When ``pid`` started (clock ticks since boot, /proc): with the PID, the identity
    of a process; "" when it is gone, "?" where there is no /proc."""
    try:
        fields = (_PROC / str(pid) / "stat").read_bytes().rpartition(b")")[2].split()
    except FileNotFoundError:
        return ""
    except OSError:
        return "?"
    return fields[19].decode() if len(fields) > 19 else "?"


def signal_same(pid: int, started: str, sig: signal.Signals) -> bool:
    """Send ``sig`` to ``pid`` only if it is the process that started at ``started``
    (a PID reused since is never signalled; without a pidfd or /proc, nothing is
    sent); True when it was sent."""
    if not started or started == "?":
        return False
    fd = _pidfd(pid)
    if fd is None:
        return False
    try:  # the pidfd pins the process: if it started then, it is that one
        if start_time(pid) != started:
            return False
        sender = getattr(signal, "pidfd_send_signal", None)
        if sender is None:
            return False
        try:
            sender(fd, sig)
        except OSError:
            return False
        return True
    finally:
        os.close(fd)


def end_with(parent: int, poll: float = 0.5) -> None:
    """In a forked worker process: end it, at once, once ``parent`` is gone (even
    killed with SIGKILL). A pool's worker waits for work on a pipe whose other end
    it holds itself: without this it would wait for ever after its parent died."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(1)

    threading.Thread(target=watch, name="perfwalk-parent-watch", daemon=True).start()


# -- cgroups -------------------------------------------------------------------------


@dataclass(frozen=True)
class Cgroup:
    """A cgroup v2 of this machine that perfwalk created (see :func:`new_cgroup`)."""

    path: Path

    @property
    def procs(self) -> Path:
        """The file a process writes ``0`` into to enter the cgroup."""
        return self.path / "cgroup.procs"

    def members(self) -> list[Leftover]:
        """The live processes in the cgroup (with their descendants: they stay in it)."""
        try:
            pids = [int(line) for line in self.procs.read_text().split()]
        except (OSError, ValueError):
            return []
        found = []
        for pid in pids:
            try:
                state = (_PROC / str(pid) / "stat").read_bytes().rpartition(b")")[2].split()[0]
            except (OSError, IndexError):
                continue
            if state not in (b"Z", b"X"):
                found.append(Leftover(pid, command_line(pid)))
        return found

    def end(self) -> None:
        """Kill every process in the cgroup, wait (bounded) until it is empty, remove it."""
        with contextlib.suppress(OSError):
            (self.path / "cgroup.kill").write_text("1")
        end = time.monotonic() + STOP_WAIT
        while self._populated() and time.monotonic() < end:
            time.sleep(0.01)
        with contextlib.suppress(OSError):
            self.path.rmdir()

    def _populated(self) -> bool:
        try:
            events = (self.path / "cgroup.events").read_text()
        except OSError:
            return False
        return "populated 1" in events


def new_cgroup(name: str) -> tuple[Cgroup | None, str]:
    """A new cgroup ``name`` under this process's own cgroup v2, with ``cgroup.kill``;
    else None and why not (not Linux, no cgroup v2, not writable: not root)."""
    where = _own_cgroup()
    if isinstance(where, str):
        return None, where
    path = where / name
    try:
        path.mkdir()
    except OSError as error:
        return None, f"cannot create a cgroup in {where}: {error.strerror or error}"
    if not (path / "cgroup.kill").exists():
        with contextlib.suppress(OSError):
            path.rmdir()
        return None, "the kernel has no cgroup.kill (Linux 5.14 or later)"
    return Cgroup(path), ""


def _own_cgroup() -> Path | str:
    """The directory of this process's cgroup v2, or why there is none."""
    try:
        lines = (_PROC / "self" / "cgroup").read_text().splitlines()
        mounts = (_PROC / "self" / "mountinfo").read_text().splitlines()
    except OSError:
        return "no /proc/self/cgroup (not Linux)"
    own = next((line[3:] for line in lines if line.startswith("0::")), None)
    mount = next((_mount_point(line) for line in mounts if _fstype(line) == "cgroup2"), None)
    if own is None or mount is None:
        return "no cgroup v2 hierarchy mounted"
    path = Path(mount) / own.lstrip("/")
    if not path.is_dir():
        return f"this process's cgroup {own} is not under {mount}"
    return path


def _fstype(mountinfo_line: str) -> str:
    _, sep, after = mountinfo_line.partition(" - ")
    return after.split()[0] if sep and after.split() else ""


def _mount_point(mountinfo_line: str) -> str:
    fields = mountinfo_line.split()
    # octal escapes (\040 for a blank) in mount points
    return fields[4].encode().decode("unicode_escape") if len(fields) > 4 else ""


def stale_cgroups(prefix: str) -> list[Cgroup]:
    """The cgroups of this machine's cgroup v2 hierarchy whose name starts with
    ``prefix`` (those a killed walk left), wherever they are."""
    try:
        mounts = (_PROC / "self" / "mountinfo").read_text().splitlines()
    except OSError:
        return []
    mount = next((_mount_point(line) for line in mounts if _fstype(line) == "cgroup2"), None)
    if mount is None:
        return []
    found = []
    for top, dirs, _files in os.walk(mount):
        for name in list(dirs):
            if name.startswith(prefix):
                found.append(Cgroup(Path(top) / name))
                dirs.remove(name)
    return found
