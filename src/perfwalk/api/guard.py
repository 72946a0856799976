"""What stands before the endpoints: the bound on a request's body (checked before
it is read: its Content-Length, then the bytes as they stream in) and the bearer
tokens with their scopes. A token is read from the ``Authorization: Bearer`` header
only (never from a URL, which access logs keep) and never repeated in an answer."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from perfwalk.store import Store
from perfwalk.store.tokens import TokenRow

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


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
    row = store.tokens.find(token.strip())
    if row is None:
        raise ApiError(
            401, "authorization", "the token is not known (revoked, or mistyped): check it"
        )
    if scope not in row.scopes:
        raise ApiError(
            403,
            "authorization",
            f"token {row.name!r} has scopes {', '.join(row.scopes)}, not {scope}: make "
            f"one with `perfwalk tokens add NAME --scope {scope}`",
        )
    return row
