"""Serve a published site on the loopback interface only (``perfwalk serve``)."""

from __future__ import annotations

import functools
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from perfwalk.errors import UsageError

HOST = "127.0.0.1"


class _Quiet(SimpleHTTPRequestHandler):
    """Static files, no request log on the terminal, no caching of pages."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that leaves a page while it loads is no error worth a traceback."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class SiteServer:
    """``with SiteServer(folder, port) as server:`` serves ``folder`` at ``server.url``
    from a thread; port 0 takes a free port."""

    def __init__(self, folder: Path, port: int) -> None:
        handler = functools.partial(_Quiet, directory=str(folder))
        try:
            self._httpd = _Server((HOST, port), handler)
        except OSError as error:
            raise UsageError(
                f"cannot serve on {HOST}:{port}: {error.strerror or error}",
                hint="choose another port with --port (0 takes a free one)",
            ) from error
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self._httpd.server_address[1]}/"

    def __enter__(self) -> SiteServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()
