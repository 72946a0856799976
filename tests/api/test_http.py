"""The HTTP API over real HTTP: `perfwalk api` (uvicorn) as a process on loopback,
against a SQLite store and the PostgreSQL of the tests; tokens made by `perfwalk
tokens`, a push by `perfwalk push`; what was pushed found by `perfwalk changes`."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.store.conftest import pg_admin, store_url

__all__ = ["pg_admin", "store_url"]  # fixtures of this module too

MIB = 1 << 20


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def perfwalk(
    *argv: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "perfwalk", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        check=False,
    )


@dataclass
class Api:
    url: str
    config: Path
    log: Path
    pid: int

    def token(self, name: str, scope: str) -> str:
        done = perfwalk("tokens", "add", name, "--scope", scope, "-c", str(self.config))
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()


@contextmanager
def running_api(tmp_path: Path, store_url: str, settings: str = "") -> Iterator[Api]:
    """`perfwalk api` on a free loopback port (with more ``[api]`` ``settings``, TOML
    lines), stopped by its own PID at the end."""
    port = free_port()
    config = tmp_path / "perfwalk.toml"
    config.write_text(
        f'[project]\nname = "demo"\n\n[store]\nurl = "{store_url}"\n\n'
        f'[api]\nlisten = "127.0.0.1:{port}"\n{settings}\n'
        '[[test]]\nname = "latency"\ncommand = "./bench"\nparser = "hyperfine"\n',
        encoding="utf-8",
    )
    with serving(config) as started:
        yield started


@contextmanager
def serving(config: Path) -> Iterator[Api]:
    """`perfwalk api -c config` (listening on a loopback ``[api] listen``) until the
    block ends, stopped by its own PID; its log beside the configuration."""
    port = config.read_text(encoding="utf-8").split('listen = "127.0.0.1:')[1].split('"')[0]
    log = config.with_name("api.log")
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "perfwalk", "api", "-c", str(config)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{url}/api/v1/series", timeout=2)
                break
            except httpx.TransportError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"perfwalk api did not start:\n{log.read_text()}")
                time.sleep(0.1)
        yield Api(url, config, log, server.pid)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture
def api(tmp_path: Path, store_url: str) -> Iterator[Api]:
    """`perfwalk api` on a free loopback port, stopped by its own PID at the end."""
    with running_api(tmp_path, store_url) as started:
        yield started


def hyperfine(mean: float) -> str:
    return json.dumps(
        {
            "results": [
                {
                    "command": "./bench",
                    "mean": mean,
                    "stddev": mean / 100,
                    "median": mean,
                    "min": mean * 0.99,
                    "max": mean * 1.01,
                    "times": [mean] * 5,
                }
            ]
        }
    )


def push_body(commit: str, day: int, mean: float, **extra: Any) -> dict[str, Any]:
    return {
        "format": "hyperfine",
        "text": hyperfine(mean),
        "commit": commit,
        "date": f"2024-03-{day:02d}T12:00:00+01:00",
        "branch": "main",
        "host": "ci-1",
        **extra,
    }


def error_of(answer: httpx.Response) -> dict[str, Any]:
    found = answer.json()
    assert set(found) == {"error"}
    return dict(found["error"])


def test_reads_pushes_and_the_regression_in_changes(api: Api) -> None:
    base = f"{api.url}/api/v1"
    assert httpx.get(f"{base}/series").json() == []
    pusher, triager = api.token("ci", "push"), api.token("ada", "triage")

    without = httpx.post(f"{base}/push", json=push_body("a" * 40, 1, 0.1))
    assert without.status_code == 401
    assert error_of(without)["field"] == "authorization"
    bad = httpx.post(
        f"{base}/push", json=push_body("a" * 40, 1, 0.1), headers={"Authorization": "Bearer nope"}
    )
    assert bad.status_code == 401
    wrong_scope = httpx.post(
        f"{base}/push",
        json=push_body("a" * 40, 1, 0.1),
        headers={"Authorization": f"Bearer {triager}"},
    )
    assert wrong_scope.status_code == 403

    auth = {"Authorization": f"Bearer {pusher}"}
    missing = {k: v for k, v in push_body("a" * 40, 1, 0.1).items() if k != "commit"}
    malformed = httpx.post(f"{base}/push", json=missing, headers=auth)
    assert malformed.status_code == 422
    assert error_of(malformed)["field"] == "commit"
    naive = httpx.post(
        f"{base}/push", json=push_body("a" * 40, 1, 0.1, date="2024-03-01T12:00"), headers=auth
    )
    assert (naive.status_code, error_of(naive)["field"]) == (422, "date")
    garbage = httpx.post(f"{base}/push", json=push_body("a" * 40, 1, 0.1, text="{}"), headers=auth)
    assert (garbage.status_code, error_of(garbage)["field"]) == (422, "text")
    not_json = httpx.post(
        f"{base}/push", content=b"{", headers={**auth, "Content-Type": "application/json"}
    )
    assert not_json.status_code == 422

    # five commits at 100 ms, five at 130 ms, pushed out of order; one pushed twice
    commits = [f"{i:040x}" for i in range(1, 11)]
    means = [0.100, 0.101, 0.099, 0.100, 0.101, 0.130, 0.131, 0.129, 0.130, 0.131]
    order = [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 2]
    for i in order:
        done = httpx.post(f"{base}/push", json=push_body(commits[i], i + 1, means[i]), headers=auth)
        assert done.status_code == 201, done.text
    assert done.json()["repetition"] == 1  # the second push of commit 3: a repetition
    series = httpx.get(f"{base}/series").json()
    assert [(s["kind"], s["name"], s["host"]) for s in series] == [("push", "main on ci-1", "ci-1")]
    sid = series[0]["id"]
    assert httpx.get(f"{base}/series/{sid}").json()["project"] == "demo"
    checkouts = httpx.get(f"{base}/series/{sid}/checkouts").json()
    assert [c["commit"] for c in checkouts] == commits
    values = httpx.get(f"{base}/series/{sid}/values").json()
    assert len([v for v in values if v["name"] == "mean"]) == 11
    missing_series = httpx.get(f"{base}/series/999")
    assert (missing_series.status_code, error_of(missing_series)["field"]) == (404, "series_id")

    listed = perfwalk("changes", "--format", "json", "-c", str(api.config))
    assert listed.returncode == 1, listed.stderr  # an untriaged regression
    changes = json.loads(listed.stdout)["changes"]
    assert [
        (c["series"], c["kind"], c["before"]["commit"], c["after"]["commit"]) for c in changes
    ] == [(sid, "regression", commits[4], commits[5])]
    served = httpx.get(f"{base}/changes").json()
    assert served == json.loads(listed.stdout)

    change = changes[0]["id"]
    word = {"state": "expected", "reason": "the new checksum is slower by design"}
    assert httpx.post(f"{base}/changes/{change}/triage", json=word, headers=auth).status_code == 403
    triaged = httpx.post(
        f"{base}/changes/{change}/triage", json=word, headers={"Authorization": f"Bearer {triager}"}
    )
    assert triaged.status_code == 201, triaged.text
    assert triaged.json()["who"] == "token ada"
    assert httpx.get(f"{base}/changes").json()["changes"][0]["triage"]["state"] == "expected"
    assert perfwalk("changes", "-c", str(api.config)).returncode == 0

    jobs = httpx.get(f"{base}/jobs")
    if "postgresql" not in api.config.read_text():  # one process, no queue
        assert jobs.status_code == 501
        assert "no job queue" in error_of(jobs)["message"]
    else:  # team mode: the queue lives in the store's database
        assert (jobs.status_code, jobs.json()) == (200, [])
        body = {"kind": "watch", "params": {}}
        assert httpx.post(f"{base}/jobs", json=body).status_code == 401
        submitter = {"Authorization": f"Bearer {api.token('lab', 'submit')}"}
        queued = httpx.post(f"{base}/jobs", json=body, headers=submitter)
        assert queued.status_code == 202, queued.text
        wrong = httpx.post(f"{base}/jobs", json={"kind": "nosuch"}, headers=submitter)
        assert (wrong.status_code, error_of(wrong)["field"]) == (422, "kind")
        [job] = httpx.get(f"{base}/jobs").json()
        assert (job["id"], job["kind"], job["state"]) == (queued.json()["id"], "watch", "queued")
    described = httpx.get(f"{base}/openapi.json").json()
    assert {"/api/v1/push", "/api/v1/changes", "/api/v1/series/{series_id}/values"} <= set(
        described["paths"]
    )
    log = api.log.read_text()
    assert "POST /api/v1/push" in log
    assert pusher not in log
    assert triager not in log


def _read_answer(sock: socket.socket) -> str:
    """What the server sent until it closed the connection."""
    got = b""
    try:
        while chunk := sock.recv(65536):
            got += chunk
    except OSError:  # reset after the answer: what came before it counts
        pass
    return got.decode()


def test_a_body_over_the_limit_is_refused_before_it_is_read(api: Api) -> None:
    token = api.token("ci", "push")
    port = int(api.url.rsplit(":", 1)[1])
    head = (
        "POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {token}\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:  # announced
        sock.sendall(f"{head}Content-Length: {10 * MIB}\r\n\r\n".encode() + b"{" * 1000)
        answer = _read_answer(sock)
    assert answer.startswith("HTTP/1.1 413")
    assert '"field":"body"' in answer.replace(" ", "")
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:  # streamed
        sock.sendall(f"{head}Transfer-Encoding: chunked\r\n\r\n".encode())
        chunk = b"%x\r\n%s\r\n" % (64 * 1024, b" " * 64 * 1024)
        for _ in range(160):  # 10 MiB, unless answered first
            if select.select([sock], [], [], 0)[0]:  # the answer came: stop sending
                break
            sock.sendall(chunk)
            time.sleep(0.001)
        answer = _read_answer(sock)
    assert answer.startswith("HTTP/1.1 413")


def test_perfwalk_push_end_to_end(api: Api, tmp_path: Path) -> None:
    token = api.token("ci", "push")
    result = tmp_path / "bench.json"
    result.write_text(
        json.dumps(
            {
                "machine_info": {},
                "benchmarks": [
                    {
                        "name": "test_parse",
                        "stats": {
                            "min": 0.001,
                            "max": 0.003,
                            "mean": 0.002,
                            "median": 0.002,
                            "stddev": 0.0001,
                            "ops": 500.0,
                        },
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    argv = ["push", str(result), "--commit", "b" * 40, "--branch", "main", "--host", "ci-2"]
    refused = perfwalk(*argv, "--api", api.url, env={"PERFWALK_TOKEN": "wrong"}, cwd=tmp_path)
    assert refused.returncode == 2
    assert "401" in refused.stderr
    assert "wrong" not in refused.stderr
    done = perfwalk(
        *argv,
        "--api",
        api.url,
        "--date",
        "2024-03-01T10:00:00Z",
        env={"PERFWALK_TOKEN": token},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "pushed 6 values" in done.stdout
    series = httpx.get(f"{api.url}/api/v1/series").json()
    assert [(s["name"], s["kind"]) for s in series] == [("main on ci-2", "push")]
    values = httpx.get(f"{api.url}/api/v1/series/{series[0]['id']}/values").json()
    assert {(v["test"], v["name"], v["value"]) for v in values} >= {
        ("pytest-benchmark", "test_parse.mean", 0.002)
    }
    # no date and no repository that knows the commit: now, and said so
    later = perfwalk(*argv, "--api", api.url, env={"PERFWALK_TOKEN": token}, cwd=tmp_path)
    assert later.returncode == 0, later.stderr
    assert f"commit {'b' * 40} is not in a git repository" in later.stderr


def test_perfwalk_push_in_a_checkout_takes_the_commit_from_it(api: Api, tmp_path: Path) -> None:
    """In CI's checkout, ``--commit HEAD`` is pushed as the commit's full id with its
    own date (not the time of the push): pushes of older commits fall into place."""
    token = api.token("ci", "push")
    checkout = tmp_path / "checkout"
    (checkout / "src").mkdir(parents=True)
    dates = {"one": "2024-02-01T09:00:00+01:00", "two": "2024-02-03T09:00:00+01:00"}
    git = ["git", "-c", "user.name=Ada", "-c", "user.email=ada@lab"]
    subprocess.run([*git, "init", "-q", "-b", "main", str(checkout)], check=True)
    ids = {}
    for subject, date in dates.items():
        (checkout / "src" / "file").write_text(subject, encoding="utf-8")
        subprocess.run([*git, "-C", str(checkout), "add", "-A"], check=True)
        env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        subprocess.run(
            [*git, "-C", str(checkout), "commit", "-q", "-m", subject], check=True, env=env
        )
        ids[subject] = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    result = tmp_path / "hyperfine.json"
    result.write_text(
        json.dumps({"results": [{"command": "sleep 0", "mean": 0.1, "times": [0.1, 0.1]}]}),
        encoding="utf-8",
    )
    push = ["push", str(result), "--branch", "main", "--host", "ci-3", "--api", api.url]
    newer = perfwalk(*push, "--commit", "HEAD", env={"PERFWALK_TOKEN": token}, cwd=checkout / "src")
    older = perfwalk(
        *push, "--commit", "HEAD~1", "--repo", str(checkout), env={"PERFWALK_TOKEN": token}
    )
    assert newer.returncode == 0, newer.stderr
    assert older.returncode == 0, older.stderr
    assert "is not in a git repository" not in newer.stderr + older.stderr
    (series,) = httpx.get(f"{api.url}/api/v1/series").json()
    checkouts = httpx.get(f"{api.url}/api/v1/series/{series['id']}/checkouts").json()
    assert [(c["commit"], c["date"]) for c in checkouts] == [
        (ids["one"], "2024-02-01T08:00:00+00:00"),
        (ids["two"], "2024-02-03T08:00:00+00:00"),
    ]


def test_a_revoked_token_is_refused_at_once_and_a_new_one_accepted_at_once(api: Api) -> None:
    base = f"{api.url}/api/v1"
    with httpx.Client(headers={"Authorization": f"Bearer {api.token('ci', 'push')}"}) as ci:
        for day in (1, 2):  # the second push finds the token known to the API
            assert ci.post(f"{base}/push", json=push_body("a" * 40, day, 1.0)).status_code == 201
        revoked = perfwalk("tokens", "revoke", "ci", "-c", str(api.config))
        assert revoked.returncode == 0, revoked.stderr
        refused = ci.post(f"{base}/push", json=push_body("b" * 40, 3, 1.0))
        assert refused.status_code == 401, refused.text
        assert error_of(refused)["field"] == "authorization"
        assert "not known" in error_of(refused)["message"]
        again = ci.post(f"{base}/push", json=push_body("b" * 40, 3, 1.0))
        assert again.status_code == 401
    renewed = {"Authorization": f"Bearer {api.token('ci', 'push')}"}
    stored = httpx.post(f"{base}/push", json=push_body("b" * 40, 3, 1.0), headers=renewed)
    assert stored.status_code == 201, stored.text
    [series] = httpx.get(f"{base}/series").json()
    values = httpx.get(f"{base}/series/{series['id']}/values").json()
    # two pushes of a, one of b: the refused ones stored nothing
    assert sorted({(v["commit"][0], v["repetition_idx"]) for v in values}) == [
        ("a", 0),
        ("a", 1),
        ("b", 0),
    ]


def test_pushes_from_tokens_known_to_the_api_are_stored_once_each(api: Api) -> None:
    base = f"{api.url}/api/v1"
    headers = {"Authorization": f"Bearer {api.token('ci', 'push')}"}
    bodies = [push_body(f"{n:040x}", 1 + n % 9, 1.0 + n / 100) for n in range(24)]

    def push(body: dict[str, Any]) -> int:
        with httpx.Client(headers=headers) as client:
            return client.post(f"{base}/push", json=body).status_code

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(push, bodies)) == [201] * 24
    [series] = httpx.get(f"{base}/series").json()
    values = httpx.get(f"{base}/series/{series['id']}/values").json()
    means = sorted(v["value"] for v in values if v["name"] == "mean")
    assert means == sorted(1.0 + n / 100 for n in range(24))


def test_a_large_pushed_file_is_parsed_and_stored_or_refused_like_a_small_one(api: Api) -> None:
    base = f"{api.url}/api/v1"
    headers = {"Authorization": f"Bearer {api.token('ci', 'push')}"}
    document = json.loads(hyperfine(0.5))
    document["results"][0]["times"] = [0.5] * 20_000  # some 100 KiB: parsed in a thread
    large = push_body("a" * 40, 1, 0.5, text=json.dumps(document))
    assert len(large["text"]) > 64 * 1024
    stored = httpx.post(f"{base}/push", json=large, headers=headers)
    assert stored.status_code == 201, stored.text
    assert stored.json()["values"] > 0
    garbage = push_body("b" * 40, 2, 0.5, text="{" + "x" * 70_000)
    refused = httpx.post(f"{base}/push", json=garbage, headers=headers)
    assert (refused.status_code, error_of(refused)["field"]) == (422, "text")


def test_an_alert_group_is_triaged_at_once_over_http_and_a_member_apart(api: Api) -> None:
    """Two hosts push the same commits: the step both see is one group, which one
    POST triages (each change keeps its own word); a member triaged apart makes it
    "mixed"; an unknown group is a 404 naming the groups, a push token a 403."""
    base = f"{api.url}/api/v1"
    pusher, triager = api.token("ci", "push"), api.token("ada", "triage")
    commits = [f"{i:040x}" for i in range(1, 11)]
    means = [0.100, 0.101, 0.099, 0.100, 0.101, 0.130, 0.131, 0.129, 0.130, 0.131]
    for host in ("ci-1", "ci-2"):
        for i, mean in enumerate(means):
            done = httpx.post(
                f"{base}/push",
                json=push_body(commits[i], i + 1, mean, host=host),
                headers={"Authorization": f"Bearer {pusher}"},
            )
            assert done.status_code == 201, done.text
    listed = httpx.get(f"{base}/changes").json()
    (group,) = listed["groups"]
    print(group["id"], group["spread"], [m["change"] for m in group["members"]])
    assert group["id"] == f"{commits[4][:12]}..{commits[5][:12]}"
    assert (group["hosts"], group["needs_action"], group["triage"]) == (2, True, "untriaged")
    changes = sorted({m["change"] for m in group["members"]})  # each of its metrics a member
    assert [c.split(":")[0] for c in changes] == ["1", "2"]
    word = {"state": "acknowledged", "reason": "the new checksum is slower"}
    url = f"{base}/groups/{group['id']}/triage"
    pushing = httpx.post(url, json=word, headers={"Authorization": f"Bearer {pusher}"})
    assert pushing.status_code == 403
    by = {"Authorization": f"Bearer {triager}"}
    unknown = httpx.post(f"{base}/groups/beefbeef/triage", json=word, headers=by)
    assert (unknown.status_code, error_of(unknown)["field"]) == (404, "group_id")
    triaged = httpx.post(url, json=word, headers=by)
    assert triaged.status_code == 201, triaged.text
    answer = triaged.json()
    assert (answer["group"], answer["who"]) == (group["id"], "token ada")
    assert sorted(c["change"] for c in answer["changes"]) == changes
    assert {c["triage"]["state"] for c in httpx.get(f"{base}/changes").json()["changes"]} == {
        "acknowledged"
    }
    apart = changes[1]
    fixed = {"state": "fixed", "reason": "reverted on this host"}
    assert httpx.post(f"{base}/changes/{apart}/triage", json=fixed, headers=by).status_code == 201
    (after,) = httpx.get(f"{base}/changes").json()["groups"]
    assert (after["triage"], after["needs_action"]) == ("mixed", False)
