"""A user's file (of numbers, a patch, the configuration), read or checked: a missing
file, a folder, a device, a FIFO or an unreadable file is a usage error that names it."""

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


def read_user_file(path: Path, what: str, limit: int, hint: str, *, pipes: bool = False) -> bytes:
    """The bytes of the regular file ``path``, named ``what`` in errors (``--patch
    fix.diff``; "" = the caller names it); a UsageError with ``hint`` that says what is
    wrong with the path: it does not exist, is a directory, is not a regular file (a FIFO,
    a device such as /dev/zero, a socket: refused, never read), cannot be read, or holds
    more than ``limit`` bytes. Opened without blocking: a FIFO never holds the command.

    With ``pipes``, a FIFO or a pipe (``-c <(envsubst < perfwalk.toml.in)``) is read as
    a stream instead, as far as ``limit``: the command waits for its writer, as any
    reader of a pipe does."""
    return _read(path, what, limit, hint, limit + 1, pipes=pipes)


def check_user_file(path: Path, what: str, limit: int, hint: str) -> None:
    """Refuse ``path`` as :func:`read_user_file` would, reading only its first byte (a
    file another program reads later: a patch named by the configuration)."""
    _read(path, what, limit, hint, 1)


def _read(path: Path, what: str, limit: int, hint: str, most: int, *, pipes: bool = False) -> bytes:
    """At most ``most`` bytes of ``path``, a regular file of at most ``limit`` bytes
    (``limit + 1`` reads it whole and tells a file that grew while read); with
    ``pipes``, a FIFO too, opened and read blocking."""

    def refused(problem: str) -> UsageError:
        told = f"{what}{problem}" if what else problem.removeprefix(":").lstrip()
        return UsageError(told, hint=hint)

    blocking = pipes and _is_fifo(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | (0 if blocking else os.O_NONBLOCK))
    except FileNotFoundError:
        raise refused(": no such file") from None
    except OSError as error:
        raise refused(f": cannot open it: {error.strerror}") from None
    try:
        found = os.fstat(fd)
        kind = "" if blocking and stat.S_ISFIFO(found.st_mode) else _not_regular(found.st_mode)
        if kind:
            raise refused(f" is {kind}, not a regular file")
        if found.st_size > limit:
            raise refused(f" holds {found.st_size} bytes, more than {limit}")
        chunks = []
        read = 0
        while read < most:
            chunk = os.read(fd, min(1 << 20, most - read))
            if not chunk:
                break
            chunks.append(chunk)
            read += len(chunk)
    except OSError as error:
        raise refused(f": cannot read it: {error.strerror}") from None
    finally:
        os.close(fd)
    if read > limit:  # grew while read
        raise refused(f" holds more than {limit} bytes")
    return b"".join(chunks)


def _is_fifo(path: Path) -> bool:
    """Whether ``path`` is a FIFO or a pipe (``/dev/fd/63``), asked without opening it."""
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:  # told when it is opened
        return False


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
