"""A bounded capture of one output stream: its head and its tail, whatever its size.

A benchmark that goes wrong can print gigabytes. :class:`Capture` keeps the first
``limit`` bytes and the last ``limit`` bytes that followed them, counts everything,
and turns into a :class:`~perfwalk.model.Log` whose data is at most
``2 * limit`` bytes plus one marker line.
"""

from __future__ import annotations

from collections import deque

from perfwalk.model import Log


def omitted_marker(count: int) -> bytes:
    """The line put between the head and the tail of a truncated log."""
    return b"\n[... %d bytes omitted ...]\n" % count


class Capture:
    """Keeps the head and the tail of a byte stream fed to it in chunks.

    Memory stays O(``limit``): the head is at most ``limit`` bytes, the tail at most
    ``limit`` bytes plus one chunk.
    """

    __slots__ = ("_head", "_limit", "_tail", "_tail_size", "total")

    def __init__(self, limit: int) -> None:
        if limit < 0:
            raise ValueError(f"capture limit must be >= 0, not {limit}")
        self._limit = limit
        self._head = bytearray()
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self.total = 0
        """Bytes fed so far, kept or not."""

    @property
    def limit(self) -> int:
        return self._limit

    def feed(self, chunk: bytes) -> None:
        """Add the next ``chunk`` of the stream."""
        size = len(chunk)
        if not size:
            return
        self.total += size
        room = self._limit - len(self._head)
        if room > 0:
            if size <= room:
                self._head += chunk
                return
            self._head += chunk[:room]
            chunk = chunk[room:]
            size -= room
        if not self._limit:
            return
        self._tail.append(chunk)
        self._tail_size += size
        # Drop whole chunks from the front while the rest still covers the limit.
        while self._tail_size - len(self._tail[0]) >= self._limit:
            self._tail_size -= len(self._tail.popleft())

    def to_log(self) -> Log:
        """The stream as a :class:`Log`: all of it, or head + marker + tail."""
        tail = b"".join(self._tail)
        if len(tail) > self._limit:
            tail = tail[len(tail) - self._limit :]
        omitted = self.total - len(self._head) - len(tail)
        if omitted == 0:
            return Log(data=bytes(self._head) + tail, total=self.total, truncated=False)
        data = bytes(self._head) + omitted_marker(omitted) + tail
        return Log(data=data, total=self.total, truncated=True)
