"""The API's application: its endpoints over one open store (docs/api.md).

Reads need no token; ``POST /push`` needs scope push, ``POST /changes/{id}/triage``
scope triage, ``POST /jobs`` scope submit. Every error is JSON naming the field at
fault (``{"error": {"field": ..., "message": ...}}``); the OpenAPI description is at
``/api/v1/openapi.json``. Jobs are a :class:`JobQueue` given by who serves the API:
without one, the job endpoints answer 501.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from perfwalk import __version__
from perfwalk.analysis.thresholds import CONFIGURED
from perfwalk.api.bodies import JobBody, PushAnswer, PushBody, TriageBody
from perfwalk.api.guard import UNKNOWN_TOKEN, ApiError, BodyLimit, KnownTokens, bearer, error_body
from perfwalk.config.model import Config
from perfwalk.errors import ParseError, PerfwalkError, StoreError, UsageError
from perfwalk.numbers import finite_document, finite_or_none
from perfwalk.orchestrate.changes import find_all
from perfwalk.services.change_json import changes_document
from perfwalk.services.publish import listed_findings
from perfwalk.services.push import ProjectHistory, PushRefused, PushRequest, PushWriter
from perfwalk.services.triage import checked_word, triage_change
from perfwalk.store import CheckoutRow, SeriesRow, Store
from perfwalk.store.pushes import NewPush, PushedRow, TokenGone, TooManySeries

#: Queues a job: (configuration, kind, parameters) → its id.
Submitter = Callable[[Config, str, Mapping[str, Any]], int]
#: The jobs of the queue, newest first, each as JSON.
JobLister = Callable[[Config], Sequence[Mapping[str, Any]]]

PREFIX = "/api/v1"
#: A pushed file up to this many characters is parsed on the event loop (a fraction of
#: a millisecond, less than handing it to a thread); a larger one in a thread.
PARSE_ON_LOOP = 64 * 1024
Authorization = Annotated[str | None, Header(description="Bearer TOKEN")]


class JobQueue:
    """The job queue the API hands submissions to and lists (none: 501)."""

    def __init__(self, submit: Submitter, jobs: JobLister) -> None:
        self.submit = submit
        self.jobs = jobs


def make_app(config: Config, store: Store, *, queue: JobQueue | None = None) -> Any:
    """The ASGI application of the API over ``store``: the endpoints behind the bound
    on the body size (``[api] max_body``), under ``[api] base_path``."""
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

    def _not_found(err: StoreError, field: str) -> ApiError:
        return ApiError(404, field, str(err))

    @router.get("/series", summary="every series, newest first")
    def list_series() -> list[dict[str, Any]]:
        return [_series_json(s) for s in store.list_series()]

    @router.get("/series/{series_id}", summary="one series")
    def one_series(series_id: int) -> dict[str, Any]:
        try:
            return _series_json(store.series(series_id))
        except StoreError as err:
            raise _not_found(err, "series_id") from None

    @router.get("/series/{series_id}/checkouts", summary="the checkouts of a series")
    def checkouts(series_id: int) -> list[dict[str, Any]]:
        try:
            return [_checkout_json(c) for c in store.checkouts(series_id)]
        except StoreError as err:
            raise _not_found(err, "series_id") from None

    @router.get("/series/{series_id}/values", summary="every value of a series, flat")
    def values(series_id: int) -> list[dict[str, Any]]:
        try:
            rows = store.values(series_id)
        except StoreError as err:
            raise _not_found(err, "series_id") from None
        return [
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
            for r in rows
        ]

    @router.get(
        "/changes",
        summary="the changes of every series (or of those given), as `perfwalk changes "
        "--format json` prints them, with their triage and drill answers",
    )
    def changes(series: Annotated[list[int] | None, Query()] = None) -> dict[str, Any]:
        try:
            found = find_all(store, config, series, tuning=CONFIGURED)
        except StoreError as err:
            raise _not_found(err, "series") from None
        document: dict[str, Any] = finite_document(
            changes_document(found, listed_findings(store, found))
        )
        return document

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
        try:
            word = checked_word(body.state, body.reason, body.bug)
        except UsageError as err:
            raise ApiError(422, "bug", str(err)) from None
        try:
            with writing:
                done = triage_change(store, config, change_id, word, who=f"token {token.name}")
        except UsageError as err:
            raise ApiError(404, "change_id", str(err)) from None
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

    def _queue() -> JobQueue:
        if queue is None:
            raise ApiError(
                501, None, "no job queue is configured for this API: jobs are not served"
            )
        return queue

    @router.get("/jobs", summary="the jobs of the queue (501 without a queue)")
    def jobs() -> list[Mapping[str, Any]]:
        return list(_queue().jobs(config))

    @router.post("/jobs", status_code=202, summary="queue a job (scope submit)")
    def submit(body: JobBody, authorization: Authorization = None) -> dict[str, Any]:
        bearer(store, authorization, "submit")
        found = _queue()
        try:
            return {"id": found.submit(config, body.kind, body.params)}
        except UsageError as err:
            raise ApiError(422, "params", str(err)) from None

    app.include_router(router)

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, err: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if err.status == 401 else None
        return JSONResponse(err.body(), status_code=err.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, err: RequestValidationError) -> JSONResponse:
        first = err.errors()[0] if err.errors() else {"loc": (), "msg": "invalid request"}
        where = [
            str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path")
        ]
        field = ".".join(where) or "body"
        return JSONResponse(error_body(field, f"{field}: {first.get('msg', '')}"), 422)

    @app.exception_handler(PerfwalkError)
    async def failed(_request: Request, err: PerfwalkError) -> JSONResponse:
        return JSONResponse(error_body(None, str(err)), status_code=500)

    @app.exception_handler(404)
    async def missing(request: Request, _err: Exception) -> JSONResponse:
        return JSONResponse(error_body("path", f"no endpoint at {request.url.path}"), 404)

    @app.exception_handler(405)
    async def method(request: Request, _err: Exception) -> JSONResponse:
        return JSONResponse(
            error_body("method", f"{request.method} is not served at {request.url.path}"), 405
        )

    return BodyLimit(app, config.api.max_body)


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
