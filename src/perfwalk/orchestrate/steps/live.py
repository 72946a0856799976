"""Tell the store what each host of a walk does now, while it does it.

A walk enters a :meth:`LiveBoard.step` around each of its steps (a build, an
install, the action between repetitions, a test run): the board is then the
output tap (:mod:`perfwalk.hosts.output_tap`) of every command the walk starts,
on any host, and keeps per host the command it runs and the last lines of the
step's output (``$ command`` before each command's). A thread of the board writes
what changed to the store (:mod:`perfwalk.store.live`) every :data:`FLUSH_EVERY`
seconds, and once more when the step ends: a line a test prints (a kernel panic)
is in the store within about that time, while the test still runs, and a host's
output costs the store at most one write per interval, however much it prints.

The live view is a view: a store that cannot be written at that moment costs it an
update, never the walk.
"""

from __future__ import annotations

import shlex
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

from perfwalk.errors import StoreError
from perfwalk.hosts.output_tap import tapping
from perfwalk.model import Checkout
from perfwalk.store import Store
from perfwalk.store.live import TAIL_BYTES, LivePlace

#: Seconds between two writes of what a host does (at most one per host).
FLUSH_EVERY = 1.0


@dataclass
class _HostNow:
    """What one host does in the step at ``place``."""

    place: LivePlace
    command: str
    started_at: datetime
    ended_at: datetime | None = None
    tail: bytearray = field(default_factory=bytearray)

    def add(self, data: bytes) -> None:
        self.tail += data
        if len(self.tail) > 2 * TAIL_BYTES:  # bounded: the store keeps less
            del self.tail[: len(self.tail) - TAIL_BYTES]


def shown_command(argv: Sequence[str]) -> str:
    """A command as a person reads it, on one line: ``sh -c X`` (behind a prefix) is
    X, its runs of white space (new lines) one space."""
    words = list(argv)
    command = shlex.join(words)
    if "sh" in words:
        at = words.index("sh")
        if words[at + 1 : at + 2] == ["-c"] and len(words) > at + 2:
            command = words[at + 2]
    return " ".join(command.split())


class LiveBoard:
    """What each host of series ``series_id`` does now, told to ``store``."""

    def __init__(self, store: Store, series_id: int, *, every: float = FLUSH_EVERY) -> None:
        self._store = store
        self._series_id = series_id
        self._every = every
        self._lock = threading.Lock()
        self._places: list[LivePlace] = []
        self._hosts: dict[str, _HostNow] = {}
        self._changed: set[str] = set()

    @contextmanager
    def step(self, step: str, checkout: Checkout | None, repetition: int | None) -> Iterator[None]:
        """Show the commands run inside as step ``step`` of ``checkout``, repetition
        ``repetition`` (None: not in one); steps nest (an install in a build)."""
        place = LivePlace(
            series_id=self._series_id,
            checkout=None if checkout is None else checkout.index,
            commit="" if checkout is None else checkout.commit,
            repetition=repetition,
            step=step,
        )
        with self._lock:
            self._places.append(place)
            outermost = len(self._places) == 1
        stop = threading.Event()
        writer = None
        if outermost:
            writer = threading.Thread(
                target=self._write_until, args=(stop,), name="perfwalk-live", daemon=True
            )
            writer.start()
        try:
            with tapping(self):
                yield
        finally:
            stop.set()
            if writer is not None:
                writer.join()
            with self._lock:
                self._places.pop()
            self.flush()

    @contextmanager
    def aside(self) -> Iterator[None]:
        """The commands run inside are not shown (they read facts of a host: they are
        no step's work, and their output would hide the step's)."""
        with tapping(None):
            yield

    def begin(self, host: str, argv: Sequence[str]) -> None:
        now = datetime.now(UTC)
        command = shown_command(argv)
        with self._lock:
            place = self._places[-1] if self._places else None
            if place is None:
                return
            before = self._hosts.get(host)
            state = _HostNow(place, command, now)
            if before is not None and before.place == place:  # the step's output goes on
                state.tail = before.tail
            state.add(f"$ {command}\n".encode())
            self._hosts[host] = state
            self._changed.add(host)

    def output(self, host: str, chunk: bytes) -> None:
        with self._lock:
            if (state := self._hosts.get(host)) is not None:
                state.add(chunk)
                self._changed.add(host)

    def end(self, host: str) -> None:
        with self._lock:
            if (state := self._hosts.get(host)) is not None:
                state.ended_at = datetime.now(UTC)
                self._changed.add(host)

    def flush(self) -> None:
        """Write what changed since the last write."""
        with self._lock:
            changed = [(host, self._hosts[host]) for host in sorted(self._changed)]
            told = [(host, state, bytes(state.tail), state.ended_at) for host, state in changed]
            self._changed.clear()
        now = datetime.now(UTC)
        for host, state, tail, ended in told:
            try:
                self._store.live.write(
                    state.place,
                    host,
                    command=state.command,
                    started_at=state.started_at,
                    ended_at=ended,
                    updated_at=now,
                    tail=tail.decode("utf-8", errors="replace"),
                )
            except StoreError:  # a view: the next write says it again
                with self._lock:
                    self._changed.add(host)

    def _write_until(self, stop: threading.Event) -> None:
        while not stop.wait(self._every):
            self.flush()
