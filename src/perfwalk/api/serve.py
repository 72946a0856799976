"""Serving the API: uvicorn on ``[api] listen`` until stopped (SIGINT or SIGTERM).

Its access log shows the method, the path and the status, never a header: a token
travels in ``Authorization`` only."""

from __future__ import annotations

import gc

from perfwalk.api.app import JobQueue, make_app
from perfwalk.config.model import Config
from perfwalk.store import Store


def serve(
    config: Config, store: Store, *, listen: str | None = None, queue: JobQueue | None = None
) -> None:
    """Serve the API over ``store`` on ``listen`` (default ``[api] listen``)."""
    import uvicorn

    address = listen or config.api.listen
    host, _, port = address.rpartition(":")
    app = make_app(config, store, queue=queue)
    # what is loaded by now lives as long as the server: kept out of the collector's
    # full passes, which otherwise walk it all and hold every request for ~0.1 s
    gc.collect()
    gc.freeze()
    uvicorn.run(
        app,
        host=host.strip("[]"),
        port=int(port),
        log_level="info",
        access_log=True,
        server_header=False,
        proxy_headers=False,
    )
