"""Pushing results made elsewhere: a CI job's benchmark file (hyperfine,
pytest-benchmark or Google Benchmark JSON) with its commit, branch and host, stored
as a repetition of that commit's checkout in the push series of its project, branch
and host (:mod:`perfwalk.store.pushes`; docs/api.md says why so).

The file is read by the parser of its format (:mod:`perfwalk.parsers`), each value
with its unit's direction; the file itself is kept as the result's output. The
``perfwalk push`` client and ``POST /api/v1/push`` share :class:`PushRequest`.

The API writes concurrent pushes together (:class:`PushWriter`): a writer thread
takes every push that arrived while the previous transaction ran (and those within a
few milliseconds after the first) and stores them in one transaction: one commit and
one write of each checkout's pack for the lot instead of one each. A push is
answered only once its transaction is committed, so a 2xx still means stored; a
batch that fails is written again one push at a time, so that one push's error (a
token revoked meanwhile among them) is told to that push alone.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from perfwalk.model import Commit, Log, Status
from perfwalk.parsers import get_parser
from perfwalk.store import NewResult, Store
from perfwalk.store.pushes import NewPush, PushedRow
from perfwalk.units import default_direction

#: The formats a push may hold, by the name of their parser.
PUSH_FORMATS: tuple[str, ...] = ("hyperfine", "pytest-benchmark", "gbench")


@dataclass(frozen=True, kw_only=True)
class PushRequest:
    """A pushed file and where it was measured. ``date``: the commit's (None: now);
    ``test``: the name of its result (None: the format's name)."""

    format: str
    text: str
    commit: str
    branch: str
    host: str
    project: str
    date: datetime | None = None
    test: str | None = None
    subject: str = ""
    author: str = ""


def store_push(store: Store, request: PushRequest, *, now: datetime | None = None) -> PushedRow:
    """Parse ``request``'s file and store its values; a file its parser cannot read is
    the parser's :class:`~perfwalk.errors.ParseError` (nothing is stored)."""
    return store.pushes.add(prepared_push(request, now=now or datetime.now(UTC)))


def prepared_push(request: PushRequest, *, now: datetime) -> NewPush:
    """The rows of ``request``, its file parsed (its parser's ParseError if it cannot
    read it)."""
    moment = now
    values = get_parser(request.format)(request.text)
    result = NewResult(
        test=request.test or request.format,
        status=Status.PASS,
        command=f"pushed {request.format} JSON",
        stdout=Log.of(request.text.encode()),
        values=tuple((value, default_direction(value.unit)) for value in values),
    )
    commit = Commit(
        id=request.commit,
        date=request.date or moment,
        author=request.author,
        subject=request.subject,
    )
    return NewPush(
        project=request.project,
        branch=request.branch,
        host=request.host,
        commit=commit,
        results=(result,),
        started_at=moment,
        finished_at=moment,
    )


# -- concurrent pushes written together (the API) ---------------------------------

#: How long the writer waits for more pushes after the first of a batch (s).
GATHER = 0.002
#: The most pushes in one transaction.
MOST = 64


class PushWriter:
    """One writer thread for the pushes of one store (see the module's text).
    :meth:`store` parses the push in the caller's thread (a file its parser cannot
    read is its ParseError, at once) and waits until the writer has committed it."""

    def __init__(
        self,
        write: Callable[[Sequence[NewPush]], list[PushedRow]],
        *,
        gather: float = GATHER,
        most: int = MOST,
    ) -> None:
        """``write``: stores pushes in one transaction (``Store.pushes.add_many``)."""
        self._write = write
        self._gather = gather
        self._most = most
        self._waiting: queue.Queue[tuple[NewPush, Future[PushedRow]] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="push-writer", daemon=True)
        self._thread.start()

    def store(
        self,
        request: PushRequest,
        *,
        now: datetime | None = None,
        token_digest: str | None = None,
    ) -> PushedRow:
        """Store ``request``; ``token_digest``: that of the token it came with, which
        must still exist when it is committed (``TokenGone`` otherwise)."""
        return self.submit(request, now=now, token_digest=token_digest).result()

    def submit(
        self,
        request: PushRequest,
        *,
        now: datetime | None = None,
        token_digest: str | None = None,
    ) -> Future[PushedRow]:
        """:meth:`store` without waiting: the file is parsed now (its ParseError at
        once), the future is done once the push is committed."""
        push = replace(
            prepared_push(request, now=now or datetime.now(UTC)), token_digest=token_digest
        )
        done: Future[PushedRow] = Future()
        self._waiting.put((push, done))
        return done

    def close(self) -> None:
        """Write what is waiting, then stop the writer."""
        self._waiting.put(None)
        self._thread.join()

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self._waiting.get()
            if first is None:
                return
            batch = [first]
            deadline = time.monotonic() + self._gather
            while len(batch) < self._most:
                try:
                    left = deadline - time.monotonic()
                    more = (
                        self._waiting.get(timeout=left) if left > 0 else self._waiting.get_nowait()
                    )
                except queue.Empty:
                    break
                if more is None:
                    stopping = True
                    break
                batch.append(more)
            self._commit(batch)

    def _commit(self, batch: list[tuple[NewPush, Future[PushedRow]]]) -> None:
        try:
            rows = self._write([push for push, _done in batch])
        except BaseException as error:
            if len(batch) == 1:
                batch[0][1].set_exception(error)
                return
            for one in batch:  # one push's error is told to that push alone
                self._commit([one])
            return
        for (_push, done), row in zip(batch, rows, strict=True):
            done.set_result(row)
