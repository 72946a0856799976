"""The host protocol: run a command, copy a file in or out.

``LocalHost`` runs on this machine, ``SshHost`` (multi-host issue) over one
multiplexed OpenSSH connection, ``FakeHost`` answers from a script in unit tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from perfwalk.model import Log

#: Bytes kept of each output stream: this much of the head and as much of the tail.
DEFAULT_OUTPUT_LIMIT = 1 << 20


@dataclass(frozen=True)
class Completed:
    """What one command did.

    ``returncode`` is ``None`` when the command never ran (``error`` says why) or
    was killed at its timeout (``timed_out``). Negative values are signals.
    """

    argv: tuple[str, ...]
    returncode: int | None
    stdout: Log
    stderr: Log
    started: datetime
    duration: float
    timed_out: bool = False
    error: str | None = None


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
    ) -> Completed:
        """Run ``argv`` (no shell unless argv says so) in its own process group.

        At ``timeout`` seconds the whole process group is killed and the output
        so far is kept. ``env`` is added to the inherited environment.
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
