"""A lock on a walk's worktrees, held on disk for the life of the walk or drill.

Leases (in the store) keep two runs of one store off the same hosts; they cannot
keep a run of *another* store (another config in the same folder, a copy of the
store) out of a worktree directory. This lock can: ``<root>.lock`` beside the
worktrees' directory, ``flock``-ed by the process that walks in them. Any other
process that wants the same worktrees fails at once with a GitError naming the
holder (its process id, machine, start and purpose), which the lock file records.
A process that dies releases its lock with it: a lock is never stale.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from perfwalk.errors import GitError


def lock_path(root: Path) -> Path:
    """The lock file of the worktrees under ``root``: ``<root>.lock``, beside it."""
    return root.with_name(root.name + ".lock")


@contextlib.contextmanager
def held(root: Path, purpose: str) -> Iterator[Path]:
    """Hold the lock on the worktrees under ``root`` for the ``with`` block.

    Raises GitError naming the holder when another process holds it. The lock file
    is removed when the block ends.
    """
    path = lock_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _acquire(path, root)
    try:
        text = (
            f"pid {os.getpid()} on {socket.gethostname()} since"
            f" {datetime.now(UTC).isoformat(timespec='seconds')}: {purpose}\n"
        )
        os.ftruncate(fd, 0)
        os.pwrite(fd, text.encode("utf-8", errors="replace"), 0)
        yield path
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # before unlocking: a waiting process then retries on a new file
        os.close(fd)


def _acquire(path: Path, root: Path) -> int:
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as error:
            raise GitError(
                f"cannot lock the worktrees {root}: {path}: {error.strerror or error}",
                hint=f"check that {path.parent} is a writable directory (and {path} no link)",
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise GitError(
                f"the worktrees {root} are in use by another process: {holder}",
                hint="wait for it to end or stop it; a walk of another configuration or store"
                " uses worktrees of its own",
            ) from None
        except BaseException:
            os.close(fd)
            raise
        if _same_file(fd, path):
            return fd
        os.close(fd)  # its holder removed it between our open and our lock: again


def _same_file(fd: int, path: Path) -> bool:
    try:
        on_disk = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    ours = os.fstat(fd)
    return (ours.st_dev, ours.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 4096, 0).decode("utf-8", errors="replace").strip()
    except OSError:
        text = ""
    return text.splitlines()[0] if text else "(it has not said who it is yet)"
