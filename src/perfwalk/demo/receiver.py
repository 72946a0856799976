"""A receiver of JSON webhooks on 127.0.0.1 for the demo's night: what an Apprise
``json://`` URL posts to it is kept, to be shown; it listens only while the demo's
watch cycle runs."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: The most a posted body may hold (a notification is a few kilobytes).
_MOST = 1 << 20


@dataclass
class Received:
    """The receiver's address as an Apprise URL, and the JSON bodies posted to it."""

    url: str
    bodies: list[dict[str, Any]] = field(default_factory=list)


@contextmanager
def webhook_receiver() -> Iterator[Received]:
    """A receiver on a free port of 127.0.0.1 while the block runs (stopped after)."""
    lock = threading.Lock()
    bodies: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(min(size, _MOST))
            try:
                body = json.loads(raw)
            except ValueError:
                self.send_response(400)
            else:
                with lock:
                    bodies.append(body if isinstance(body, dict) else {"body": body})
                self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:  # quiet
            del format, args

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="perfwalk-demo-hook", daemon=True)
    thread.start()
    try:
        yield Received(f"json://127.0.0.1:{server.server_address[1]}/perfwalk-demo", bodies)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
