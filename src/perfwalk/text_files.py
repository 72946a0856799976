"""A user's file (of numbers, a patch), read: a missing file, a folder or an unreadable
file is a usage error that names it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from perfwalk.errors import UsageError


def read_user_text(path: Path) -> str:
    """The text of ``path`` (UTF-8; a byte that is not is replaced, never fatal)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file", hint="check the path") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a file of numbers") from None
    except OSError as error:
        raise UsageError(f"{path}: cannot read it: {error.strerror}") from None


def read_user_file(path: Path, what: str, limit: int, hint: str) -> bytes:
    """The bytes of the regular file ``path``, named ``what`` in errors (``--patch
    fix.diff``); a UsageError with ``hint`` that says what is wrong with the path: it
    does not exist, is a directory, is not a regular file (a FIFO, a device such as
    /dev/zero, a socket: refused, never read), cannot be read, or holds more than
    ``limit`` bytes. Opened without blocking: a FIFO never holds the command."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise UsageError(f"{what}: no such file", hint=hint) from None
    except OSError as error:
        raise UsageError(f"{what}: cannot open it: {error.strerror}", hint=hint) from None
    try:
        found = os.fstat(fd)
        kind = _not_regular(found.st_mode)
        if kind:
            raise UsageError(f"{what} is {kind}, not a regular file", hint=hint)
        if found.st_size > limit:
            raise UsageError(f"{what} holds {found.st_size} bytes, more than {limit}", hint=hint)
        chunks = []
        read = 0
        while read <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - read))
            if not chunk:
                break
            chunks.append(chunk)
            read += len(chunk)
    except OSError as error:
        raise UsageError(f"{what}: cannot read it: {error.strerror}", hint=hint) from None
    finally:
        os.close(fd)
    if read > limit:  # grew while read
        raise UsageError(f"{what} holds more than {limit} bytes", hint=hint)
    return b"".join(chunks)


def _not_regular(mode: int) -> str:
    """What a file of ``mode`` is when it is not a regular file ("" when it is)."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (a named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    found = next((kind for test, kind in kinds if test(mode)), "")
    return found if found or stat.S_ISREG(mode) else "of an unknown kind"
