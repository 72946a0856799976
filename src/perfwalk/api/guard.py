"""What stands before the endpoints: the bound on a request's body (checked before
it is read: its Content-Length, then the bytes as they stream in) and the bearer
tokens with their scopes. A token is read from the ``Authorization: Bearer`` header
only (never from a URL, which access logs keep) and never repeated in an answer."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from perfwalk.store import Store
from perfwalk.store.tokens import TokenRow, digest_of

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

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


def error_body(field: str | None, message: str) -> dict[str, Any]:
    """The body of every error: ``{"error": {"field": ..., "message": ...}}``."""
    return {"error": {"field": field, "message": message}}


class BodyLimit:
    """ASGI middleware: a request whose body is over ``limit`` bytes gets 413, read no
    further: refused on its Content-Length before a byte of it is read, else (chunked)
    as soon as the bytes received pass the limit. A body within it is read whole and
    handed on."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None:
            if not length.isdigit():
                await _answer(send, 400, "content-length", "Content-Length is not a number")
                return
            if int(length) > self.limit:
                await self._refuse(send, f"{int(length)} bytes")
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
                await self._refuse(send, f"more than {self.limit} bytes")
                return
            messages.append(message)
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            if messages:
                return messages.pop(0)
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send, size: str) -> None:
        await _answer(
            send,
            413,
            "body",
            f"the request body ({size}) is over the API's limit of {self.limit} bytes: "
            "push a smaller file, or raise [api] max_body",
        )


async def _answer(send: Send, status: int, field: str, message: str) -> None:
    body = json.dumps(error_body(field, message), allow_nan=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


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
