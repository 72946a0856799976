"""``perfwalk serve``'s server on real sockets on 127.0.0.1: loopback only, the site's
files only, names checked (DNS rebinding), idle connections closed, odd paths
refused; and serving goes on when a publish fails."""

from __future__ import annotations

import shutil
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.errors import PerfwalkError
from perfwalk.report import layout
from perfwalk.report.server import SiteServer
from perfwalk.report.site import PublishReport
from perfwalk.served_names import host_name
from perfwalk.services.publish import serve_site
from perfwalk.store import Store
from tests.report.history import add_daily_checkout
from tests.report.test_commands import _config


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A small site: an index, a folder without one, a link out of the site."""
    site = tmp_path / "site"
    (site / "series-1" / "data").mkdir(parents=True)
    (site / "index.html").write_text("<p>all series</p>\n")
    (site / "series-1" / "setup.html").write_text("<p>setup</p>\n")
    (site / "series-1" / "data" / "meta.js").write_text("perfwalk.meta({});\n")
    (tmp_path / "private.txt").write_text("a file outside the site\n")
    (site / "out.txt").symlink_to(tmp_path / "private.txt")
    (site / "outside").symlink_to(tmp_path, target_is_directory=True)
    return site


@pytest.fixture
def server(folder: Path) -> Iterator[SiteServer]:
    with SiteServer(folder, 0, allowed_hosts=("perf.example.org",)) as running:
        yield running


def _get(port: int, path: str, host: str | None = "", version: str = "HTTP/1.1") -> int | None:
    """The status of ``GET path`` sent as it is (None: no answer at all)."""
    lines = [f"GET {path} {version}"]
    if host is not None:
        lines.append(f"Host: {host or f'127.0.0.1:{port}'}")
    lines += ["Connection: close", "", ""]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall("\r\n".join(lines).encode("latin-1"))
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    if not answer:
        return None
    return int(answer.split(b" ", 2)[1])


def _body(server: SiteServer, path: str) -> str:
    with urllib.request.urlopen(server.url + path) as answer:
        return str(answer.read().decode())


def test_it_listens_on_loopback_only(server: SiteServer) -> None:
    assert server.address[0] == "127.0.0.1"
    assert server.url == f"http://127.0.0.1:{server.address[1]}/"
    assert "all series" in _body(server, "index.html")


def test_a_folder_is_never_listed(server: SiteServer) -> None:
    port = server.address[1]
    assert _get(port, "/series-1/") == 404
    assert _get(port, "/series-1/data/") == 404
    assert _get(port, "/series-1/setup.html") == 200
    assert _get(port, "/") == 200  # the index page


def test_only_this_servers_names_are_answered(server: SiteServer) -> None:
    port = server.address[1]
    for host in (f"localhost:{port}", "127.0.0.1", f"[::1]:{port}", "site.localhost"):
        assert _get(port, "/index.html", host=host) == 200, host
    assert _get(port, "/index.html", host="PERF.example.org.") == 200  # --allow-host
    for host in (f"evil.example.com:{port}", "127.0.0.1.nip.io", "localhost.evil.org", "x"):
        assert _get(port, "/index.html", host=host) == 403, host
    assert _get(port, "/index.html", host=None) == 400  # HTTP/1.1 requires a Host
    assert _get(port, "/index.html", host=None, version="HTTP/1.0") == 200


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("127.0.0.1:8000", "127.0.0.1"),
        ("[::1]:8000", "::1"),
        ("LocalHost.", "localhost"),
        ("evil.org:80", "evil.org"),
    ],
)
def test_host_names(header: str, name: str) -> None:
    assert host_name(header) == name


def test_odd_paths_are_refused_without_a_traceback(
    server: SiteServer, capfd: pytest.CaptureFixture[str]
) -> None:
    port = server.address[1]
    odd = [
        "/%00",
        "/index.html%00.txt",
        "/%1b%5b31m",
        "/series-1/%7f",
        "/..%2f..%2fprivate.txt",
        "/../private.txt",
        "/out.txt",
        "/outside/private.txt",
        "/%ff%fe",
        "/" + "a" * 5000,
        "//private.txt",
    ]
    statuses = {path[:40]: _get(port, path) for path in odd}
    assert all(status is not None and 400 <= status < 500 for status in statuses.values()), statuses
    assert "Traceback" not in capfd.readouterr().err
    assert "all series" in _body(server, "index.html")


def test_idle_connections_are_closed(folder: Path) -> None:
    with SiteServer(folder, 0, idle_timeout=0.5) as server:
        port = server.address[1]
        idle = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(200)]
        try:
            for sock in idle:  # each is closed by the server (EOF), none left waiting
                while sock.recv(4096):
                    pass
            assert _get(port, "/index.html") == 200
            # a connection that starts a request and stops is closed too
            with socket.create_connection(("127.0.0.1", port), timeout=30) as slow:
                slow.sendall(b"GET /index.html HTTP/1.1\r\nHost: localhost\r\n")
                assert slow.recv(4096) == b""
        finally:
            for sock in idle:
                sock.close()


def test_connections_past_the_limit_are_told_to_come_back(folder: Path) -> None:
    with SiteServer(folder, 0, idle_timeout=60, max_connections=20) as server:
        port = server.address[1]
        idle = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(25)]
        try:
            for sock in idle[20:]:  # answered at once, not left waiting
                assert sock.recv(4096).startswith(b"HTTP/1.0 503 Service Unavailable\r\n")
            for sock in idle[:20]:
                sock.close()
            deadline = time.monotonic() + 30
            while _get(port, "/index.html") != 200 and time.monotonic() < deadline:
                time.sleep(0.05)  # a closed connection's thread ends, its place is free
            assert _get(port, "/index.html") == 200
        finally:
            for sock in idle:
                sock.close()


def test_serving_goes_on_when_a_publish_fails(tmp_path: Path) -> None:
    path, url, daily = _config(tmp_path)
    config = load_config(path)
    out = tmp_path / "site"
    ready: list[str] = []
    published: list[PublishReport] = []
    failed: list[Exception] = []
    stop = threading.Event()
    serving = threading.Thread(
        target=serve_site,
        args=(config, out),
        kwargs={
            "port": 0,
            "interval": 0.05,
            "ready": lambda address, _report: ready.append(address),
            "published": published.append,
            "failed": failed.append,
            "stop": stop,
        },
    )
    outside = tmp_path / "outside"
    outside.mkdir()
    serving.start()
    try:
        deadline = time.monotonic() + 60
        while not ready and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready, "the server did not start"
        series = out / layout.series_dir(daily)
        kept = tmp_path / "kept"
        series.rename(kept)
        series.symlink_to(outside, target_is_directory=True)  # a planted link
        with Store.open(url) as store:
            add_daily_checkout(store, daily, 4)
        while not failed and time.monotonic() < deadline:
            time.sleep(0.05)
        assert failed, "the publish did not fail"
        assert isinstance(failed[0], PerfwalkError)
        assert f"{layout.series_dir(daily)} is a symbolic link" in str(failed[0])
        assert serving.is_alive()
        with urllib.request.urlopen(ready[0] + layout.INDEX) as answer:
            assert answer.status == 200
        assert list(outside.iterdir()) == []
        series.unlink()
        shutil.move(kept, series)
        count = len(published)
        while len(published) == count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(published) > count, "the publish was not tried again"
        data = (out / layout.checkout_data(daily, 0)).read_text(encoding="utf-8")
        assert '"idx":4,' in data
    finally:
        stop.set()
        serving.join(timeout=60)
    assert not serving.is_alive()
    assert list(outside.iterdir()) == []
