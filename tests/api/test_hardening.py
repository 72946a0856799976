"""The API under hostile clients, over real HTTP (`perfwalk api` as a process on
loopback): writes refused from their headers alone, slow and idle sockets cut off
with the server's memory bounded, foreign Host names refused, errors that name
nothing of the server in one shape, a store that is down told as 503, values
read a page at a time, the changes kept between writes, reads that cannot starve
pushes, large pushed files parsed off the event loop."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from tests.api.test_http import (
    MIB,
    Api,
    _read_answer,
    error_of,
    perfwalk,
    push_body,
    running_api,
)
from tests.services.walks import wait_for
from tests.store.conftest import _pg_schema_url, pg_admin, store_url

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
        time.sleep(2)  # the start-up probe's connection is gone
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


# -- D13: errors in one shape, naming nothing of the server -------------------------


def _regression(api: Api, token: str) -> str:
    """Pushes five commits at 100 ms then five at 130 ms; the change's id."""
    auth = {"Authorization": f"Bearer {token}"}
    for i in range(10):
        body = push_body(f"{i + 1:040x}", i + 1, 0.100 if i < 5 else 0.130)
        assert httpx.post(f"{api.url}/api/v1/push", json=body, headers=auth).status_code == 201
    [change] = httpx.get(f"{api.url}/api/v1/changes").json()["changes"]
    return str(change["id"])


def test_every_error_has_the_one_shape_and_names_nothing_of_the_server(api: Api) -> None:
    base = f"{api.url}/api/v1"
    pusher, triager = api.token("ci", "push"), api.token("ada", "triage")
    auth = {"Authorization": f"Bearer {pusher}"}
    change = _regression(api, pusher)
    expected = {
        f"{base}/series/999": (404, "series_id"),
        f"{base}/series/999/checkouts": (404, "series_id"),
        f"{base}/series/999/values": (404, "series_id"),
        f"{base}/series/0": (422, "series_id"),
        f"{base}/series/99999999999999999999": (422, "series_id"),
        f"{base}/changes?series=999": (404, "series"),
        f"{base}/changes?series=x": (422, "series"),
        f"{base}/nowhere": (404, "path"),
    }
    for url, (status, field) in expected.items():
        answer = httpx.get(url)
        assert (answer.status_code, _shaped(answer)["field"]) == (status, field), url
    method = httpx.delete(f"{base}/series")
    assert (method.status_code, _shaped(method)["field"]) == (405, "method")

    word = {"state": "expected", "reason": "by design"}
    for wrong in ("999:1", "1:999", "nonsense", change.replace(":", ":9")):
        refused = httpx.post(
            f"{base}/changes/{wrong}/triage",
            json=word,
            headers={"Authorization": f"Bearer {triager}"},
        )
        error = _shaped(refused)
        assert (refused.status_code, error["field"]) == (404, "change_id"), wrong
        assert change not in error["message"]  # the known ids are not listed

    for date in ("9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59"):
        pushed = httpx.post(
            f"{base}/push", json=push_body("c" * 40, 1, 0.1, date=date), headers=auth
        )
        assert (pushed.status_code, _shaped(pushed)["field"]) == (422, "date"), date

    bodies = {
        "not UTF-8": b'{"format": "\xff\xfe"}',
        "a 5000-digit integer": b'{"format": ' + b"1" * 5000 + b"}",
        "nested 1500 deep": b"[" * 1500 + b"]" * 1500,
        "nested 200 000 deep": b'{"a":' * 200_000,
        "UTF-16 junk": b"\xff\xfe" + "{junk".encode("utf-16-le"),
        "UTF-16 JSON of the wrong kind": "[1, 2]".encode("utf-16"),
        "not JSON": b"{",
        "a list": b"[1]",
    }
    for what, body in bodies.items():
        headers = {**auth, "Content-Type": "application/json"}
        answer = httpx.post(f"{base}/push", content=body, headers=headers)
        assert (answer.status_code, _shaped(answer)["field"]) == (422, "body"), what

    over = httpx.post(f"{base}/push", content=b"x" * (MIB + 1), headers=auth)
    assert (over.status_code, _shaped(over)["field"]) == (413, "body")
    scope = httpx.post(f"{base}/push", json={}, headers={"Authorization": f"Bearer {triager}"})
    assert (scope.status_code, _shaped(scope)["field"]) == (403, "authorization")
    for request in (
        b"GET /api/v1/series HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n",
        b"HELLO\r\n\r\n",
        b"GET /api/v1/series HTTP/1.1\r\n\r\n",  # no Host
    ):
        status, error = _raw_error(_raw(api, request))
        assert status == 400, request
        assert not any(word in error["message"].lower() for word in INTERNALS)
    if "postgresql" not in api.config.read_text():
        jobs = httpx.get(f"{base}/jobs")
        assert (jobs.status_code, _shaped(jobs)["field"]) == (501, None)


def test_a_damaged_store_is_a_500_in_the_shape_and_its_detail_in_the_log(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path}/store.db"
    with running_api(tmp_path, url) as api:
        token = api.token("ci", "push")
        pushed = httpx.post(
            f"{api.url}/api/v1/push",
            json=push_body("a" * 40, 1, 0.1),
            headers={"Authorization": f"Bearer {token}"},
        )
        assert pushed.status_code == 201
        engine = create_engine(url)
        with engine.begin() as conn:  # a row damaged behind the API's back
            conn.execute(text("UPDATE series SET fingerprint = '{not json'"))
        engine.dispose()
        broken = httpx.get(f"{api.url}/api/v1/series")
        assert (broken.status_code, _shaped(broken)["field"]) == (500, None)
        deadline = time.monotonic() + 30  # logged once answered
        while "JSONDecodeError" not in api.log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "JSONDecodeError" in api.log.read_text()


PG_SERVER = Path(__file__).resolve().parents[2] / "scripts" / "pg-server"


@pytest.fixture
def own_pg() -> Iterator[tuple[Path, str]]:
    """A PostgreSQL server of this test's own (scripts/pg-server), to stop and start;
    its folder and the URL of its database."""
    folder = Path(tempfile.mkdtemp(prefix="pwpg", dir="/tmp"))
    folder.chmod(0o755)
    try:
        started = _pg_server("start", folder)
        yield folder, started.stdout.strip()
    finally:
        _pg_server("stop", folder)
        shutil.rmtree(folder, ignore_errors=True)


def _pg_server(action: str, folder: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["bash", str(PG_SERVER), action, str(folder)],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0 or action == "stop", done.stderr
    return done


@pytest.mark.postgres
def test_a_store_that_is_down_is_503_for_every_read_and_write(
    tmp_path: Path, own_pg: tuple[Path, str]
) -> None:
    folder, url = own_pg
    with running_api(tmp_path, url) as api:
        base = f"{api.url}/api/v1"
        pusher = api.token("ci", "push")
        change = _regression(api, pusher)
        later = api.token("later", "push")  # never used before the server stops
        triager, submitter = api.token("ada", "triage"), api.token("lab", "submit")
        assert httpx.get(f"{base}/jobs").status_code == 200
        _pg_server("stop", folder)
        try:
            reads = ["/series", "/series/1", "/series/1/checkouts", "/series/1/values"]
            reads += ["/changes", "/changes?series=1", "/jobs"]
            for path in reads:
                answer = httpx.get(f"{base}{path}", timeout=60)
                assert (answer.status_code, _shaped(answer)["field"]) == (503, None), path
                assert answer.headers["retry-after"]
            writes = [
                ("/push", pusher, push_body("d" * 40, 20, 0.1)),  # a token known lately
                ("/push", later, push_body("d" * 40, 20, 0.1)),  # one to look up
                (f"/changes/{change}/triage", triager, {"state": "fixed", "reason": "x"}),
                ("/jobs", submitter, {"kind": "watch", "params": {}}),
            ]
            for path, token, body in writes:
                answer = httpx.post(
                    f"{base}{path}",
                    json=body,
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=60,
                )
                assert (answer.status_code, _shaped(answer)["field"]) == (503, None), path
        finally:
            _pg_server("start", folder)
        assert httpx.get(f"{base}/series", timeout=60).status_code == 200
        assert str(folder) in api.log.read_text()  # the detail is in the log


# -- D14: pages of values, the changes kept between writes, reads that wait ----------


@pytest.fixture
def pg_api(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Api, str]]:
    """`perfwalk api` over a PostgreSQL store of its own schema; and that store's URL."""
    for url in _pg_schema_url(request):
        with running_api(tmp_path, url) as started:
            yield started, url


def test_values_are_read_a_page_at_a_time(api: Api) -> None:
    base = f"{api.url}/api/v1"
    auth = {"Authorization": f"Bearer {api.token('ci', 'push')}"}
    for day in (1, 2, 3):
        pushed = httpx.post(f"{base}/push", json=push_body(f"{day:040x}", day, 0.1), headers=auth)
        assert pushed.status_code == 201
    [series] = httpx.get(f"{base}/series").json()
    first = f"{base}/series/{series['id']}/values"
    whole = httpx.get(f"{first}?limit=100000")
    assert "link" not in whole.headers
    pages, url = [], f"{first}?limit=4"
    while url:
        page = httpx.get(url)
        assert page.status_code == 200
        pages.append(page.json())
        link = page.headers.get("link")
        url = f"{api.url}{link.split(';')[0].strip('<>')}" if link else ""
    assert all(len(p) == 4 for p in pages[:-1])
    assert 1 <= len(pages[-1]) <= 4
    assert [v for p in pages for v in p] == whole.json()
    assert len(whole.json()) > 8
    for wrong in ("limit=0", "limit=100001", "offset=-1"):
        refused = httpx.get(f"{first}?{wrong}")
        assert (refused.status_code, _shaped(refused)["field"]) == (422, wrong.split("=")[0])


def _analyses(api: Api) -> int:
    return api.log.read_text().count("the changes made again")


def test_the_changes_are_analysed_again_only_after_a_write(api: Api) -> None:
    base = f"{api.url}/api/v1"
    pusher, triager = api.token("ci", "push"), api.token("ada", "triage")
    change = _regression(api, pusher)  # one analysis, to find its id
    first = httpx.get(f"{base}/changes").json()
    for _ in range(3):
        assert httpx.get(f"{base}/changes").json() == first
    assert _analyses(api) == 1
    assert httpx.get(f"{base}/changes?series=1").status_code == 200
    assert _analyses(api) == 2  # another selection, kept on its own

    body = push_body(f"{11:040x}", 11, 0.130)
    pushed = httpx.post(f"{base}/push", json=body, headers={"Authorization": f"Bearer {pusher}"})
    assert pushed.status_code == 201
    assert httpx.get(f"{base}/changes").json() != first
    assert _analyses(api) == 3

    word = {"state": "expected", "reason": "by design"}
    triaged = httpx.post(
        f"{base}/changes/{change}/triage", json=word, headers={"Authorization": f"Bearer {triager}"}
    )
    assert triaged.status_code == 201
    assert httpx.get(f"{base}/changes").json()["changes"][0]["triage"]["state"] == "expected"
    before = _analyses(api)
    # a write by another process on the same store: `perfwalk triage`
    argv = ["triage", change, "--state", "fixed", "--reason", "undone", "-c", str(api.config)]
    done = perfwalk(*argv)
    assert done.returncode == 0, done.stderr
    assert httpx.get(f"{base}/changes").json()["changes"][0]["triage"]["state"] == "fixed"
    assert _analyses(api) == before + 1


@pytest.mark.postgres
def test_reads_waiting_on_the_store_hold_back_neither_kept_answers_nor_pushes(
    pg_api: tuple[Api, str],
) -> None:
    """A table the analysis reads is locked: the changes already analysed are still
    answered (the analysis is not run again). Then 60 reads wait on the store: a push
    with a token the API has not seen yet is stored meanwhile."""
    api, store_url = pg_api
    base = f"{api.url}/api/v1"
    _regression(api, api.token("ci", "push"))
    kept = httpx.get(f"{base}/changes").json()
    fresh = api.token("late", "push")
    engine = create_engine(store_url)
    try:
        with engine.connect() as conn, conn.begin():
            conn.execute(text("SET lock_timeout = '120s'"))
            conn.execute(text("LOCK TABLE machine_state IN ACCESS EXCLUSIVE MODE"))
            assert httpx.get(f"{base}/changes", timeout=20).json() == kept
            conn.execute(text("LOCK TABLE triage IN ACCESS EXCLUSIVE MODE"))  # now they wait

            def read(_n: int) -> int:
                return httpx.get(f"{base}/changes?series=1", timeout=180).status_code

            with ThreadPoolExecutor(60) as pool:
                waiting = pool.map(read, range(60))
                time.sleep(2)  # all of them sent
                pushed = httpx.post(
                    f"{base}/push",
                    json=push_body(f"{12:040x}", 12, 0.130),
                    headers={"Authorization": f"Bearer {fresh}"},
                    timeout=30,
                )
                assert pushed.status_code == 201, pushed.text
                conn.rollback()  # the reads go on
                assert list(waiting) == [200] * 60
    finally:
        engine.dispose()
    assert len(httpx.get(f"{base}/series/1/checkouts").json()) == 11


@pytest.mark.postgres
def test_a_push_is_answered_while_a_triage_finds_its_change(pg_api: tuple[Api, str]) -> None:
    """A table the change analysis reads is locked: a triage and a read of the changes
    wait in their analyses (seen waiting on that lock), and a push of a newer commit
    meanwhile is stored and answered 201 (it waited behind the triage: the API's writer
    was held through the analysis). Once the table is free both analyses end in the
    state of the store they began in: the triage is stored, the changes answered (they
    failed with a 500: the values of the pushed checkout had no checkout read before)."""
    api, store_url = pg_api
    base = f"{api.url}/api/v1"
    pusher, triager = api.token("ci", "push"), api.token("ada", "triage")
    change = _regression(api, pusher)
    engine = create_engine(store_url)
    waiting_on_it = text(
        "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'machine_state'::regclass"
    )
    try:
        with engine.connect() as conn, ThreadPoolExecutor(2) as pool:
            conn.execute(text("SET lock_timeout = '120s'"))
            conn.execute(text("LOCK TABLE machine_state IN ACCESS EXCLUSIVE MODE"))
            triage = pool.submit(
                httpx.post,
                f"{base}/changes/{change}/triage",
                json={"state": "acknowledged", "reason": "looking"},
                headers={"Authorization": f"Bearer {triager}"},
                timeout=180,
            )
            read = pool.submit(httpx.get, f"{base}/changes?series=1", timeout=180)
            with engine.connect() as watcher:
                wait_for(
                    lambda: watcher.execute(waiting_on_it).scalar_one() == 2,
                    "the triage and the read to wait in their analyses",
                    timeout=60,
                )
            pushed = httpx.post(
                f"{base}/push",
                json=push_body(f"{12:040x}", 12, 0.130),
                headers={"Authorization": f"Bearer {pusher}"},
                timeout=60,
            )
            assert pushed.status_code == 201, pushed.text
            assert not triage.done()
            conn.rollback()  # the analyses go on
            triaged, changes = triage.result(), read.result()
    finally:
        engine.dispose()
    assert triaged.status_code == 201, triaged.text
    assert (triaged.json()["change"], triaged.json()["state"]) == (change, "acknowledged")
    assert changes.status_code == 200, changes.text
    assert [c["id"] for c in changes.json()["changes"]] == [change]
    assert len(httpx.get(f"{base}/series/1/checkouts").json()) == 11


def _cpu_ticks(pid: int, task: int) -> int:
    fields = Path(f"/proc/{pid}/task/{task}/stat").read_text().rpartition(")")[2].split()
    return int(fields[11]) + int(fields[12])  # utime, stime


def _all_ticks(pid: int) -> int:
    return sum(_cpu_ticks(pid, int(task)) for task in os.listdir(f"/proc/{pid}/task"))


def test_large_pushed_files_are_parsed_off_the_event_loop(tmp_path: Path) -> None:
    """Twenty pushes of 60 000 characters of ``{`` (the parsers' costliest text, each
    refused): the event loop's thread does a small share of the API's work; the
    parsing runs in other threads, so that other requests are served meanwhile."""
    with running_api(tmp_path, f"sqlite:///{tmp_path}/store.db") as api:
        auth = {"Authorization": f"Bearer {api.token('ci', 'push')}"}
        body = push_body("a" * 40, 1, 0.1, text="{" * 60_000)
        with httpx.Client(headers=auth, timeout=60) as client:
            client.get(f"{api.url}/api/v1/series")
            loop_before, all_before = _cpu_ticks(api.pid, api.pid), _all_ticks(api.pid)
            for _ in range(20):
                refused = client.post(f"{api.url}/api/v1/push", json=body)
                assert (refused.status_code, error_of(refused)["field"]) == (422, "text")
        on_loop = _cpu_ticks(api.pid, api.pid) - loop_before
        spent = _all_ticks(api.pid) - all_before
        print(f"the event loop's thread: {on_loop} of {spent} ticks")
        assert spent > 0
        assert on_loop < 0.5 * spent
