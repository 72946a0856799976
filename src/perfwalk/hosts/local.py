"""Run commands on this machine, each in its own process group.

:class:`LocalHost` starts the command with ``start_new_session=True`` (its process
group id is its PID), reads stdout and stderr together into bounded captures and
watches the process through a pidfd (Linux) or by polling (elsewhere):

- the command exits and its pipes close: the normal case, nothing is signalled;
  background processes that redirected their output (servers started in a
  startup phase) keep running;
- the command exits but something it left behind keeps the pipes open: after
  ``linger`` seconds the process group is terminated and the run finishes;
- the timeout expires: the group gets SIGTERM, then SIGKILL after ``kill_grace``
  seconds; ``timed_out`` is set and the output read so far is kept.

The group is only ever signalled while the command's PID is still unreaped, so
the group id cannot belong to another process.
"""

from __future__ import annotations

import contextlib
import math
import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from perfwalk.errors import HostError
from perfwalk.hosts.base import DEFAULT_OUTPUT_LIMIT, Completed
from perfwalk.hosts.capture import Capture
from perfwalk.model import EMPTY_LOG

_CHUNK = 1 << 16
_POLL_MIN = 0.001
_POLL_MAX = 0.05
_Selector: type[selectors.BaseSelector] = getattr(
    selectors, "PollSelector", selectors.DefaultSelector
)


class LocalHost:
    """This machine, as a :class:`~perfwalk.hosts.base.Host`.

    ``linger``: seconds to wait for the pipes to close once the command exited.
    ``kill_grace``: seconds between SIGTERM and SIGKILL to the process group.
    """

    def __init__(
        self, name: str = "local", *, linger: float = 1.0, kill_grace: float = 2.0
    ) -> None:
        self._name = name
        self.linger = linger
        self.kill_grace = kill_grace

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"LocalHost({self._name!r})"

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
    ) -> Completed:
        command = _check_argv(self._name, argv)
        if output_limit < 0:
            raise HostError(f"host {self._name}: output_limit must be >= 0, not {output_limit}")
        started = datetime.now(UTC)
        t0 = time.monotonic()
        full_env = None if env is None else {**os.environ, **env}
        try:
            proc = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=full_env,
                cwd=cwd,
            )
        except (OSError, ValueError) as exc:
            return Completed(
                argv=command,
                returncode=None,
                stdout=EMPTY_LOG,
                stderr=EMPTY_LOG,
                started=started,
                duration=time.monotonic() - t0,
                error=_exec_error(command, cwd, exc),
            )
        out, err = Capture(output_limit), Capture(output_limit)
        deadline = None if timeout is None else t0 + timeout
        with _Watch(proc, out, err) as watch:
            timed_out = not self._wait(watch, deadline)
            returncode = watch.reap(self.kill_grace)
        duration = time.monotonic() - t0
        return Completed(
            argv=command,
            returncode=None if timed_out else returncode,
            stdout=out.to_log(),
            stderr=err.to_log(),
            started=started,
            duration=duration,
            timed_out=timed_out,
        )

    def _wait(self, watch: _Watch, deadline: float | None) -> bool:
        """Pump until the command is done; False when the timeout expired."""
        linger_until: float | None = None
        while not watch.done:
            now = time.monotonic()
            if watch.exited and linger_until is None:
                linger_until = now + self.linger
            if deadline is not None and now >= deadline:
                watch.terminate(self.kill_grace, self.linger)
                return False
            if linger_until is not None and now >= linger_until:
                # Exited, but a leftover process holds the pipes: end it.
                watch.terminate(self.kill_grace, self.linger)
                return True
            until = min(
                math.inf if deadline is None else deadline,
                math.inf if linger_until is None else linger_until,
            )
            watch.step(None if until == math.inf else until - now)
        return True

    def put(self, local: Path, remote: str) -> None:
        _copy(self._name, Path(local), Path(remote), what="put")

    def get(self, remote: str, local: Path) -> None:
        _copy(self._name, Path(remote), Path(local), what="get")

    def close(self) -> None:
        """Nothing to release for this machine."""


class _Watch:
    """The output pipes and the exit of one started command, multiplexed."""

    def __init__(self, proc: subprocess.Popen[bytes], out: Capture, err: Capture) -> None:
        self.proc = proc
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

    def __enter__(self) -> _Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self._sel.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
        for pipe in self._pipes:
            pipe.close()
        if self.proc.returncode is None:
            # Only reached on an unexpected error: never leave the group behind.
            self.signal_group(signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=1.0)

    @property
    def done(self) -> bool:
        return self.exited and self._open == 0

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
        # The unreaped command keeps its PID, hence the group id, from being reused.
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
        """The command's exit status, once it has exited (None if it never does)."""
        if not self.exited:
            self.pump(grace, until_exit=True)
        try:
            return self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            return None


def _check_argv(host: str, argv: Sequence[str]) -> tuple[str, ...]:
    if isinstance(argv, str | bytes):
        raise HostError(
            f"host {host}: command must be a sequence of words, not a string: {argv!r}",
            hint="pass ['sh', '-c', '...'] to use a shell",
        )
    command = tuple(argv)
    if not command:
        raise HostError(f"host {host}: empty command")
    return command


def _exec_error(command: tuple[str, ...], cwd: str | None, exc: Exception) -> str:
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
    while _group_alive(pgid) and time.monotonic() < end:
        time.sleep(pause)
        pause = min(pause * 2, _POLL_MAX)


def _group_alive(pgid: int) -> bool:
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


def _copy(host: str, source: Path, target: Path, *, what: str) -> None:
    try:
        shutil.copy2(source, target)
    except OSError as exc:
        culprit = exc.filename if exc.filename is not None else source
        raise HostError(
            f"host {host}: {what} {source} -> {target} failed: {exc.strerror or exc}: {culprit}",
            hint="check that the source file exists and the target directory is writable",
        ) from exc
