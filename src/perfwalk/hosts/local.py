"""Run commands on this machine, each in its own process group.

:class:`LocalHost` starts the command through :func:`perfwalk.hosts.process.run_process`:
its own process group, stdout and stderr read into bounded captures, the exit
watched through a pidfd (Linux) or by polling (elsewhere):

- the command exits and its pipes close: the normal case, nothing is signalled;
  background processes that redirected their output (servers started in a
  startup phase) keep running;
- the command exits but something it left behind keeps the pipes open: after
  ``linger`` seconds the process group is terminated and the run finishes;
- the timeout expires (or ``cancel`` is set): the group gets SIGTERM, then SIGKILL
  after ``kill_grace`` seconds; ``timed_out`` is set and the output so far is kept.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from perfwalk.errors import HostError
from perfwalk.hosts.base import DEFAULT_OUTPUT_LIMIT, INTERRUPTED, Completed
from perfwalk.hosts.process import run_process


class LocalHost:
    """This machine, as a :class:`~perfwalk.hosts.base.Host`.

    ``linger``: seconds to wait for the pipes to close once the command exited.
    ``kill_grace``: seconds between SIGTERM and SIGKILL to the process group.
    ``cgroup``: while set (the ``cgroup.procs`` file of a cgroup v2), every command
    starts inside that cgroup (see :mod:`perfwalk.hosts.leftovers`).
    """

    def __init__(
        self, name: str = "local", *, linger: float = 1.0, kill_grace: float = 2.0
    ) -> None:
        self._name = name
        self.linger = linger
        self.kill_grace = kill_grace
        self.cgroup: str | None = None

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
        cancel: threading.Event | None = None,
    ) -> Completed:
        done = run_process(
            argv,
            host=self._name,
            timeout=timeout,
            env=env,
            cwd=cwd,
            output_limit=output_limit,
            linger=self.linger,
            kill_grace=self.kill_grace,
            cancel=cancel,
            cgroup=self.cgroup,
        )
        return Completed(
            argv=done.argv,
            returncode=done.returncode,
            stdout=done.stdout,
            stderr=done.stderr,
            started=done.started,
            duration=done.duration,
            timed_out=done.timed_out,
            error=INTERRUPTED if done.cancelled else done.error,
        )

    def put(self, local: Path, remote: str) -> None:
        _copy(self._name, Path(local), Path(remote), what="put")

    def get(self, remote: str, local: Path) -> None:
        _copy(self._name, Path(remote), Path(local), what="get")

    def close(self) -> None:
        """Nothing to release for this machine."""


def _copy(host: str, source: Path, target: Path, *, what: str) -> None:
    try:
        shutil.copy2(source, target)
    except OSError as exc:
        culprit = exc.filename if exc.filename is not None else source
        raise HostError(
            f"host {host}: {what} {source} -> {target} failed: {exc.strerror or exc}: {culprit}",
            hint="check that the source file exists and the target directory is writable",
        ) from exc
