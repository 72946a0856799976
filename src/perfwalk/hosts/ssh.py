"""Run commands on another machine over one multiplexed OpenSSH connection.

:class:`SshHost` uses the system ``ssh`` client, so the user's ssh_config,
ProxyJump, agents and keys just work. It opens one master connection per host
(``ControlMaster``, with a ``ControlPath`` in a directory of perfwalk's own) the
first time it is used and runs every command as a session of it (≈10 ms instead
of ≈200 ms for a fresh connection). Host keys are checked: ``BatchMode=yes``
makes an unknown or changed key an error instead of a question; a lab's own
``known_hosts`` file is given with :attr:`SshTarget.known_hosts`.

Each command runs under :data:`~perfwalk.hosts.remote_scripts.RUN_SCRIPT` in a
remote process group of its own. At its timeout perfwalk closes the session's
stdin: the remote side terminates the whole group (SIGTERM, SIGKILL after the
grace time) and the output so far is kept. If the connection breaks while a
command runs, the result says ``host_lost``; the next command tries to connect
again (bounded by ``connect_timeout``), so a host that comes back is used again.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from perfwalk.errors import HostError
from perfwalk.hosts.base import DEFAULT_OUTPUT_LIMIT, INTERRUPTED, Completed
from perfwalk.hosts.leftovers import signal_same, start_time, without_markers
from perfwalk.hosts.process import Finished, Watch, check_argv, run_process
from perfwalk.hosts.remote_scripts import quoted, remote_command, script_error
from perfwalk.model import EMPTY_LOG

#: ssh's own exit status for its errors (a lost connection among them).
SSH_ERROR = 255
#: Seconds allowed beyond the grace time for the remote side to report a timeout.
_REPORT_MARGIN = 3.0
_MASTER_PID = re.compile(r"pid=(\d+)")


@dataclass(frozen=True)
class SshTarget:
    """How to reach a host: the destination and what ssh needs besides.

    ``destination`` is anything ``ssh`` accepts (``user@host``, an alias of the
    ssh_config). ``ssh_config`` replaces the user's ``~/.ssh/config`` (``-F``);
    ``known_hosts`` is a known_hosts file checked strictly (a lab's generated
    one); ``options`` are extra ``-o Key=Value`` settings.
    """

    destination: str
    ssh_config: Path | None = None
    known_hosts: Path | None = None
    options: tuple[str, ...] = ()
    connect_timeout: float = 10.0
    alive_interval: float = 5.0
    alive_count: int = 3
    program: str = "ssh"

    def base_argv(self, control_path: Path) -> list[str]:
        """``ssh`` with every option perfwalk sets, before the destination."""
        argv = [self.program]
        if self.ssh_config is not None:
            argv += ["-F", str(self.ssh_config)]
        argv += [
            "-o",
            "BatchMode=yes",
            "-o",
            f"ConnectTimeout={max(1, round(self.connect_timeout))}",
            "-o",
            f"ServerAliveInterval={max(1, round(self.alive_interval))}",
            "-o",
            f"ServerAliveCountMax={self.alive_count}",
            "-o",
            f"ControlPath={control_path}",
        ]
        if self.known_hosts is not None:
            argv += [
                "-o",
                f"UserKnownHostsFile={self.known_hosts}",
                "-o",
                "StrictHostKeyChecking=yes",
            ]
        for option in self.options:
            argv += ["-o", option]
        return argv


class SshHost:
    """A machine reached by ssh, as a :class:`~perfwalk.hosts.base.Host`.

    ``control_dir`` holds the master connection's socket (a short path: sockets
    are limited to about 100 bytes); it must be private to this user.
    ``kill_grace``: seconds between SIGTERM and SIGKILL on the remote side;
    ``linger``: seconds to wait for the session to end once the command is done.
    """

    def __init__(
        self,
        name: str,
        target: SshTarget,
        control_dir: Path,
        *,
        linger: float = 1.0,
        kill_grace: float = 2.0,
    ) -> None:
        self._name = name
        self.target = target
        self.control_path = Path(control_dir) / f"{_safe(name)}.sock"
        self.log_path = Path(control_dir) / f"{_safe(name)}.log"
        self.linger = linger
        self.kill_grace = kill_grace
        self.master_pid: int | None = None
        self._master_start = ""  # the master's start time: its PID may be reused once it ends
        self._lock = threading.Lock()
        self._closed = False

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"SshHost({self._name!r}, {self.target.destination!r})"

    # -- the master connection ------------------------------------------------------

    def connect(self) -> None:
        """Open the master connection unless it is up; HostError when ssh cannot."""
        with self._lock:
            self._check_open()
            if self.master_pid is not None and start_time(self.master_pid) == self._master_start:
                return
            self._open_master()

    def _open_master(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.control_path.unlink()  # a stale socket of a dead master
        argv = [
            *self.target.base_argv(self.control_path),
            "-o",
            "ControlMaster=yes",
            "-o",
            "ControlPersist=no",
            "-E",
            str(self.log_path),
            "-N",
            "-f",
            self.target.destination,
        ]
        bound = self.target.connect_timeout + 5.0
        with self.log_path.open("wb") as log_file:  # ssh -E and a ProxyCommand's errors
            code = _run_bounded(argv, bound, log_file)
        log = self.log_path.read_text(errors="replace").strip()
        if code != 0:
            raise HostError(
                f"host {self._name}: cannot connect to {self.target.destination!r} "
                f"({_last_line(log) or _exit_text(code, bound)})",
                hint=connect_hint(log, self.target),
            )
        self.master_pid = self._check_master()
        self._master_start = "" if self.master_pid is None else start_time(self.master_pid)
        if self.master_pid is None:
            raise HostError(
                f"host {self._name}: the ssh master connection to "
                f"{self.target.destination!r} ended at once ({_last_line(log) or 'no message'})",
                hint=connect_hint(log, self.target),
            )

    def alive(self) -> bool:
        """True while the master connection is up."""
        return self._check_master() is not None

    def _check_master(self) -> int | None:
        """The master's PID (``ssh -O check``), or None when there is none."""
        argv = [*self.target.base_argv(self.control_path), "-O", "check", self.target.destination]
        try:
            done = subprocess.run(
                argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=10.0, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        found = _MASTER_PID.search(done.stderr.decode(errors="replace"))
        return int(found.group(1)) if done.returncode == 0 and found else None

    def close(self) -> None:
        """End the master connection (``ssh -O exit``, else by its PID)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._stop_master()

    def _stop_master(self) -> None:
        pid, self.master_pid = self.master_pid, None
        if pid is None:
            return
        argv = [*self.target.base_argv(self.control_path), "-O", "exit", self.target.destination]
        try:
            done = subprocess.run(
                argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=10.0, check=False
            )
            exited = done.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            exited = False
        if not exited:  # the master did not answer: end it by its PID, if it is still it
            _end_pid(pid, self._master_start)
        with contextlib.suppress(FileNotFoundError):
            self.control_path.unlink()

    def forget(self) -> None:
        """Drop the master connection (after a reboot): the next command connects anew."""
        with self._lock:
            self._stop_master()

    # -- commands -------------------------------------------------------------------

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        cancel: threading.Event | None = None,
    ) -> Completed:
        command = check_argv(self._name, argv)
        try:
            self.connect()
        except HostError as error:
            return _unreachable(command, error)
        remote = remote_command(command, grace=self.kill_grace, cwd=cwd, env=without_markers(env))
        done = run_process(
            [*self._client_argv(), remote],
            host=self._name,
            timeout=timeout,
            env=None,
            cwd=None,
            output_limit=output_limit,
            linger=self.linger,
            kill_grace=self.kill_grace,
            stop=self._stop_remote,
            cancel=cancel,
            keep_stdin=True,
            shown=command,
        )
        return self._completed(command, done)

    def _client_argv(self) -> list[str]:
        """``ssh`` as a client of the master connection, up to the destination."""
        base = self.target.base_argv(self.control_path)
        return [*base, "-o", "ControlMaster=no", "-T", self.target.destination]

    def _stop_remote(self, watch: Watch) -> None:
        """At the timeout: end of file to the remote watcher, which ends the group."""
        watch.close_stdin()
        watch.pump(self.kill_grace + self.linger + _REPORT_MARGIN)
        if not watch.done:  # no answer: the host or the connection is gone
            watch.terminate(1.0, 0.1)

    def _completed(self, command: tuple[str, ...], done: Finished) -> Completed:
        stderr = done.stderr
        returncode = done.returncode
        error = INTERRUPTED if done.cancelled else done.error
        lost = False
        complaint = script_error(returncode, stderr.text())
        if complaint is not None:
            error, returncode = complaint, None
        elif error is None and (returncode == SSH_ERROR or done.timed_out) and not self.alive():
            lost, returncode = True, None
            self.master_pid = None
        return Completed(
            argv=command,
            returncode=returncode,
            stdout=done.stdout,
            stderr=stderr,
            started=done.started,
            duration=done.duration,
            timed_out=done.timed_out,
            error=error,
            host_lost=lost and not done.timed_out,
        )

    # -- files ----------------------------------------------------------------------

    def put(self, local: Path, remote: str, *, timeout: float = 600.0) -> None:
        """Copy ``local`` to ``remote`` on the host (through the master connection)."""
        with _opened(self._name, Path(local), "rb", f"put {local} -> {remote}") as source:
            script = f"cat > {quoted([remote])}"
            self._transfer(script, stdin=source, stdout=None, what=f"put {remote}", timeout=timeout)

    def get(self, remote: str, local: Path, *, timeout: float = 600.0) -> None:
        """Copy ``remote`` on the host to the local file ``local``."""
        with _opened(self._name, Path(local), "wb", f"get {remote} -> {local}") as target:
            script = f"cat -- {quoted([remote])}"
            self._transfer(script, stdin=None, stdout=target, what=f"get {remote}", timeout=timeout)

    def _transfer(
        self,
        script: str,
        *,
        stdin: IO[bytes] | None,
        stdout: IO[bytes] | None,
        what: str,
        timeout: float,
    ) -> None:
        self.connect()
        argv = [*self._client_argv(), quoted(["sh", "-c", script])]
        with tempfile.TemporaryFile() as errors:
            proc = subprocess.Popen(
                argv,
                stdin=stdin if stdin is not None else subprocess.DEVNULL,
                stdout=stdout if stdout is not None else subprocess.DEVNULL,
                stderr=errors,
                start_new_session=True,
            )
            try:
                code: int | None = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                code = None
            errors.seek(0)
            message = errors.read().decode(errors="replace").strip()
        if code != 0:
            why = message or (f"timed out after {timeout:g} s" if code is None else f"exit {code}")
            raise HostError(
                f"host {self._name}: {what} failed: {_last_line(why)}",
                hint="check the path on the host and that the host is reachable",
            )

    def _check_open(self) -> None:
        if self._closed:
            raise HostError(f"host {self._name}: used after close()")


@contextlib.contextmanager
def _opened(host: str, path: Path, mode: str, what: str) -> Iterator[IO[bytes]]:
    """``path`` opened in binary ``mode``; a HostError naming it when it cannot be."""
    try:
        handle: IO[bytes] = path.open(mode)
    except OSError as exc:
        raise HostError(
            f"host {host}: {what} failed: {exc.strerror}: {path}",
            hint="check that the local file exists and its directory is writable",
        ) from exc
    with handle:
        yield handle


def connect_hint(log: str, target: SshTarget) -> str:
    """What to do about a failed connection, from ssh's own words."""
    where = f"`ssh {target.destination} true` must work from this machine without a prompt"
    if target.ssh_config is not None:
        where = f"`ssh -F {target.ssh_config} {target.destination} true` must work without a prompt"
    if "REMOTE HOST IDENTIFICATION HAS CHANGED" in log:
        return (
            "the host's key changed: if that is expected (reinstalled host), remove the old "
            "key with ssh-keygen -R and add the new one after checking it"
        )
    if "Host key verification failed" in log or "No ED25519 host key is known" in log:
        return (
            "the host's key is not known: add it to known_hosts (ssh-keyscan, then check its "
            "fingerprint), or name a lab's known_hosts file with hosts.<name>.known_hosts"
        )
    if "Permission denied" in log:
        return (
            "perfwalk runs ssh with BatchMode=yes: use a key without a passphrase or an "
            f"ssh-agent; {where}"
        )
    return where


def _run_bounded(argv: list[str], bound: float, log: IO[bytes]) -> int | None:
    """Run ``argv`` with its stderr to ``log``, at most ``bound`` seconds."""
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
        )
    except OSError as exc:
        raise HostError(
            f"cannot run {argv[0]!r}: {exc.strerror}",
            hint="install the OpenSSH client (Debian: apt-get install openssh-client)",
        ) from exc
    try:
        return proc.wait(timeout=bound)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return None


def _pid_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie that nobody reaped yet does not count)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] not in (b"Z", b"X")
    except FileNotFoundError:
        return False
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _end_pid(pid: int, started: str, grace: float = 2.0) -> None:
    """SIGTERM ``pid`` if it still runs and is the process that started at ``started``
    (never a process that got the PID since), SIGKILL after ``grace`` seconds."""
    if not signal_same(pid, started, signal.SIGTERM):
        return
    end = time.monotonic() + grace
    while time.monotonic() < end:
        if not _pid_alive(pid):
            return
        time.sleep(0.02)
    signal_same(pid, started, signal.SIGKILL)


def _unreachable(command: tuple[str, ...], error: HostError) -> Completed:
    """The result of a command whose host cannot be reached: never started, host lost."""
    why = error.message if not error.hint else f"{error.message} ({error.hint})"
    return Completed(
        argv=command,
        returncode=None,
        stdout=EMPTY_LOG,
        stderr=EMPTY_LOG,
        started=datetime.now(UTC),
        duration=0.0,
        error=why,
        host_lost=True,
    )


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def _exit_text(code: int | None, bound: float) -> str:
    return f"no answer within {bound:g} s" if code is None else f"ssh exit {code}"


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:40]
