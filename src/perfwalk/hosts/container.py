"""A host whose commands run in a container image (an ``[[environment]] image``).

:class:`ContainerHost` wraps the host that runs the container engine (local or ssh):
each command becomes ``<engine…> --name <unique> -v P:P … -w <cwd> -e NAME … <image>
<argv>``, the paths it is given mounted at the same place, so that a build in the
image sees its worktree and a test its work directory. The values of ``env`` reach
the container through the engine's own environment (``-e NAME`` without a value),
never on its command line. A command stopped at its timeout, interrupted or whose
host was lost has its container killed and removed (``<engine> kill <name>``, then
``rm -f``): the engine's client may die before the container does.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from perfwalk.hosts.base import DEFAULT_OUTPUT_LIMIT, INTERRUPTED, Completed, Host

#: seconds allowed to remove a container left by a stopped command
REMOVE_TIMEOUT = 60.0

_numbers = itertools.count(1)


class ContainerHost:
    """The commands of ``inner`` run in ``image`` through ``engine`` (a command that
    runs one command in an image: ``podman run --rm``, ``docker run --rm``…), with
    ``mounts`` (absolute paths) mounted at the same place; files are copied on
    ``inner``."""

    def __init__(
        self, inner: Host, image: str, engine: Sequence[str], mounts: Sequence[str]
    ) -> None:
        self._inner = inner
        self.image = image
        self.engine = tuple(engine)
        self.mounts = tuple(dict.fromkeys(mounts))

    @property
    def name(self) -> str:
        return self._inner.name

    def __repr__(self) -> str:
        return f"ContainerHost({self._inner!r}, {self.image!r})"

    def command(
        self, argv: Sequence[str], name: str, env: Mapping[str, str], cwd: str | None
    ) -> list[str]:
        """The engine's command that runs ``argv`` in the image as container ``name``."""
        words = [*self.engine, "--name", name]
        inside = cwd is None or any(_within(cwd, path) for path in self.mounts)
        for path in (*self.mounts, *([] if inside or cwd is None else [cwd])):
            words += ["-v", f"{path}:{path}"]
        if cwd:
            words += ["-w", cwd]
        for variable in env:
            words += ["-e", variable]
        return [*words, self.image, *argv]

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
        name = f"perfwalk-{os.getpid()}-{next(_numbers)}"
        done = self._inner.run(
            self.command(argv, name, env or {}, cwd),
            timeout=timeout,
            env=env,
            output_limit=output_limit,
            cancel=cancel,
        )
        if done.timed_out or done.host_lost or done.error == INTERRUPTED:
            for action in ("kill", "rm -f"):  # kill: SIGKILL at once, whatever the engine
                self._inner.run([self.engine[0], *action.split(), name], timeout=REMOVE_TIMEOUT)
        return done

    def put(self, local: Path, remote: str) -> None:
        self._inner.put(local, remote)

    def get(self, remote: str, local: Path) -> None:
        self._inner.get(remote, local)

    def close(self) -> None:
        """Nothing of its own: the host it wraps is closed with its topology."""


def _within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or under it (mounted with it)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")
