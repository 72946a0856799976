"""Pushing results made elsewhere: a CI job's benchmark file (hyperfine,
pytest-benchmark or Google Benchmark JSON) with its commit, branch and host, stored
as a repetition of that commit's checkout in the push series of its project, branch
and host (:mod:`perfwalk.store.pushes`; docs/api.md says why so).

The file is read by the parser of its format (:mod:`perfwalk.parsers`), each value
with its unit's direction; the file itself is kept as the result's output. The
``perfwalk push`` client and ``POST /api/v1/push`` share :class:`PushRequest`.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    moment = now or datetime.now(UTC)
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
    push = NewPush(
        project=request.project,
        branch=request.branch,
        host=request.host,
        commit=commit,
        results=(result,),
        started_at=moment,
        finished_at=moment,
    )
    return store.pushes.add(push)
