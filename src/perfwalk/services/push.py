"""Pushing results made elsewhere: a CI job's benchmark file (hyperfine,
pytest-benchmark or Google Benchmark JSON) with its commit, branch and host, stored
as a repetition of that commit's checkout in the push series of its project, branch
and host (:mod:`perfwalk.store.pushes`; docs/api.md says why so).

The file is read by the parser of its format (:mod:`perfwalk.parsers`), each value
with its unit's direction; the file itself is kept as the result's output. The
``perfwalk push`` client and ``POST /api/v1/push`` share :class:`PushRequest`.

A push is a claim, checked before anything is stored (:class:`PushRefused` names
the field at fault): its commit is an object id (hex), its values at most ``[api]
push_values``, each finite and not negative, its date between 1970 and ``[api]
push_future`` past the clock. Where the project's own clone knows the commit
(:class:`ProjectHistory`), what git says of it (full id, date, author, subject,
body, files) is stored instead of what the push said; elsewhere the push's words
are stored as its claim, which the first walk or drill that reaches the commit
replaces with git's (:mod:`perfwalk.store.commits`).

The API writes concurrent pushes together (:class:`PushWriter`): a writer thread
takes every push that arrived while the previous transaction ran (and those within a
few milliseconds after the first) and stores them in one transaction: one commit and
one write of each checkout's pack for the lot instead of one each. A push is
answered only once its transaction is committed, so a 2xx still means stored; a
batch that fails is written again one push at a time, so that one push's error (a
token revoked meanwhile among them) is told to that push alone.
"""

from __future__ import annotations

import math
import queue
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from perfwalk.config.model import ApiConfig
from perfwalk.errors import GitError, UsageError
from perfwalk.git.repo import Repo
from perfwalk.model import Commit, Log, Status, Value
from perfwalk.parsers import get_parser
from perfwalk.store import NewResult, Store
from perfwalk.store.pushes import NewPush, PushedRow
from perfwalk.units import default_direction

#: The formats a push may hold, by the name of their parser.
PUSH_FORMATS: tuple[str, ...] = ("hyperfine", "pytest-benchmark", "gbench")
#: What a pushed commit is: a git object id (SHA-1 or SHA-256), whole or its first 4
#: hex digits or more. Never a name (``HEAD``, a branch): ``perfwalk push`` resolves
#: those in the checkout it runs in.
COMMIT_ID = r"^[0-9a-fA-F]{4,64}$"
#: The earliest date a push may give: git records none before it.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)


class PushRefused(UsageError):
    """A push refused for what it holds, before anything of it is stored: ``field``
    names the field of the push at fault (the API answers 422 naming it)."""

    def __init__(self, field: str, message: str, *, hint: str) -> None:
        super().__init__(message, hint=hint)
        self.field = field


@dataclass(frozen=True, kw_only=True)
class PushRequest:
    """A pushed file and where it was measured. ``date``: the commit's (None: now);
    ``test``: the name of its result (None: the format's name); ``subject`` and
    ``author``: what the push says of the commit (git's words win where known)."""

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


class ProjectHistory:
    """What the project's own clone (``[project] repo`` where the API runs) says of a
    pushed commit; nothing when there is no clone there, or the push is of another
    project. Commits it found are kept (a commit never changes); one it does not
    know is asked again at its next push (the clone may have fetched it since)."""

    #: commits kept at most
    KEPT = 4096

    def __init__(self, project: str, path: Path) -> None:
        self.project = project
        try:
            self._repo: Repo | None = Repo(path)
        except GitError:
            self._repo = None
        self._known: dict[str, Commit] = {}

    def knows(self, project: str) -> bool:
        """Whether pushes of ``project`` are looked up here (git runs for each)."""
        return self._repo is not None and project == self.project

    def commit(self, project: str, commit_id: str) -> Commit | None:
        """Git's commit of that id (or unique start of an id); None when unknown."""
        if self._repo is None or project != self.project or not re.fullmatch(COMMIT_ID, commit_id):
            return None
        wanted = commit_id.lower()
        found = self._known.get(wanted)
        if found is not None:
            return found
        try:
            found = self._repo.commit(wanted)
        except GitError:
            return None
        if not found.id.startswith(wanted):  # a branch or tag named like an id
            return None
        if len(self._known) >= self.KEPT:
            self._known.clear()
        self._known[wanted] = found
        return found


def store_push(
    store: Store,
    request: PushRequest,
    *,
    now: datetime | None = None,
    limits: ApiConfig | None = None,
    known: Commit | None = None,
) -> PushedRow:
    """Check and parse ``request``'s file and store its values; a push refused is a
    :class:`PushRefused`, a file its parser cannot read the parser's
    :class:`~perfwalk.errors.ParseError` (nothing is stored either way)."""
    limits = limits or ApiConfig()
    push = prepared_push(request, now=now or datetime.now(UTC), limits=limits, known=known)
    return store.pushes.add(push, most_series=limits.push_series)


def prepared_push(
    request: PushRequest, *, now: datetime, limits: ApiConfig, known: Commit | None = None
) -> NewPush:
    """The rows of ``request``, checked (:class:`PushRefused`) and its file parsed
    (its parser's ParseError if it cannot read it); ``known``: what git says of its
    commit, stored instead of what the push says."""
    moment = now
    if not re.fullmatch(COMMIT_ID, request.commit):
        raise PushRefused(
            "commit",
            f"commit {request.commit[:80]!r} is not a commit id (4 to 64 hex digits)",
            hint="push the commit's full id (git rev-parse HEAD); `perfwalk push` run in "
            "the project's checkout turns a name such as HEAD into it",
        )
    date = _checked_date(request.date, moment, limits.push_future)
    values = _checked_values(get_parser(request.format)(request.text), limits.push_values)
    result = NewResult(
        test=request.test or request.format,
        status=Status.PASS,
        command=f"pushed {request.format} JSON",
        stdout=Log.of(request.text.encode()),
        values=tuple((value, default_direction(value.unit)) for value in values),
    )
    claimed = Commit(
        id=request.commit.lower(),
        date=date or moment,
        author=request.author,
        subject=request.subject,
    )
    return NewPush(
        project=request.project,
        branch=request.branch,
        host=request.host,
        commit=known or claimed,
        told_by_git=known is not None,
        results=(result,),
        started_at=moment,
        finished_at=moment,
    )


def _checked_date(date: datetime | None, now: datetime, future: float) -> datetime | None:
    """``date`` when it lies between 1970 and ``future`` seconds past ``now``."""
    if date is None:
        return None
    latest = now + timedelta(seconds=future)
    try:
        fits = EARLIEST <= date.astimezone(UTC) <= latest
    except (OverflowError, ValueError):  # 9999-12-31T23:59:59-23:59 is past year 9999 in UTC
        fits = False
    if not fits:
        raise PushRefused(
            "date",
            f"date {date.isoformat()} is not between {EARLIEST:%Y-%m-%d} and "
            f"{latest:%Y-%m-%d %H:%M} UTC (the API's clock and [api] push_future, "
            f"{future:g} s)",
            hint="push the commit's own date (git log -1 --format=%cI), or leave it out "
            "(the time of the push); a CI clock far off is to be fixed",
        )
    return date


def _checked_values(values: Sequence[Value], most: int) -> Sequence[Value]:
    """``values`` when there are at most ``most``, each finite and not negative: a
    time, a rate or a share never is; zero and the tiniest numbers are kept as
    measured (a coarse clock gives 0)."""
    if len(values) > most:
        raise PushRefused(
            "text",
            f"the file holds {len(values)} values, more than the {most} of one push "
            "([api] push_values)",
            hint="push fewer benchmarks at a time (several pushes of the same commit "
            "add up), or raise [api] push_values in the API's configuration",
        )
    for value in values:
        if not math.isfinite(value.value) or value.value < 0:
            raise PushRefused(
                "text",
                f"value {value.name[:80]!r} is {value.value!r} {value.unit[:20]}: a pushed "
                "value is finite and not negative (a time, a rate, a share)",
                hint="push the file the tool wrote, unchanged",
            )
    return values


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
        limits: ApiConfig | None = None,
        history: ProjectHistory | None = None,
        gather: float = GATHER,
        most: int = MOST,
    ) -> None:
        """``write``: stores pushes in one transaction (``Store.pushes.add_many``);
        ``limits``: the bounds of a push (``[api]``); ``history``: the project's clone,
        asked what git says of each pushed commit."""
        self._write = write
        self._limits = limits or ApiConfig()
        self._history = history
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
        """:meth:`store` without waiting: the push is checked and its file parsed now
        (its PushRefused or ParseError at once), its commit looked up in the project's
        clone (git runs: call it off an event loop when :meth:`asks_git`); the future
        is done once the push is committed."""
        history = self._history
        known = None if history is None else history.commit(request.project, request.commit)
        push = prepared_push(
            request, now=now or datetime.now(UTC), limits=self._limits, known=known
        )
        push = replace(push, token_digest=token_digest)
        done: Future[PushedRow] = Future()
        self._waiting.put((push, done))
        return done

    def asks_git(self, request: PushRequest) -> bool:
        """Whether :meth:`submit` runs git for ``request`` (its project's clone is here)."""
        return self._history is not None and self._history.knows(request.project)

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
