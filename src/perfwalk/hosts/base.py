"""The host protocol: run a command, copy a file in or out.

``LocalHost`` runs on this machine, ``SshHost`` over one multiplexed OpenSSH
connection, ``FakeHost`` answers from a script in unit tests.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol, runtime_checkable

from perfwalk.model import Log

#: Bytes kept of each output stream: this much of the head and as much of the tail.
DEFAULT_OUTPUT_LIMIT = 1 << 20

#: ``Completed.error`` of a command stopped because the run was interrupted (Ctrl-C).
INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class Completed:
    """What one command did.

    ``returncode`` is ``None`` when the command never ran (``error`` says why), was
    killed at its timeout (``timed_out``) or its host was lost while it ran.
    ``host_lost`` says the host is gone: with ``error``, it could not be reached and
    the command never started; without, the connection broke while the command ran
    (the output so far is kept). Negative values are signals.
    """

    argv: tuple[str, ...]
    returncode: int | None
    stdout: Log
    stderr: Log
    started: datetime
    duration: float
    timed_out: bool = False
    error: str | None = None
    host_lost: bool = False


class Host(Protocol):
    """Where commands run. Implementations never raise for a failing command:
    the failure is in the returned :class:`Completed`. They raise
    :class:`perfwalk.errors.HostError` only for misuse or a lost host in put/get.
    """

    @property
    def name(self) -> str: ...

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
        """Run ``argv`` (no shell unless argv says so) in its own process group.

        At ``timeout`` seconds the whole process group is killed and the output
        so far is kept. ``env`` is added to the inherited environment. When
        ``cancel`` is set the command is stopped the same way and ``error`` is
        :data:`INTERRUPTED`.
        """
        ...

    def put(self, local: Path, remote: str) -> None:
        """Copy the local file ``local`` to ``remote`` on the host."""
        ...

    def get(self, remote: str, local: Path) -> None:
        """Copy ``remote`` on the host to the local file ``local``."""
        ...

    def close(self) -> None:
        """Release connections; the host may not be used afterwards."""
        ...


@runtime_checkable
class Reconnecting(Host, Protocol):
    """A host reached over a connection that can be checked, dropped and opened
    again: what a reboot needs (:class:`~perfwalk.hosts.ssh.SshHost`)."""

    def alive(self) -> bool:
        """True while the connection is up."""
        ...

    def connect(self) -> None:
        """Open the connection; HostError when the host does not answer."""
        ...

    def forget(self) -> None:
        """Drop the connection; the next command connects anew."""
        ...
