"""Serve a published site on the loopback interface only (``perfwalk serve``).

It serves the site's files and nothing else: no folder listings, no file outside
the site (a link that leads out of it is "not found"), a path that no file can
have (``/%00``) is a bad request. A request must name this server in its ``Host``
header (``localhost``, ``127.0.0.1``, ``[::1]``, a ``*.localhost`` name, or a name
given with ``--allow-host``): a web page elsewhere that makes its own name point
at 127.0.0.1 (DNS rebinding) gets "forbidden", not the site. A connection that
says nothing for :data:`IDLE_TIMEOUT` seconds is closed, and beyond
:data:`MAX_CONNECTIONS` at once a new one is told to come back later, so idle
sockets cannot use the server up.

A page given as *made* (``perfwalk serve``'s live page, ``now.html``) is not read
from the folder: it is made anew for each request; when it cannot be made (the
store does not answer) the request gets "service unavailable" with the reason.
"""

from __future__ import annotations

import functools
import io
import os
import socket
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import unquote, urlsplit

from perfwalk.errors import PerfwalkError, UsageError
from perfwalk.served_names import ServedNames
from perfwalk.untrusted import CONTROL

HOST = "127.0.0.1"
#: seconds a connection may stay silent (between requests, or within one)
IDLE_TIMEOUT = 10.0
#: connections served at once; more are answered 503 and closed
MAX_CONNECTIONS = 256


class _Handler(SimpleHTTPRequestHandler):
    """The site's files; no request log on the terminal, no caching of pages."""

    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle_timeout)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        host = self.headers.get("Host")
        if host is None:
            if self.request_version != "HTTP/1.0":
                self.send_error(HTTPStatus.BAD_REQUEST, "Host header required")
                return False
        elif not self.server.names.allows(host):
            self.send_error(HTTPStatus.FORBIDDEN, "Not this server's name")
            return False
        if CONTROL.search(unquote(urlsplit(self.path).path)):
            self.send_error(HTTPStatus.BAD_REQUEST, "Bad path")
            return False
        return True

    def send_head(self) -> Any:
        make = self.server.made.get(unquote(urlsplit(self.path).path).lstrip("/"))
        if make is not None:
            return self._made(make)
        path = self.translate_path(self.path)
        root = os.path.realpath(self.directory)
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            self.send_error(HTTPStatus.BAD_REQUEST, "Bad path")
            return None
        if real != root and not real.startswith(root + os.sep):
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        try:
            return super().send_head()
        except ValueError:
            self.send_error(HTTPStatus.BAD_REQUEST, "Bad path")
            return None

    def _made(self, make: Callable[[], bytes]) -> io.BytesIO | None:
        try:
            data = make()
        except PerfwalkError as error:
            self.send_error(HTTPStatus.SERVICE_UNAVAILABLE, CONTROL.sub(" ", str(error))[:200])
            return None
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        return io.BytesIO(data)

    def list_directory(self, path: str | os.PathLike[str]) -> None:  # noqa: ARG002
        """A folder without an index page is not shown."""
        self.send_error(HTTPStatus.NOT_FOUND, "File not found")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(
        self,
        address: tuple[str, int],
        handler: Any,
        *,
        allowed: Iterable[str],
        idle_timeout: float,
        max_connections: int,
        made: Mapping[str, Callable[[], bytes]],
    ) -> None:
        self.names = ServedNames(allowed)
        self.made = dict(made)
        self.idle_timeout = idle_timeout
        self._slots = threading.BoundedSemaphore(max_connections)
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            _too_busy(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that leaves a page while it loads is no error worth a traceback."""
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)


def _too_busy(request: socket.socket) -> None:
    try:
        request.settimeout(1.0)
        request.sendall(
            b"HTTP/1.0 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n"
            b"Connection: close\r\n\r\n"
        )
    except OSError:
        pass


class SiteServer:
    """``with SiteServer(folder, port) as server:`` serves ``folder`` at ``server.url``
    from a thread; port 0 takes a free port. ``allowed_hosts``: names besides the
    loopback ones that requests may give in their ``Host`` header; ``made``: pages (by
    site path) made for each request instead of read from ``folder``."""

    def __init__(
        self,
        folder: Path,
        port: int,
        *,
        allowed_hosts: Iterable[str] = (),
        idle_timeout: float = IDLE_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
        made: Mapping[str, Callable[[], bytes]] | None = None,
    ) -> None:
        handler = functools.partial(_Handler, directory=str(folder))
        try:
            self._httpd = _Server(
                (HOST, port),
                handler,
                allowed=allowed_hosts,
                idle_timeout=idle_timeout,
                max_connections=max_connections,
                made=made or {},
            )
        except OSError as error:
            raise UsageError(
                f"cannot serve on {HOST}:{port}: {error.strerror or error}",
                hint="choose another port with --port (0 takes a free one)",
            ) from error
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def address(self) -> tuple[str, int]:
        """The address the server listens on."""
        host, port = self._httpd.socket.getsockname()[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.address[1]}/"

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
