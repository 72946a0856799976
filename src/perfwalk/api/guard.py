"""What stands before the endpoints (:class:`Gate`): the server's names, the bearer
tokens with their scopes, the bound on a request's body; and what an error is told
(:func:`failure`). A token is read from the ``Authorization: Bearer`` header only
(never from a URL, which access logs keep) and never repeated in an answer."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from http import HTTPStatus
from typing import Any

from starlette.concurrency import run_in_threadpool

from perfwalk.errors import PerfwalkError, StoreUnavailable
from perfwalk.served_names import ServedNames
from perfwalk.store import Store
from perfwalk.store.tokens import TokenRow, digest_of

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("perfwalk.api")

#: The message of a 401 for a token the store does not know.
UNKNOWN_TOKEN = "the token is not known (revoked, or mistyped): check it"


class ApiError(Exception):
    """An answer other than 2xx: its status, the field at fault (None: the request as a
    whole) and a message that says how to fix it."""

    def __init__(self, status: int, field: str | None, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.field = field
        self.message = message

    def body(self) -> dict[str, Any]:
        return error_body(self.field, self.message)

    def headers(self) -> dict[str, str]:
        """The headers that go with the answer: how to authenticate, with a 401; when
        to try again, with a 503."""
        if self.status == 401:
            return {"WWW-Authenticate": "Bearer"}
        if self.status == 503:
            return {"Retry-After": "5"}
        return {}


def error_body(field: str | None, message: str) -> dict[str, Any]:
    """The body of every error: ``{"error": {"field": ..., "message": ...}}``."""
    return {"error": {"field": field, "message": message}}


class Gate:
    """ASGI middleware: what a request must pass before the endpoints, told from its
    headers alone, in this order:

    1. its ``Host`` header names this API (``names``): else 403, field ``host``;
    2. a write (``writes(method, path)`` gives the scope it needs) carries a token
       that grants that scope: else 401 or 403 before a byte of its body is read,
       so that whoever has no token cannot make the API hold a body;
    3. its body is within ``limit`` bytes: else 413, on its Content-Length before a
       byte of it is read, or (chunked) as soon as the bytes received pass it.

    A write's body is then read whole and handed on; the other requests' bodies are
    left unread (no endpoint reads one). A store that cannot be reached while the
    token is looked up is 503 (:func:`failure`)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        limit: int,
        names: ServedNames,
        writes: Callable[[str, str], str | None],
        store: Store,
        tokens: KnownTokens,
    ) -> None:
        self.app = app
        self.limit = limit
        self.names = names
        self.writes = writes
        self.store = store
        self.tokens = tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[bytes, bytes] = {}
        for name, value in scope["headers"]:  # the first of a repeated header, as Starlette
            headers.setdefault(name, value)
        host = headers.get(b"host")
        if host is not None and not self.names.allows(host.decode("latin-1")):
            await _answer(send, ApiError(403, "host", FOREIGN_HOST))
            return
        needs = self.writes(scope["method"], scope["path"])
        if needs is not None:
            header = headers.get(b"authorization")
            try:
                await self._authorize(None if header is None else header.decode("latin-1"), needs)
            except Exception as err:
                await _answer(send, failure(err))
                return
        length = headers.get(b"content-length")
        if length is not None:
            if not length.isdigit():
                await _answer(
                    send, ApiError(400, "content-length", "Content-Length is not a number")
                )
                return
            if int(length) > self.limit:
                await _answer(send, self._too_large(f"{int(length)} bytes"))
                return
        if needs is None:
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                messages.append(message)
                break
            size += len(message.get("body", b""))
            if size > self.limit:
                await _answer(send, self._too_large(f"more than {self.limit} bytes"))
                return
            messages.append(message)
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            if messages:
                return messages.pop(0)
            return await receive()

        await self.app(scope, replay, send)

    async def _authorize(self, header: str | None, scope: str) -> None:
        """:meth:`KnownTokens.bearer`: from memory when the token was found lately,
        else read from the store in a thread."""
        if self.tokens.known(header, scope) is None:
            await run_in_threadpool(self.tokens.bearer, self.store, header, scope)

    def _too_large(self, size: str) -> ApiError:
        return ApiError(
            413,
            "body",
            f"the request body ({size}) is over the API's limit of {self.limit} bytes: "
            "push a smaller file, or raise [api] max_body",
        )


#: The message of a 403 for a request whose Host header names another server.
FOREIGN_HOST = (
    "the Host header names a server this API is not (a name pointed at it by someone "
    "else?): use its own address, or add the name it is served under to [api] "
    "allowed_hosts"
)
#: The message of a 503 for a store that cannot be reached.
STORE_DOWN = "the store cannot be reached now: try again shortly"
#: The message of a 500.
INTERNAL = "the API failed to answer this request: its log says why"


def failure(err: Exception) -> ApiError:
    """The answer to ``err`` raised while answering a request: itself when it is an
    :class:`ApiError`; 503 for a store that cannot be reached; else 500. What the
    client is told names nothing of the server (no store address, no path, no
    database user): the detail goes to the API's log."""
    if isinstance(err, ApiError):
        return err
    if isinstance(err, StoreUnavailable):
        log.warning("answered 503: %s", err)
        return ApiError(503, None, STORE_DOWN)
    log.error("answered 500: %s", err, exc_info=None if isinstance(err, PerfwalkError) else err)
    return ApiError(500, None, INTERNAL)


def _closing(err: ApiError) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and the body of an answer to ``err`` that closes the connection."""
    body = json.dumps(err.body(), allow_nan=False).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    headers += [(name.encode(), value.encode()) for name, value in err.headers().items()]
    return headers, body


async def _answer(send: Send, err: ApiError) -> None:
    headers, body = _closing(err)
    await send({"type": "http.response.start", "status": err.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def raw_answer(err: ApiError) -> bytes:
    """The whole HTTP/1.1 answer to ``err``, that closes the connection: for what is
    answered below the application (no request yet, or one not read whole)."""
    headers, body = _closing(err)
    lines = [f"HTTP/1.1 {err.status} {HTTPStatus(err.status).phrase}".encode()]
    lines += [name + b": " + value for name, value in headers]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def bearer(store: Store, header: str | None, scope: str) -> TokenRow:
    """The token of an ``Authorization`` header that grants ``scope``: 401 without a
    token or with one the store does not know, 403 when it lacks the scope."""
    return _granting(store.tokens.find(_token_of(header, scope)), scope)


class KnownTokens:
    """The push tokens found in the store in the last ``ttl`` seconds, by digest (never
    the token itself): a push whose token is here is not read again before it is
    parsed, and its own transaction checks that the token still exists
    (:class:`~perfwalk.store.pushes.TokenGone`: refused, and forgotten here). A token
    made since is read from the store on its first use, like every unknown one."""

    def __init__(self, ttl: float = 60.0, most: int = 256) -> None:
        self._ttl = ttl
        self._most = most
        self._found: dict[str, tuple[float, TokenRow]] = {}
        self._lock = threading.Lock()

    def known(self, header: str | None, scope: str) -> tuple[TokenRow, str] | None:
        """:func:`bearer` from here alone (no store read): None when the token was not
        found lately."""
        digest = digest_of(_token_of(header, scope))
        with self._lock:
            hit = self._found.get(digest)
        if hit is None or time.monotonic() - hit[0] >= self._ttl:
            return None
        return _granting(hit[1], scope), digest

    def bearer(self, store: Store, header: str | None, scope: str) -> tuple[TokenRow, str]:
        """:func:`bearer`, from here when it was found lately; with the token's digest."""
        found = self.known(header, scope)
        if found is not None:
            return found
        token = _token_of(header, scope)
        digest = digest_of(token)
        now = time.monotonic()
        row = store.tokens.find(token)
        if row is not None:
            with self._lock:
                if len(self._found) >= self._most:
                    self._found.clear()
                self._found[digest] = (now, row)
        return _granting(row, scope), digest

    def forget(self, digest: str) -> None:
        """Forget the token of ``digest`` (it was revoked)."""
        with self._lock:
            self._found.pop(digest, None)


def _token_of(header: str | None, scope: str) -> str:
    """The token of an ``Authorization: Bearer`` header; 401 without one."""
    if not header:
        raise ApiError(
            401,
            "authorization",
            f"this needs a token with scope {scope}: send Authorization: Bearer TOKEN "
            f"(`perfwalk tokens add NAME --scope {scope}` makes one)",
        )
    kind, _, token = header.partition(" ")
    if kind.lower() != "bearer" or not token.strip():
        raise ApiError(401, "authorization", "expected Authorization: Bearer TOKEN")
    return token.strip()


def _granting(row: TokenRow | None, scope: str) -> TokenRow:
    """``row`` if it grants ``scope``: 401 for no token, 403 for one without it."""
    if row is None:
        raise ApiError(401, "authorization", UNKNOWN_TOKEN)
    if scope not in row.scopes:
        raise ApiError(
            403,
            "authorization",
            f"token {row.name!r} has scopes {', '.join(row.scopes)}, not {scope}: make "
            f"one with `perfwalk tokens add NAME --scope {scope}`",
        )
    return row
