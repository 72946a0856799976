"""The API's application: its endpoints over one open store (docs/api.md).

Reads need no token; ``POST /push`` needs scope push, ``POST /changes/{id}/triage``
scope triage, ``POST /jobs`` scope submit (checked from the headers, before the body
is read: :class:`~perfwalk.api.guard.Gate`). Every error is JSON naming the field
at fault (``{"error": {"field": ..., "message": ...}}``) and nothing of the server
(its store, paths, database user: those go to the log); the OpenAPI description is
at ``/api/v1/openapi.json``. Jobs are a :class:`JobQueue` given by who serves the
API: without one, the job endpoints answer 501.

Reads run in threads, :data:`READS_AT_ONCE` at a time (the others wait without a
thread), so that a flood of them leaves threads and store connections to the
writes; ``GET /changes`` is kept between writes (:mod:`perfwalk.api.kept_answers`);
values are read a page at a time.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, FastAPI, Header, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from perfwalk import __version__
from perfwalk.analysis.thresholds import CONFIGURED
from perfwalk.api.bodies import JobBody, PushAnswer, PushBody, TriageBody
from perfwalk.api.guard import (
    INTERNAL,
    UNKNOWN_TOKEN,
    ApiError,
    Gate,
    KnownTokens,
    bearer,
    failure,
)
from perfwalk.api.kept_answers import KeptAnswers
from perfwalk.config.model import Config
from perfwalk.errors import ParseError, PerfwalkError, StoreError, StoreUnavailable, UsageError
from perfwalk.limits import MAX_ID
from perfwalk.numbers import finite_document, finite_or_none
from perfwalk.orchestrate.findings.changes import find_all
from perfwalk.orchestrate.findings.listed_changes import listed_findings
from perfwalk.served_names import ANY_ADDRESS, ServedNames
from perfwalk.services.change_json import changes_document
from perfwalk.services.job_params import JobParamError
from perfwalk.services.push import ProjectHistory, PushRefused, PushRequest, PushWriter
from perfwalk.services.triage import (
    Word,
    checked_word,
    find_change,
    find_group,
    store_word,
    store_words,
)
from perfwalk.store import CheckoutRow, SeriesRow, Store
from perfwalk.store.pushes import NewPush, PushedRow, TokenGone, TooManySeries

#: Queues a job: (configuration, kind, parameters, who asks) → its id.
Submitter = Callable[[Config, str, Mapping[str, Any], str], int]
#: The jobs of the queue, newest first, each as JSON.
JobLister = Callable[[Config], Sequence[Mapping[str, Any]]]

PREFIX = "/api/v1"
#: A pushed file up to this many characters is parsed on the event loop (less than
#: handing it to a thread: a 10-benchmark pytest-benchmark file is 1.4 KiB); a larger
#: one in a thread. The parsers' worst text of this size (all ``{``) takes ~4 ms.
PARSE_ON_LOOP = 2 * 1024
#: Reads answered at once; the others wait for their turn without holding a thread.
READS_AT_ONCE = 4
#: Values per page of ``GET /series/{id}/values``: by default, and at most.
PAGE = 10_000
MOST_PER_PAGE = 100_000
Authorization = Annotated[str | None, Header(description="Bearer TOKEN")]
SeriesId = Annotated[int, Path(ge=1, le=MAX_ID)]


class JobQueue:
    """The job queue the API hands submissions to and lists (none: 501)."""

    def __init__(self, submit: Submitter, jobs: JobLister) -> None:
        self.submit = submit
        self.jobs = jobs


def make_app(
    config: Config, store: Store, *, queue: JobQueue | None = None, listen: str | None = None
) -> Any:
    """The ASGI application of the API over ``store``: the endpoints behind the
    :class:`~perfwalk.api.guard.Gate` (the names it answers to: ``listen``, default
    ``[api] listen``, and ``[api] allowed_hosts``; the bound on the body size, ``[api]
    max_body``), under ``[api] base_path``."""
    base = config.api.base_path
    app = FastAPI(
        title="perfwalk",
        version=__version__,
        description="Reads of a perfwalk store; pushes from CI, triage and job "
        "submissions with a token (docs/api.md).",
        openapi_url=f"{base}{PREFIX}/openapi.json",
        docs_url=None,  # Swagger UI loads from a CDN: the description is enough
        redoc_url=None,
    )
    writing = threading.Lock()  # one writer: SQLite takes one at a time anyway

    def write_pushes(pushes: Sequence[NewPush]) -> list[PushedRow]:
        with writing:
            return store.pushes.add_many(pushes, most_series=config.api.push_series)

    # concurrent pushes are written together, each answered once committed; what git
    # says of a pushed commit is asked of the project's clone, where there is one
    history = ProjectHistory(config.project.name, config.project.repo)
    pushes = PushWriter(write_pushes, limits=config.api, history=history)
    known_tokens = KnownTokens()  # each push's transaction checks its token still exists
    router = APIRouter(prefix=f"{base}{PREFIX}")
    reads = asyncio.Semaphore(READS_AT_ONCE)

    async def _read(make: Callable[[], Any]) -> Response:
        """What ``make`` reads, as JSON: read and rendered in a thread, in turn."""
        async with reads:
            return await run_in_threadpool(_response, make)

    def _series(series_id: int, field: str = "series_id") -> SeriesRow:
        try:
            return store.series(series_id)
        except StoreUnavailable:
            raise
        except StoreError:
            raise ApiError(404, field, f"no series with id {series_id}") from None

    def _analysed(chosen: tuple[int, ...] | None) -> bytes:
        for series_id in chosen or ():
            _series(series_id, "series")
        found = find_all(store, config, chosen, tuning=CONFIGURED)
        return _rendered(finite_document(changes_document(found, listed_findings(store, found))))

    kept_changes = KeptAnswers(_analysed, store.site.generation, what="the changes", most=8)

    @router.get("/series", summary="every series, newest first", response_model=None)
    async def list_series() -> Response:
        return await _read(lambda: [_series_json(s) for s in store.list_series()])

    @router.get("/series/{series_id}", summary="one series", response_model=None)
    async def one_series(series_id: SeriesId) -> Response:
        return await _read(lambda: _series_json(_series(series_id)))

    @router.get(
        "/series/{series_id}/checkouts",
        summary="the checkouts of a series",
        response_model=None,
    )
    async def checkouts(series_id: SeriesId) -> Response:
        def read() -> list[dict[str, Any]]:
            _series(series_id)
            return [_checkout_json(c) for c in store.checkouts(series_id)]

        return await _read(read)

    @router.get(
        "/series/{series_id}/values",
        summary=f"the values of a series, flat, a page at a time ({PAGE} by default, at "
        f"most {MOST_PER_PAGE}); a Link header (rel next) gives the next page",
        response_model=None,
    )
    async def values(
        request: Request,
        series_id: SeriesId,
        limit: Annotated[int, Query(ge=1, le=MOST_PER_PAGE)] = PAGE,
        offset: Annotated[int, Query(ge=0, le=MAX_ID // 2)] = 0,
    ) -> Response:
        def read() -> Response:
            _series(series_id)
            rows = store.values(series_id, limit=limit + 1, offset=offset)
            document = [
                {
                    "checkout_idx": r.checkout_idx,
                    "commit": r.sha,
                    "date": r.date.isoformat(),
                    "repetition_idx": r.repetition_idx,
                    "test": r.test,
                    "status": r.status.name,
                    "name": r.name,
                    "unit": r.unit,
                    "value": finite_or_none(r.value),
                    "direction": r.direction,
                }
                for r in rows[:limit]
            ]
            headers = {}
            if len(rows) > limit:
                following = f"{request.url.path}?limit={limit}&offset={offset + limit}"
                headers["Link"] = f'<{following}>; rel="next"'
            return Response(_rendered(document), media_type=JSON, headers=headers)

        return await _read(read)

    @router.get(
        "/changes",
        summary="the changes of every series (or of those given), as `perfwalk changes "
        "--format json` prints them, with their triage and drill answers",
        response_model=None,
    )
    async def changes(series: Annotated[list[int] | None, Query()] = None) -> Response:
        key = None if series is None else tuple(sorted(set(series)))
        return await _read(lambda: Response(kept_changes.answer(key), media_type=JSON))

    @router.post(
        "/push",
        status_code=201,
        summary="store a result made elsewhere (scope push)",
        response_model=None,  # answered as it is, not validated again
        responses={201: {"model": PushAnswer, "description": "stored and committed"}},
    )
    async def push(body: PushBody, authorization: Authorization = None) -> JSONResponse:
        # on the event loop: a token known lately, a small file's parsing, the wait
        # for the writer; in a thread: a token read from the store, a large file
        found = known_tokens.known(authorization, "push")
        if found is None:
            found = await run_in_threadpool(known_tokens.bearer, store, authorization, "push")
        _row, digest = found
        request = PushRequest(
            format=body.format,
            text=body.text,
            commit=body.commit,
            branch=body.branch,
            host=body.host,
            project=body.project or config.project.name,
            date=body.date,
            test=body.test,
            subject=body.subject,
            author=body.author,
        )
        try:
            if len(body.text) > PARSE_ON_LOOP or pushes.asks_git(request):
                waiting = await run_in_threadpool(pushes.submit, request, token_digest=digest)
            else:
                waiting = pushes.submit(request, token_digest=digest)
            done = await asyncio.wrap_future(waiting)
        except ParseError as err:
            raise ApiError(422, "text", str(err)) from None
        except PushRefused as err:
            raise ApiError(422, err.field, f"{err}: {err.hint}") from None
        except TooManySeries as err:
            raise ApiError(422, "branch", f"{err}: {err.hint}") from None
        except TokenGone:
            known_tokens.forget(digest)
            raise ApiError(401, "authorization", UNKNOWN_TOKEN) from None
        answer = {
            "series": done.series_id,
            "checkout": done.checkout_idx,
            "repetition": done.repetition_idx,
            "values": done.values,
            "new_series": done.new_series,
            "new_checkout": done.new_checkout,
        }
        return JSONResponse(answer, status_code=201)

    @router.post(
        "/changes/{change_id}/triage",
        status_code=201,
        summary="say what a change is (scope triage): `perfwalk triage`",
    )
    def triage(
        change_id: str, body: TriageBody, authorization: Authorization = None
    ) -> dict[str, Any]:
        token = bearer(store, authorization, "triage")
        word = _word_of(body)
        event = _found(  # the analysis, outside the write lock: pushes are not held back by it
            lambda: find_change(store, config, change_id),
            "change_id",
            f"no change {change_id!r}: GET {base}{PREFIX}/changes lists the changes "
            "with their ids (SERIES:CHECKOUT)",
        )
        with writing:  # only the word's writing
            done = store_word(store, event, word, who=f"token {token.name}")
        row = done.word
        return {
            "change": done.change.id,
            "series": done.change.series_id,
            "before": done.change.before.sha,  # the range the word is kept under
            "after": done.change.after.sha,
            "state": row.state,
            "reason": row.reason,
            "bug": row.bug,
            "who": row.who,
            "at": row.at.isoformat(),
            "previous": None if done.previous is None else done.previous.state,
        }

    @router.post(
        "/groups/{group_id}/triage",
        status_code=201,
        summary="say what every change of an alert group is (scope triage): `perfwalk "
        "triage GROUP`",
    )
    def triage_group(
        group_id: str, body: TriageBody, authorization: Authorization = None
    ) -> dict[str, Any]:
        token = bearer(store, authorization, "triage")
        word = _word_of(body)
        group, events = _found(  # the analysis, outside the write lock
            lambda: find_group(store, config, group_id),
            "group_id",
            f"no group {group_id!r}: GET {base}{PREFIX}/changes lists the groups with "
            "their ids (a culprit's commit, or a range BEFORE..AFTER)",
        )
        with writing:  # only the words' writing
            words = store_words(store, events, word, who=f"token {token.name}")
        return {
            "group": group.id,
            "state": word.state,
            "reason": word.reason,
            "bug": word.bug,
            "who": f"token {token.name}",
            "changes": [
                {
                    "change": done.change.id,
                    "series": done.change.series_id,
                    "before": done.change.before.sha,
                    "after": done.change.after.sha,
                    "previous": None if done.previous is None else done.previous.state,
                }
                for done in words
            ],
        }

    def _queue() -> JobQueue:
        if queue is None:
            raise ApiError(
                501, None, "no job queue is configured for this API: jobs are not served"
            )
        return queue

    @router.get("/jobs", summary="the jobs of the queue (501 without a queue)", response_model=None)
    async def jobs() -> Response:
        found = _queue()
        return await _read(lambda: list(found.jobs(config)))

    @router.post(
        "/jobs",
        status_code=202,
        summary="queue a job (scope submit): a use case and parameters the configuration "
        "allows, never a command",
    )
    def submit(body: JobBody, authorization: Authorization = None) -> dict[str, Any]:
        token = bearer(store, authorization, "submit")
        found = _queue()
        try:
            return {"id": found.submit(config, body.kind, body.params, f"token {token.name}")}
        except JobParamError as err:
            raise ApiError(422, err.field, str(err)) from None
        except UsageError as err:
            raise ApiError(422, "params", str(err)) from None

    app.include_router(router)

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, err: ApiError) -> JSONResponse:
        return _error(err)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, err: RequestValidationError) -> JSONResponse:
        first: dict[str, Any] = dict(err.errors()[0]) if err.errors() else {}
        if first.get("type") == "json_invalid":  # its place is where the JSON broke
            at = first.get("loc", ("body", 0))[-1]
            why = dict(first.get("ctx") or {}).get("error", "")
            return _error(ApiError(422, "body", f"body: not JSON: {why} (at character {at})"))
        where = [str(part) for part in first.get("loc", ("body",))]
        # a parameter is named alone (not the item of a list); a body's field in full
        field = where[1] if where[0] != "body" and len(where) > 1 else ".".join(where[1:])
        field = field or "body"
        return _error(ApiError(422, field, f"{field}: {first.get('msg', 'invalid request')}"))

    @app.exception_handler(HTTPException)
    async def refused(request: Request, err: HTTPException) -> JSONResponse:
        if err.status_code == 404:
            return _error(ApiError(404, "path", f"no endpoint at {request.url.path}"))
        if err.status_code == 405:
            message = f"{request.method} is not served at {request.url.path}"
            return _error(ApiError(405, "method", message))
        if err.status_code == 400:  # FastAPI could not decode the body as JSON
            return _error(ApiError(422, "body", f"body: {_unreadable(err.__cause__)}"))
        return _error(ApiError(err.status_code, None, str(err.detail)))

    @app.exception_handler(PerfwalkError)
    async def failed(_request: Request, err: PerfwalkError) -> JSONResponse:
        return _error(failure(err))

    @app.exception_handler(Exception)
    async def broken(_request: Request, _err: Exception) -> JSONResponse:
        # Starlette raises it again after this answer: uvicorn logs it with its traceback
        return _error(ApiError(500, None, INTERNAL))

    return Gate(
        app,
        limit=config.api.max_body,
        names=_names(config, listen or config.api.listen),
        writes=_writes(base),
        store=store,
        tokens=known_tokens,
    )


JSON = "application/json"
_T = TypeVar("_T")


def _word_of(body: TriageBody) -> Word:
    """The word of a triage's body, checked: a 422 naming what is wrong with it."""
    try:
        return checked_word(body.state, body.reason, body.bug)
    except UsageError as err:
        raise ApiError(422, "bug", str(err)) from None


def _found(find: Callable[[], _T], field: str, missing: str) -> _T:
    """What ``find`` found, or a 404 on ``field`` saying ``missing`` (a store that is
    down stays a 503)."""
    try:
        return find()
    except (UsageError, StoreError) as err:
        if isinstance(err, StoreUnavailable):
            raise
        raise ApiError(404, field, missing) from None


def _rendered(document: Any) -> bytes:
    """``document`` as the API sends JSON (as Starlette's JSONResponse renders it)."""
    return json.dumps(
        document, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode()


def _response(make: Callable[[], Any]) -> Response:
    found = make()
    return found if isinstance(found, Response) else Response(_rendered(found), media_type=JSON)


def _error(err: ApiError) -> JSONResponse:
    return JSONResponse(err.body(), status_code=err.status, headers=err.headers())


def _unreadable(cause: BaseException | None) -> str:
    """Why FastAPI could not read a body as JSON, from the error it met."""
    if isinstance(cause, UnicodeError):
        return "not text in UTF-8 (send JSON in UTF-8)"
    if isinstance(cause, RecursionError):
        return "its JSON is nested too deeply"
    if isinstance(cause, ValueError) and "digits" in str(cause):
        return "a number in it has too many digits (at most 4300)"
    return "not JSON"


def _names(config: Config, listen: str) -> ServedNames:
    """The names the API answers to: its listen address (any IP address when it listens
    on them all), the loopback names, ``[api] allowed_hosts``."""
    host = listen.rpartition(":")[0].strip("[]")
    return ServedNames([host, *config.api.allowed_hosts], any_address=host in ANY_ADDRESS)


def _writes(base: str) -> Callable[[str, str], str | None]:
    """The scope each write needs, by method and path (None: not a write)."""
    pattern = re.compile(
        rf"{re.escape(base + PREFIX)}/(push|jobs|changes/[^/]+/triage|groups/[^/]+/triage)"
    )
    scopes = {"push": "push", "jobs": "submit"}

    def needs(method: str, path: str) -> str | None:
        found = pattern.fullmatch(path) if method == "POST" else None
        if found is None:
            return None
        return scopes.get(found.group(1), "triage")

    return needs


def _series_json(s: SeriesRow) -> dict[str, Any]:
    return {
        "id": s.id,
        "name": s.name,
        "kind": s.kind,
        "project": s.project,
        "host": s.host,
        "state": s.state,
        "from": s.from_spec,
        "to": s.to_spec,
        "step": s.step,
        "variant": s.variant_name,
        "walk": s.walk,
        "parent": s.parent_id,
        "started_at": s.started_at.isoformat(),
        "finished_at": None if s.finished_at is None else s.finished_at.isoformat(),
    }


def _checkout_json(c: CheckoutRow) -> dict[str, Any]:
    return {
        "idx": c.idx,
        "commit": c.sha,
        "date": c.date.isoformat(),
        "commits": c.commit_count,
        "build_status": None if c.build_status is None else c.build_status.name,
        "build_seconds": c.build_seconds,
        "quirks": list(c.quirks),
    }
