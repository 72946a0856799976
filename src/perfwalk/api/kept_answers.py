"""Answers kept while the store does not change: ``GET /changes`` analyses every
series of the store, which takes seconds on a large one; its answer is kept, per
selection of series, with the store's generation (a few counts and newest ids,
:meth:`~perfwalk.store.site_reads.SiteReads.generation`: one cheap query) and given
again until the generation moves. Every write that the analysis reads moves it
(a push, a triage, a walk, a drill, from this process or any other on the same
store), so a kept answer is never older than the store."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

log = logging.getLogger("perfwalk.api")

Key = TypeVar("Key", bound=Hashable)


class KeptAnswers(Generic[Key]):
    """``answer(key)`` made by ``make(key)`` (rendered bytes), kept until
    ``generation()`` changes; at most ``most`` keys kept, the least recently asked
    forgotten first. Concurrent askers of one key wait for one making, not one each."""

    def __init__(
        self,
        make: Callable[[Key], bytes],
        generation: Callable[[], Hashable],
        *,
        what: str,
        most: int = 16,
    ) -> None:
        self._make = make
        self._generation = generation
        self._what = what
        self._most = most
        self._kept: OrderedDict[Key, tuple[Hashable, bytes]] = OrderedDict()
        self._making: dict[Key, threading.Lock] = {}
        self._lock = threading.Lock()  # guards the two dicts, never held while making

    def answer(self, key: Key) -> bytes:
        """The answer for ``key`` as of the store's current generation."""
        with self._lock:
            making = self._making.setdefault(key, threading.Lock())
        try:
            with making:
                return self._kept_or_made(key)
        finally:
            with self._lock:
                if key not in self._kept:  # failed, or forgotten: nothing to wait for
                    self._making.pop(key, None)

    def _kept_or_made(self, key: Key) -> bytes:
        generation = self._generation()  # before making: a write during it moves it
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and kept[0] == generation:
                self._kept.move_to_end(key)
                return kept[1]
        started = time.monotonic()
        made = self._make(key)
        log.info(
            "%s made again (the store changed): %.2f s, %d bytes",
            self._what,
            time.monotonic() - started,
            len(made),
        )
        with self._lock:
            self._kept[key] = (generation, made)
            self._kept.move_to_end(key)
            while len(self._kept) > self._most:
                gone, _answer = self._kept.popitem(last=False)
                self._making.pop(gone, None)
        return made
