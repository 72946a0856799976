"""A user's file of numbers, read as text: a missing file, a folder or an unreadable
file is a usage error that names it."""

from __future__ import annotations

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
