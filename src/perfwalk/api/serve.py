"""Serving the API: uvicorn on ``[api] listen`` until stopped (SIGINT or SIGTERM).

Its access log shows the method, the path and the status, never a header: a token
travels in ``Authorization`` only. What the API logs besides (an error it answered
500 or 503 to, with its detail; each analysis of the changes) goes to the same
output, on lines that say ``perfwalk:`` after their level.

uvicorn bounds the size of a request's headers (16 KiB) but neither the time a
client takes to send them nor the number of connections: :func:`guarded_protocol`
adds both. A client has ``[api] read_timeout`` seconds from when it connects (or
from the previous answer, on a connection kept open) to send a whole request, its
headers and its body; then it gets 408 and its connection is closed. A connection
beyond ``[api] max_connections`` gets 503 at once and is closed.
"""

from __future__ import annotations

import asyncio
import copy
import gc
from typing import Any

from perfwalk.api.app import JobQueue, make_app
from perfwalk.api.guard import ApiError, raw_answer
from perfwalk.config.model import Config
from perfwalk.store import Store

#: the logger of the API's own lines (uvicorn's are "uvicorn.error" and "uvicorn.access")
LOGGER = "perfwalk"


def serve(
    config: Config, store: Store, *, listen: str | None = None, queue: JobQueue | None = None
) -> None:
    """Serve the API over ``store`` on ``listen`` (default ``[api] listen``)."""
    import uvicorn

    address = listen or config.api.listen
    host, _, port = address.rpartition(":")
    app = make_app(config, store, queue=queue, listen=address)
    # what is loaded by now lives as long as the server: kept out of the collector's
    # full passes, which otherwise walk it all and hold every request for ~0.1 s
    gc.collect()
    gc.freeze()
    uvicorn.run(
        app,
        host=host.strip("[]"),
        port=int(port),
        http=guarded_protocol(config.api.read_timeout, config.api.max_connections),
        ws="none",
        log_level="info",
        log_config=_log_config(),
        access_log=True,
        server_header=False,
        proxy_headers=False,
    )


def _log_config() -> dict[str, Any]:
    """uvicorn's logging, and the API's own lines beside its error lines."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["perfwalk"] = {
        "()": "uvicorn.logging.DefaultFormatter",
        "fmt": "%(levelprefix)s perfwalk: %(message)s",
    }
    config["handlers"]["perfwalk"] = {
        "formatter": "perfwalk",
        "class": "logging.StreamHandler",
        "stream": "ext://sys.stderr",
    }
    config["loggers"][LOGGER] = {"handlers": ["perfwalk"], "level": "INFO", "propagate": False}
    return config


def guarded_protocol(read_timeout: float, max_connections: int) -> type[asyncio.Protocol]:
    """uvicorn's HTTP/1.1 protocol (h11) with a time limit on receiving each request and
    a bound on the connections served at once (see the module's text); its own
    errors (a request h11 cannot read) in the API's error shape."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    too_slow = raw_answer(
        ApiError(
            408,
            None,
            f"the request did not arrive whole within {read_timeout:g} seconds: send it "
            "at once (the limit is [api] read_timeout)",
        )
    )
    too_many = raw_answer(
        ApiError(503, None, "the API serves as many connections as it can: try again shortly")
    )

    class Guarded(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            if len(self.connections) > max_connections:  # this one counts
                self.logger.warning("a connection over [api] max_connections: answered 503")
                self.transport.write(too_many)
                self.transport.close()
                return
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._received():
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()  # may read a request sent after this one
            if not self.transport.is_closing() and not self._received():
                self._arm()

        def send_400_response(self, msg: str) -> None:
            self.transport.write(raw_answer(ApiError(400, None, f"not an HTTP/1.1 request: {msg}")))
            self.transport.close()

        def _received(self) -> bool:
            """Whether the request of this cycle has arrived whole (or none will)."""
            return self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR)

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(read_timeout, self._time_out)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _time_out(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            if self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):  # nothing answered yet
                self.transport.write(too_slow)
            self.transport.close()

    return Guarded
