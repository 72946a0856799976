"""The files of a published site, written safely.

A file is written to a temporary file of a unique name in its folder, created
exclusively (``O_EXCL``, ``O_NOFOLLOW``), then renamed over the old one: a reader
sees the old file or the new one, never half of one, and two publishers of the same
site never write into each other's temporary file. A temporary file's name carries
its writer (PID and start time): one left by a killed publish is removed by the next
(:meth:`SiteFolder.remove_stale_temporaries`), one a live publisher is writing is
not. Every folder below the site's
root is opened without following a symbolic link (``openat`` with ``O_NOFOLLOW``),
so a link planted in the site (``series-1 -> /etc``) makes the publish fail with an
error naming it instead of writing outside the site; a link in place of a file is
replaced by the file, its target untouched. The root itself is the user's choice
and may be a link.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path, PurePosixPath

from perfwalk.errors import PerfwalkError
from perfwalk.hosts.leftovers import start_time

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
#: ``.NAME.PID-START.HEX.tmp``: a temporary file and the process writing it
_TEMPORARY = re.compile(r"\..+\.(?P<pid>\d+)-(?P<start>\d+|\?)\.[0-9a-f]{16}\.tmp")
_LINK_HINT = (
    "perfwalk writes a site only into its own folders: remove the link (or the file "
    "standing where a folder goes), or publish into another --out"
)


class SiteFolder:
    """The site under ``root``; paths are relative to it, with ``/`` separators."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, relative: str, data: bytes) -> None:
        """Write the file atomically, making its folders as needed."""
        folders, name = _split(relative)
        with self._folder(folders, create=True) as folder:
            temporary = f".{name}.{_writer()}.{secrets.token_hex(8)}.tmp"
            try:
                fd = os.open(temporary, _NEW_FLAGS, 0o666, dir_fd=folder)
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
            except OSError as error:
                with suppress(OSError):
                    os.unlink(temporary, dir_fd=folder)
                raise self._error(relative, "cannot write", error) from error

    def read(self, relative: str) -> bytes | None:
        """The file's bytes; None when it is missing or not a plain file."""
        folders, name = _split(relative)
        try:
            with self._folder(folders, create=False) as folder:
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
                with os.fdopen(fd, "rb") as source:
                    if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
                        return None
                    return source.read()
        except (PerfwalkError, OSError):
            return None

    def exists(self, relative: str) -> bool:
        """Whether a plain file (not a link) is there."""
        folders, name = _split(relative)
        try:
            with self._folder(folders, create=False) as folder:
                found = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except (PerfwalkError, OSError):
            return False
        return stat.S_ISREG(found.st_mode)

    def remove(self, relative: str) -> None:
        """Remove the file (or link) if it is there; a folder in the way is an error."""
        self._remove(relative, lambda name, folder: os.unlink(name, dir_fd=folder))

    def entries(self, relative: str) -> list[tuple[str, bool]]:
        """The names in a folder, each with whether it is a folder (links are not);
        none when the folder is missing."""
        try:
            parts = PurePosixPath(relative).parts
            with self._folder(parts, create=False) as folder, os.scandir(folder) as found:
                return [(e.name, e.is_dir(follow_symlinks=False)) for e in found]
        except FileNotFoundError:
            return []

    def remove_stale_temporaries(self, relative: str = "") -> int:
        """Remove the temporary files that publishes killed before their rename left
        in the folder ``relative`` and below (never a live writer's); how many."""
        removed = 0
        for name, is_dir in self.entries(relative):
            path = f"{relative}/{name}" if relative else name
            if is_dir:
                removed += self.remove_stale_temporaries(path)
                continue
            found = _TEMPORARY.fullmatch(name)
            if found and start_time(int(found["pid"])) != found["start"]:
                self.remove(path)
                removed += 1
        return removed

    def remove_tree(self, relative: str) -> None:
        """Remove a folder and what it holds (never following a link)."""
        self._remove(relative, lambda name, folder: shutil.rmtree(name, dir_fd=folder))

    def _remove(self, relative: str, remove: Callable[[str, int], None]) -> None:
        """``remove(name, folder descriptor)`` of what is at ``relative``, if anything."""
        folders, name = _split(relative)
        try:
            with self._folder(folders, create=False) as folder:
                remove(name, folder)
        except FileNotFoundError:
            return
        except OSError as error:
            raise self._error(relative, "cannot remove", error) from error

    @contextmanager
    def _folder(self, parts: tuple[str, ...], *, create: bool) -> Iterator[int]:
        """A descriptor of the folder ``parts`` below the root, every step of the way
        opened without following a link."""
        try:
            if create:
                self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.root, _DIR_FLAGS)
        except OSError as error:
            if isinstance(error, FileNotFoundError) and not create:
                raise
            raise self._error("", "cannot open", error) from error
        try:
            for depth, part in enumerate(parts):
                child = self._step(fd, part, "/".join(parts[: depth + 1]), create=create)
                os.close(fd)
                fd = child
            yield fd
        finally:
            os.close(fd)

    def _step(self, parent: int, part: str, shown: str, *, create: bool) -> int:
        """Open the folder ``part`` in ``parent``, made when missing and ``create``."""
        try:
            try:
                return os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=parent)
            except FileNotFoundError:
                if not create:
                    raise
                with suppress(FileExistsError):
                    os.mkdir(part, dir_fd=parent)
                return os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=parent)
        except FileNotFoundError:
            raise
        except OSError as error:
            if error.errno in (errno.ELOOP, errno.ENOTDIR):
                raise PerfwalkError(
                    f"site {self.root}: {shown} is a symbolic link or a file, not a folder",
                    hint=_LINK_HINT,
                ) from error
            raise self._error(shown, "cannot open", error) from error

    def _error(self, relative: str, action: str, error: OSError) -> PerfwalkError:
        where = self.root / relative if relative else self.root
        return PerfwalkError(
            f"site {self.root}: {action} {where}: {error.strerror or error}",
            hint="check the site folder's permissions and free space, then publish again",
        )


class SiteWriter:
    """Writes files of a site (each as :meth:`SiteFolder.write` does) and keeps count:
    how many, the size of each, and the largest."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.site = SiteFolder(out)
        self.written = 0
        self.largest = ("", 0)
        self.sizes: dict[str, int] = {}

    def write(self, relative: str, data: str | bytes) -> None:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        self.site.write(relative, raw)
        self.written += 1
        self.sizes[relative] = len(raw)
        self.add(0, (relative, len(raw)))

    def add(self, written: int, largest: tuple[str, int] = ("", 0)) -> None:
        """Count what another writer of the site wrote (in another process)."""
        self.written += written
        if largest[1] > self.largest[1]:
            self.largest = largest


_WRITER: dict[int, str] = {}  # PID: "PID-START", this process's (forked workers differ)


def _writer() -> str:
    """This process as a temporary file names it: its PID and when it started."""
    pid = os.getpid()
    if pid not in _WRITER:
        _WRITER[pid] = f"{pid}-{start_time(pid) or '?'}"
    return _WRITER[pid]


def _split(relative: str) -> tuple[tuple[str, ...], str]:
    """The folders and the name of a site path; nothing may climb out of the site."""
    parts = PurePosixPath(relative).parts
    if not parts or any(part in ("", ".", "..", "/") for part in parts):
        raise ValueError(f"not a path inside the site: {relative!r}")
    return tuple(parts[:-1]), parts[-1]
