"""The API under hostile clients, over real HTTP (`perfwalk api` as a process on
loopback): writes refused from their headers alone, slow and idle sockets cut off
with the server's memory bounded, foreign Host names refused."""

from __future__ import annotations

import contextlib
import json
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.test_http import (
    MIB,
    Api,
    _read_answer,
    error_of,
    push_body,
    running_api,
)
from tests.store.conftest import pg_admin, store_url

__all__ = ["api", "pg_admin", "store_url"]  # fixtures of this module too

#: what no error may tell a client about the server
INTERNALS = ("result store", "sqlite", "store.db", "postgres", "pwpg", "host=", "/tmp")


@pytest.fixture
def api(tmp_path: Path, store_url: str) -> Iterator[Api]:
    with running_api(tmp_path, store_url) as started:
        yield started


def _port(api: Api) -> int:
    return int(api.url.rsplit(":", 1)[1])


def _raw(api: Api, request: bytes, *, timeout: float = 20) -> str:
    """What the API answers to ``request`` sent as it is, until it closes."""
    with socket.create_connection(("127.0.0.1", _port(api)), timeout=timeout) as sock:
        sock.sendall(request)
        return _read_answer(sock)


def _shaped(answer: httpx.Response) -> dict[str, Any]:
    """The error of an answer, checked to be in the one documented shape and to name
    nothing of the server."""
    error = error_of(answer)
    assert set(error) == {"field", "message"}, error
    assert error["field"] is None or isinstance(error["field"], str)
    assert not any(word in error["message"].lower() for word in INTERNALS), error
    return error


def _raw_error(answer: str) -> tuple[int, dict[str, Any]]:
    """The status and the error of a raw answer, checked for the shape."""
    status = int(answer.split(" ", 2)[1])
    body = json.loads(answer.partition("\r\n\r\n")[2])
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"field", "message"}, body
    return status, body["error"]


# -- D4: writes refused from their headers; slow sockets; the connection cap ----------


def test_a_write_without_a_valid_token_is_refused_before_its_body_is_read(api: Api) -> None:
    base = f"{api.url}/api/v1"
    empty = httpx.post(f"{base}/push", json={})
    assert (empty.status_code, _shaped(empty)["field"]) == (401, "authorization")
    assert empty.headers["www-authenticate"] == "Bearer"
    triager = api.token("ada", "triage")
    pusher = api.token("ci", "push")
    head = "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    cases = [  # (path, Authorization, status): the body announced is never sent
        ("/api/v1/push", "", 401),
        ("/api/v1/push", "Authorization: Bearer pwk_nosuchtoken\r\n", 401),
        ("/api/v1/push", f"Authorization: Bearer {triager}\r\n", 403),
        ("/api/v1/changes/1:1/triage", "", 401),
        ("/api/v1/changes/1:1/triage", f"Authorization: Bearer {pusher}\r\n", 403),
        ("/api/v1/jobs", "", 401),
        ("/api/v1/jobs", f"Authorization: Bearer {pusher}\r\n", 403),
    ]
    for path, authorization, status in cases:
        request = head.format(path=path) + authorization + f"Content-Length: {MIB - 1}\r\n\r\n"
        answer = _raw(api, request.encode(), timeout=20)
        assert answer.startswith(f"HTTP/1.1 {status} "), (path, authorization, answer[:200])
        assert _raw_error(answer)[1]["field"] == "authorization"


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def test_slow_sockets_are_closed_in_time_and_hold_no_memory(tmp_path: Path) -> None:
    """150 sockets announce a 1 MiB push without a token and send all of it but the
    last byte; 150 send their headers a byte at a time. The API's memory stays
    bounded, it closes every one of them within [api] read_timeout (with slack for
    a loaded machine), and serves a normal client meanwhile."""
    settings = "read_timeout = 3\nmax_connections = 1000\n"
    with running_api(tmp_path, f"sqlite:///{tmp_path}/store.db", settings) as api:
        port = _port(api)
        before = _rss_kib(api.pid)
        started = time.monotonic()
        announce = (
            "POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {MIB}\r\n\r\n"
        ).encode()
        bodies, trickles = [], []
        for _ in range(150):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(announce)
            bodies.append(sock)
        chunk = b" " * (64 * 1024)
        for round_ in range(16):  # 1 MiB but its last byte, slowly
            for sock in bodies:
                with contextlib.suppress(OSError):  # answered and closed: no more to send
                    sock.sendall(chunk if round_ < 15 else chunk[:-1])
            time.sleep(0.05)
        for _ in range(150):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            trickles.append(sock)
        grown = (_rss_kib(api.pid) - before) // 1024
        served = httpx.get(f"{api.url}/api/v1/series", timeout=30)
        assert served.status_code == 200

        answers: dict[socket.socket, bytes] = dict.fromkeys(bodies + trickles, b"")
        still, trickling = set(answers), set(trickles)
        deadline = started + 3 + 30  # the timeout, and slack for a loaded machine
        while still and time.monotonic() < deadline:
            readable, _, _ = select.select(list(still), [], [], 0.5)
            for sock in readable:
                try:
                    got = sock.recv(65536)
                except OSError:
                    got = b""
                answers[sock] += got
                if not got:
                    still.discard(sock)
            for sock in trickling & still - set(readable):
                try:
                    sock.send(b"x")
                except OSError:  # closed: its answer is read above
                    trickling.discard(sock)
        took = time.monotonic() - started
        for sock in answers:
            sock.close()
        print(f"RSS grew by {grown} MiB; {len(still)} of 300 sockets open after {took:.1f} s")
        assert grown < 64, f"the API's memory grew by {grown} MiB"
        assert not still, f"{len(still)} of 300 slow sockets still open after {took:.0f} s"
        assert all(answers[s].startswith(b"HTTP/1.1 401 ") for s in bodies)
        timed_out = [answers[s].decode() for s in trickles]
        assert all(a.startswith("HTTP/1.1 408 ") for a in timed_out), timed_out[0][:300]
        assert _raw_error(timed_out[0])[1]["field"] is None
        assert httpx.get(f"{api.url}/api/v1/series", timeout=30).status_code == 200


def test_a_slow_body_with_a_token_times_out_too(tmp_path: Path) -> None:
    with running_api(tmp_path, f"sqlite:///{tmp_path}/store.db", "read_timeout = 2\n") as api:
        token = api.token("ci", "push")
        request = (
            "POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {token}\r\nContent-Length: 1000\r\n\r\n" + "{" * 10
        )
        started = time.monotonic()
        answer = _raw(api, request.encode(), timeout=60)
        assert answer.startswith("HTTP/1.1 408 "), answer[:300]
        assert time.monotonic() - started < 40


def test_connections_over_the_cap_are_answered_503_at_once(tmp_path: Path) -> None:
    settings = "read_timeout = 2\nmax_connections = 3\n"
    with running_api(tmp_path, f"sqlite:///{tmp_path}/store.db", settings) as api:
        time.sleep(0.5)  # the start-up probe's connection is gone
        idle = []
        for _ in range(3):
            sock = socket.create_connection(("127.0.0.1", _port(api)), timeout=0.5)
            sock.sendall(b"GET /api/v1/series HTTP/1.1\r\n")  # and no more
            idle.append(sock)
        for sock in idle:  # accepted, waiting for the rest
            with pytest.raises(TimeoutError):
                sock.recv(100)
        answer = _raw(api, b"GET /api/v1/series HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert answer.startswith("HTTP/1.1 503 "), answer[:300]
        assert _raw_error(answer)[0] == 503
        for sock in idle:  # cut off by the read timeout, then there is room again
            sock.settimeout(40)
            assert _read_answer(sock).startswith("HTTP/1.1 408 ")
            sock.close()
        assert httpx.get(f"{api.url}/api/v1/series", timeout=30).status_code == 200


# -- D19: the Host header ------------------------------------------------------------


def test_a_foreign_host_name_is_refused(tmp_path: Path) -> None:
    settings = 'allowed_hosts = ["perf.example.org"]\n'
    with running_api(tmp_path, f"sqlite:///{tmp_path}/store.db", settings) as api:
        port = _port(api)
        series = f"{api.url}/api/v1/series"
        for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example", "x"):
            refused = httpx.get(series, headers={"Host": host})
            assert (refused.status_code, _shaped(refused)["field"]) == (403, "host"), host
        token = api.token("ci", "push")
        write = httpx.post(
            f"{api.url}/api/v1/push",
            json=push_body("a" * 40, 1, 0.1),
            headers={"Host": "evil.example", "Authorization": f"Bearer {token}"},
        )
        assert write.status_code == 403
        for host in (
            f"127.0.0.1:{port}",
            f"localhost:{port}",
            "LOCALHOST.",
            f"[::1]:{port}",
            "app.localhost",
            "perf.example.org",
            f"perf.example.org:{port}",
        ):
            assert httpx.get(series, headers={"Host": host}).status_code == 200, host
        assert httpx.get(series).json() == []  # the write refused stored nothing
