"""One local process in its own process group, watched to its end with bounded output.

Both hosts start processes here: :class:`~perfwalk.hosts.local.LocalHost` the
command itself, :class:`~perfwalk.hosts.ssh.SshHost` the ``ssh`` client that runs
it remotely. :func:`run_process` starts ``argv`` with ``start_new_session=True``
(its process group id is its PID), reads stdout and stderr together into bounded
captures and watches the exit through a pidfd (Linux) or by polling (elsewhere):

- the process exits and its pipes close: the normal case, nothing is signalled;
- the process exits but something it left behind keeps the pipes open: after
  ``linger`` seconds the process group is terminated and the run finishes;
- the deadline passes, or ``cancel`` is set: ``stop`` ends the process (by default
  SIGTERM to the group, SIGKILL after ``kill_grace``); the output read so far is kept.

With ``cgroup`` (the ``cgroup.procs`` file of a cgroup v2), the process enters that
cgroup before it runs ``argv`` (a ``sh`` writes its own PID there, then execs
``argv``), so everything it starts stays in it, ``setsid`` or not; when it cannot
enter, it runs all the same.

The group is only ever signalled while the process's PID is still unreaped, so
the group id cannot belong to another process.
"""

from __future__ import annotations

import contextlib
import math
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO

from perfwalk.errors import HostError
from perfwalk.hosts.capture import Capture
from perfwalk.hosts.output_tap import Tap, current_tap
from perfwalk.interrupts import shielded
from perfwalk.model import EMPTY_LOG, Log

_CHUNK = 1 << 16
_POLL_MIN = 0.001
_POLL_MAX = 0.05
#: How often a run with a ``cancel`` event looks at it.
CANCEL_POLL = 0.05
_Selector: type[selectors.BaseSelector] = getattr(
    selectors, "PollSelector", selectors.DefaultSelector
)


#: ``sh -c ENTER <cgroup.procs> argv…``: enter the cgroup (quietly, if it can), run argv.
_ENTER_CGROUP = ("sh", "-c", '{ echo 0 > "$0"; } 2>/dev/null; exec "$@"')


@dataclass(frozen=True)
class Finished:
    """What :func:`run_process` saw: the exit, the output, and how it ended."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: Log
    stderr: Log
    started: datetime
    duration: float
    timed_out: bool = False
    cancelled: bool = False
    error: str | None = None


#: How a run ends a process at its deadline (or when cancelled).
Stop = Callable[["Watch"], None]


def terminate_group(grace: float, linger: float) -> Stop:
    """The default stop: SIGTERM to the group, SIGKILL after ``grace`` seconds."""
    return lambda watch: watch.terminate(grace, linger)


def run_process(
    argv: Sequence[str],
    *,
    host: str,
    timeout: float | None,
    env: Mapping[str, str] | None,
    cwd: str | None,
    output_limit: int,
    linger: float,
    kill_grace: float,
    stop: Stop | None = None,
    cancel: threading.Event | None = None,
    keep_stdin: bool = False,
    cgroup: str | None = None,
    shown: Sequence[str] | None = None,
) -> Finished:
    """Run ``argv`` to its end; see the module's documentation.

    ``keep_stdin``: the process gets a pipe as its stdin, kept open until it ends
    (``ssh`` forwards its end-of-file to the remote side, which ``stop`` may use).
    The tap in place (:mod:`perfwalk.hosts.output_tap`) is told the command
    (``shown``, else ``argv``), its output as it comes, and its end.
    """
    command = check_argv(host, argv)
    if output_limit < 0:
        raise HostError(f"host {host}: output_limit must be >= 0, not {output_limit}")
    started = datetime.now(UTC)
    t0 = time.monotonic()
    full_env = None if env is None else {**os.environ, **env}
    started_argv = command if cgroup is None else (*_ENTER_CGROUP, cgroup, *command)
    try:
        proc = subprocess.Popen(
            started_argv,
            stdin=subprocess.PIPE if keep_stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=full_env,
            cwd=cwd,
        )
    except (OSError, ValueError) as exc:
        return Finished(
            argv=command,
            returncode=None,
            stdout=EMPTY_LOG,
            stderr=EMPTY_LOG,
            started=started,
            duration=time.monotonic() - t0,
            error=exec_error(command, cwd, exc),
        )
    out, err = Capture(output_limit), Capture(output_limit)
    deadline = None if timeout is None else t0 + timeout
    ending = stop or terminate_group(kill_grace, linger)
    tap = current_tap()
    if tap is not None:
        tap.begin(host, command if shown is None else tuple(shown))
    try:
        with Watch(proc, out, err, _Told(tap, host) if tap is not None else None) as watch:
            how = _wait(
                watch, deadline, linger=linger, grace=kill_grace, stop=ending, cancel=cancel
            )
            returncode = watch.reap(kill_grace)
    finally:
        if tap is not None:
            tap.end(host)
    stopped = how != "done"
    return Finished(
        argv=command,
        returncode=None if stopped else returncode,
        stdout=out.to_log(),
        stderr=err.to_log(),
        started=started,
        duration=time.monotonic() - t0,
        timed_out=how == "timeout",
        cancelled=how == "cancel",
    )


def _wait(
    watch: Watch,
    deadline: float | None,
    *,
    linger: float,
    grace: float,
    stop: Stop,
    cancel: threading.Event | None,
) -> str:
    """Pump until the process is done: "done", "timeout" or "cancel"."""
    linger_until: float | None = None
    while not watch.done:
        now = time.monotonic()
        if watch.exited and linger_until is None:
            linger_until = now + linger
        if cancel is not None and cancel.is_set():
            stop(watch)
            return "cancel"
        if deadline is not None and now >= deadline:
            stop(watch)
            return "timeout"
        if linger_until is not None and now >= linger_until:
            # Exited, but a leftover process holds the pipes: end it.
            watch.terminate(grace, linger)
            return "done"
        until = min(
            math.inf if deadline is None else deadline,
            math.inf if linger_until is None else linger_until,
            math.inf if cancel is None else now + CANCEL_POLL,
        )
        watch.step(None if until == math.inf else until - now)
    return "done"


@dataclass(frozen=True)
class _Told:
    """A tap and the host whose output it is told."""

    tap: Tap
    host: str

    def __call__(self, chunk: bytes) -> None:
        self.tap.output(self.host, chunk)


class Watch:
    """The output pipes and the exit of one started process, multiplexed; each chunk
    read is also given to ``told``, when there is one."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        out: Capture,
        err: Capture,
        told: Callable[[bytes], None] | None = None,
    ) -> None:
        self.proc = proc
        self._told = told
        self.exited = False
        self._pipes: list[IO[bytes]] = [p for p in (proc.stdout, proc.stderr) if p is not None]
        self._open = len(self._pipes)
        self._sel = _Selector()
        for pipe, capture in zip(self._pipes, (out, err), strict=True):
            self._sel.register(pipe.fileno(), selectors.EVENT_READ, capture)
        self._pidfd = _pidfd_open(proc.pid)
        if self._pidfd is not None:
            self._sel.register(self._pidfd, selectors.EVENT_READ, None)
        self._poll = _POLL_MIN

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        with shielded():  # a signal landing here must not leave the group running
            self._close()

    def _close(self) -> None:
        self._sel.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
        for pipe in self._pipes:
            pipe.close()
        self.close_stdin()
        if self.proc.returncode is None:
            # Only reached on an unexpected error (or Ctrl-C): never leave the group behind.
            self.signal_group(signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=1.0)

    @property
    def done(self) -> bool:
        return self.exited and self._open == 0

    def close_stdin(self) -> None:
        """Close the process's stdin pipe, if it has one."""
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()

    def step(self, wait: float | None) -> None:
        """Wait up to ``wait`` seconds for output or the exit, and take it."""
        polling = self._pidfd is None and not self.exited
        if polling:
            wait = self._poll if wait is None else min(wait, self._poll)
            self._poll = min(self._poll * 2, _POLL_MAX)
        if self._sel.get_map():
            for key, _ in self._sel.select(wait):
                if key.data is None:
                    self.exited = True
                    self._sel.unregister(key.fileobj)
                    continue
                data = os.read(key.fd, _CHUNK)
                if data:
                    key.data.feed(data)
                    if self._told is not None:
                        self._told(data)
                    self._poll = _POLL_MIN
                else:
                    self._sel.unregister(key.fileobj)
                    self._open -= 1
        elif wait is not None and wait > 0:
            time.sleep(wait)
        if polling:
            self.exited = _has_exited(self.proc.pid)

    def pump(self, seconds: float, *, until_exit: bool = False) -> None:
        """Keep reading for up to ``seconds``; stop early once done (or exited)."""
        end = time.monotonic() + seconds
        while not (self.exited if until_exit else self.done):
            left = end - time.monotonic()
            if left <= 0:
                return
            self.step(left)

    def signal_group(self, sig: signal.Signals) -> None:
        # The unreaped process keeps its PID, hence the group id, from being reused.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)

    def terminate(self, grace: float, linger: float) -> None:
        """SIGTERM the group, SIGKILL it after ``grace``, read what is left."""
        self.signal_group(signal.SIGTERM)
        self.pump(grace)
        self.signal_group(signal.SIGKILL)
        # A process that left the group (setsid) may still hold a pipe: bounded wait.
        self.pump(max(linger, 0.1))
        # SIGKILL is asynchronous: let the members finish dying (freeing a large
        # memory can take a while) so the next command does not share the machine.
        _await_group_exit(self.proc.pid, grace)

    def reap(self, grace: float) -> int | None:
        """The exit status, once the process has exited (None if it never does)."""
        if not self.exited:
            self.pump(grace, until_exit=True)
        try:
            return self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            return None


def check_argv(host: str, argv: Sequence[str]) -> tuple[str, ...]:
    """``argv`` as a tuple; a string or an empty command is a HostError."""
    if isinstance(argv, str | bytes):
        raise HostError(
            f"host {host}: command must be a sequence of words, not a string: {argv!r}",
            hint="pass ['sh', '-c', '...'] to use a shell",
        )
    command = tuple(argv)
    if not command:
        raise HostError(f"host {host}: empty command")
    return command


def exec_error(command: tuple[str, ...], cwd: str | None, exc: Exception) -> str:
    """Why ``command`` could not be started, in words."""
    if isinstance(exc, OSError):
        reason = exc.strerror or str(exc)
        name = exc.filename if exc.filename is not None else command[0]
        if cwd is not None and str(name) == str(cwd):
            return f"cannot run {command[0]!r} in directory {cwd!r}: {reason}"
        return f"cannot run {command[0]!r}: {reason}: {name}"
    return f"cannot run {command[0]!r}: {exc}"


def _pidfd_open(pid: int) -> int | None:
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        fd: int = opener(pid)
    except OSError:  # kernel too old, or a sandbox forbids it: fall back to polling
        return None
    return fd


def _has_exited(pid: int) -> bool:
    """True once ``pid`` has exited; does not reap it (WNOWAIT)."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _await_group_exit(pgid: int, bound: float) -> None:
    """Wait up to ``bound`` seconds until no live process is in group ``pgid`` (Linux)."""
    end = time.monotonic() + bound
    pause = _POLL_MIN
    while group_alive(pgid) and time.monotonic() < end:
        time.sleep(pause)
        pause = min(pause * 2, _POLL_MAX)


def group_alive(pgid: int) -> bool:
    """True while a process of group ``pgid`` is not yet a zombie; False without /proc."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return False
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:
            continue
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False
