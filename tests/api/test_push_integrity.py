"""What a push may store and how its changes are named, over real HTTP (`perfwalk api`
on loopback), a real git repository, SQLite and PostgreSQL:

- git's words win over a push's claim (a walk replaces it; the API's clone of the
  project gives them from the start, and places the checkout by git's date);
- a date far from the API's clock is refused, and a regression pushed at the tip is
  found beside a branch that tried to push a 9999 date;
- a push series' change ids and triage keys do not move when older commits are
  pushed after them;
- the bounds of a push (values, push series per project), commit ids that are not
  object ids, negative values, bidi overrides;
- `perfwalk push` shows neither a server's escapes nor an `--api` password.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from tests.api.test_http import error_of, free_port, hyperfine, perfwalk, serving
from tests.fixtures.synthetic_repo import CommitSpec, git, make_repo
from tests.store.conftest import pg_admin, store_url

__all__ = ["pg_admin", "store_url"]  # fixtures of this module too

BENCH = '#!/bin/sh\ncd "$(dirname "$0")" || exit 1\necho "VALUE $(cat value.txt) ms latency"\n'
FORGED_SUBJECT = 'Revert "fix buffer overflow" (approved by security team)'
FORGED_AUTHOR = "Trusted Maintainer <maint@example.org>"


def _config(tmp_path: Path, store: str, repo: Path, extra: str = "") -> Path:
    config = tmp_path / "perfwalk.toml"
    config.write_text(
        f'[project]\nname = "demo"\nrepo = "{repo}"\n\n[store]\nurl = "{store}"\n\n'
        f'[api]\nlisten = "127.0.0.1:{free_port()}"\n{extra}\n'
        '[build]\nsteps = []\n\n[run]\nrepetitions = 1\nstep = "commit"\n\n'
        '[[test]]\nname = "latency"\ncommand = "sh bench.sh"\nparser = "value"\n',
        encoding="utf-8",
    )
    return config


@contextmanager
def served(config: Path) -> Iterator[str]:
    """`perfwalk api -c config` until the block ends; the base URL of its endpoints."""
    with serving(config) as api:
        yield f"{api.url}/api/v1"


def _token(config: Path) -> dict[str, str]:
    done = perfwalk("tokens", "add", "ci", "--scope", "push,triage", "-c", str(config))
    assert done.returncode == 0, done.stderr
    return {"Authorization": f"Bearer {done.stdout.strip()}"}


def _body(commit: str, date: str | None, mean: float, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "format": "hyperfine",
        "text": hyperfine(mean),
        "commit": commit,
        "branch": "main",
        "host": "ci-1",
        **extra,
    }
    if date is not None:
        body["date"] = date
    return body


def _commits(start: datetime, count: int, first: int = 1) -> list[CommitSpec]:
    return [
        CommitSpec(
            date=start + timedelta(days=n),
            message=f"commit {first + n}: real subject\n\nwhat git keeps of it\n",
            files={"value.txt": f"{100 + n}\n", "bench.sh": BENCH},
            author="Tester <tester@example.org>",
        )
        for n in range(count)
    ]


def _export(config: Path) -> dict[str, Any]:
    done = perfwalk("export", "--format", "json", "-c", str(config))
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def _told(document: dict[str, Any], sha: str) -> set[tuple[str, str, str]]:
    """(subject, author, date) of every commit ``sha`` the export lists, in any series."""
    return {
        (c["subject"], c["author"], c["date"])
        for series in document["series"]
        for checkout in series["checkouts"]
        for c in checkout["commits"]
        if c["id"] == sha
    }


def test_what_git_says_wins_over_what_a_push_claimed(tmp_path: Path, store_url: str) -> None:
    """A forged subject and author (D3): stored as the push's claim where the API's
    clone does not know the commit, and replaced by git's words when a walk reaches
    it; git's words from the start where the clone knows it, the checkout placed by
    git's date, not the pushed one."""
    start = datetime(2024, 1, 1, 12, tzinfo=UTC)
    repo, ahead = tmp_path / "repo", tmp_path / "ahead"
    ids = make_repo(repo, _commits(start, 3))
    subprocess.run(["git", "clone", "-q", str(repo), str(ahead)], check=True)
    (new,) = make_repo(ahead, _commits(start + timedelta(days=3), 1, first=4))  # not in repo
    config = _config(tmp_path, store_url, repo)
    with served(config) as base:
        auth = _token(config)
        for commit in (new, ids[1]):
            forged = _body(
                commit,
                "2024-06-30T12:00:00+00:00",
                0.1,
                subject=FORGED_SUBJECT,
                author=FORGED_AUTHOR,
            )
            stored = httpx.post(f"{base}/push", json=forged, headers=auth)
            assert stored.status_code == 201, stored.text
        claimed = _told(_export(config), new)
        assert claimed == {(FORGED_SUBJECT, FORGED_AUTHOR, "2024-06-30T12:00:00+00:00")}
        # the clone knows ids[1]: git's words and date from the start, by a prefix too
        again = httpx.post(f"{base}/push", json=_body(ids[1][:10], None, 0.1), headers=auth)
        assert again.status_code == 201, again.text
        assert again.json()["repetition"] == 1  # the same checkout: the full id
        known = _told(_export(config), ids[1])
        assert known == {
            ("commit 2: real subject", "Tester <tester@example.org>", _git_date(repo, ids[1]))
        }
        [series] = httpx.get(f"{base}/series").json()
        placed = httpx.get(f"{base}/series/{series['id']}/checkouts").json()
        assert [c["commit"] for c in placed] == [ids[1], new]  # git's 2024-01-02, not June
    site = tmp_path / "site"
    assert "Trusted Maintainer" in _published(config, site)  # the claim, as the push's
    git(repo, "pull", "-q", "--ff-only", str(ahead), "main")  # the clone learns the commit
    walked = perfwalk("run", "--from", ids[0], "-c", str(config))
    assert walked.returncode == 0, walked.stderr
    document = _export(config)
    told = {("commit 4: real subject", "Tester <tester@example.org>", _git_date(repo, new))}
    assert _told(document, new) == told  # in the push series and in the walk
    texts = _published(config, site)  # the same site, brought up to date
    assert "commit 4: real subject" in texts
    assert "buffer overflow" not in texts
    assert "Trusted Maintainer" not in texts


def _published(config: Path, site: Path) -> str:
    """What `perfwalk report` writes under ``site``: every file's text."""
    done = perfwalk("report", "--out", str(site), "-c", str(config))
    assert done.returncode == 0, done.stderr
    return "".join(p.read_text(errors="replace") for p in site.rglob("*") if p.is_file())


def _git_date(repo: Path, sha: str) -> str:
    return datetime.fromisoformat(git(repo, "log", "-1", "--format=%cI", sha)).isoformat()


def _sha(tag: int, n: int) -> str:
    """A commit id as git makes them: no two share their first hex digits."""
    return hashlib.sha1(f"{tag}:{n}".encode()).hexdigest()


def _changes(config: Path) -> list[dict[str, Any]]:
    listed = perfwalk("changes", "--format", "json", "-c", str(config))
    assert listed.returncode in (0, 1), listed.stderr
    found: list[dict[str, Any]] = json.loads(listed.stdout)["changes"]
    return found


def test_a_date_far_from_the_clock_is_refused_and_the_tip_regression_found(
    tmp_path: Path, store_url: str
) -> None:
    """The report's fut-control / fut-attacked (D9): 12 commits on two branches, a
    regression from the 9th; fut-attacked also pushes a commit dated 9999, which is
    refused (422 naming date), so its regression at the tip is found as the other's."""
    config = _config(tmp_path, store_url, tmp_path)  # no clone of the project here
    with served(config) as base, httpx.Client(headers=_token(config)) as ci:
        for tag, branch in enumerate(("fut-control", "fut-attacked")):
            for n in range(12):
                for rep in range(2):
                    mean = (1.0 if n < 8 else 1.5) * (1 + rep / 1000)
                    date = f"2026-08-{n + 1:02d}T12:00:00+00:00"
                    body = _body(_sha(tag, n), date, mean, branch=branch, host="h")
                    assert ci.post(f"{base}/push", json=body).status_code == 201
        now = datetime.now(UTC)
        bad = [
            "9999-12-31T00:00:00+00:00",
            "9999-12-31T23:59:59-23:59",  # past year 9999 in UTC: was a 500
            "0001-01-01T00:00:00+23:59",
            "1969-12-31T23:59:59+00:00",
            (now + timedelta(days=2)).isoformat(),
        ]
        for date in bad:
            body = _body("f" * 40, date, 1.0, branch="fut-attacked", host="h")
            refused = ci.post(f"{base}/push", json=body)
            assert (refused.status_code, error_of(refused)["field"]) == (422, "date"), date
            assert "push_future" in error_of(refused)["message"]
        soon = _body("e" * 40, (now + timedelta(hours=1)).isoformat(), 1.5, branch="soon", host="h")
        assert ci.post(f"{base}/push", json=soon).status_code == 201  # within a day: a CI clock
        series = {s["name"]: s["id"] for s in ci.get(f"{base}/series").json()}
    found = {(c["series"], c["kind"], c["after"]["commit"]) for c in _changes(config)}
    assert (series["fut-control on h"], "regression", _sha(0, 8)) in found
    assert (series["fut-attacked on h"], "regression", _sha(1, 8)) in found


def test_change_ids_and_triage_hold_when_older_commits_are_pushed(
    tmp_path: Path, store_url: str
) -> None:
    """The report's backfill (D10): twelve commits with regressions at the 4th and the
    8th; the second is triaged by its id; four older commits are pushed; a triage by
    the id read before lands on the same change, and the ids listed do not move."""
    config = _config(tmp_path, store_url, tmp_path)
    start = datetime(2024, 5, 1, 12, tzinfo=UTC)

    def push(ci: httpx.Client, n: int, mean: float) -> None:
        body = _body(_sha(5, n), (start + timedelta(days=n)).isoformat(), mean)
        assert ci.post(f"{base}/push", json=body).status_code == 201

    with served(config) as base, httpx.Client(headers=_token(config)) as ci:
        for n in range(12):
            for rep in range(2):
                push(ci, n, (1.0 if n < 4 else 1.5 if n < 8 else 2.25) * (1 + rep / 1000))
        before = [(c["id"], c["after"]["commit"]) for c in _changes(config)]
        assert [after for _id, after in before] == [_sha(5, 4), _sha(5, 8)]
        second = before[1][0]
        word = {"state": "expected", "reason": "B is expected"}
        said = ci.post(f"{base}/changes/{second}/triage", json=word)
        assert said.status_code == 201, said.text
        for n in range(-4, 0):  # CI backfills four older commits
            for rep in range(2):
                push(ci, n, 1.0 * (1 + rep / 1000))
        after = [(c["id"], c["after"]["commit"]) for c in _changes(config)]
        assert after == before  # the same ids for the same changes
        assert (said.json()["before"], said.json()["after"]) == (_sha(5, 7), _sha(5, 8))
        again = ci.post(f"{base}/changes/{second}/triage", json={**word, "reason": "still B"})
        assert again.status_code == 201, again.text
        assert (again.json()["after"], again.json()["previous"]) == (_sha(5, 8), "expected")
        [series] = ci.get(f"{base}/series").json()
        by_index = f"{series['id']}:{8 + 4}"  # the other form names the same change
        history = perfwalk("triage", by_index, "--history", "-c", str(config))
        assert history.returncode == 0, history.stderr
        assert f"commits: {_sha(5, 7)}..{_sha(5, 8)}" in history.stdout
        assert "still B" in history.stdout
    states = {c["after"]["commit"]: (c["triage"] or {}).get("state") for c in _changes(config)}
    assert states == {_sha(5, 4): None, _sha(5, 8): "expected"}


def _many(count: int, mean: float = 0.1) -> str:
    """A hyperfine file of ``count`` commands: five values each."""
    results = [
        {"command": f"c{k}", "mean": mean, "median": mean, "min": mean, "max": mean, "stddev": 0}
        for k in range(count)
    ]
    return json.dumps({"results": results})


#: commit ids that are not object ids: names, paths, options, too short or long
NOT_IDS = ["HEAD", "....", "../../etc/passwd", "-" + "a" * 39, "abc", "g" * 40, "a" * 65]
NOT_IDS += ["a" * 20 + "/" + "a" * 19, "main", "a b" + "c" * 10, "%2e%2e%2fetc"]


def test_what_a_push_may_hold_is_bounded_and_checked(tmp_path: Path, store_url: str) -> None:
    """D14's bounds and D17: values per push and push series per project under the
    [api] settings, commit ids that are object ids, values finite and not negative;
    bidi overrides shown as escapes."""
    extra = "push_values = 50\npush_series = 3\n"
    config = _config(tmp_path, store_url, tmp_path, extra)
    day = "2024-03-01T12:00:00+00:00"
    with served(config) as base, httpx.Client(headers=_token(config)) as ci:

        def refused(body: dict[str, Any], field: str, says: str) -> None:
            answer = ci.post(f"{base}/push", json=body)
            assert (answer.status_code, error_of(answer)["field"]) == (422, field), answer.text
            assert says in error_of(answer)["message"]

        stored = ci.post(f"{base}/push", json=_body(_sha(7, 0), day, 0.1, text=_many(10)))
        assert (stored.status_code, stored.json()["values"]) == (201, 50)
        refused(_body(_sha(7, 1), day, 0.1, text=_many(11)), "text", "[api] push_values")
        for commit in NOT_IDS:
            refused(_body(commit, day, 0.1), "commit", "commit")
        for mean in (-100.0, -5e-324):
            refused(_body(_sha(7, 2), day, mean), "text", "finite and not negative")
        for mean in (0.0, 5e-324, 1e308):  # zero and the tiniest: kept as measured
            assert ci.post(f"{base}/push", json=_body(_sha(7, 3), day, mean)).status_code == 201
        upper = ci.post(f"{base}/push", json=_body(_sha(7, 0).upper(), day, 0.1))
        assert (upper.status_code, upper.json()["repetition"]) == (201, 1)  # the same commit
        shown = "fix \u202eslow\u202c"  # reads backwards on a terminal
        for branch in ("b2", shown):
            made = ci.post(f"{base}/push", json=_body(_sha(7, 4), day, 0.1, branch=branch))
            assert made.status_code == 201, made.text
        refused(_body(_sha(7, 4), day, 0.1, branch="b4"), "branch", "[api] push_series")
        again = ci.post(f"{base}/push", json=_body(_sha(7, 5), day, 0.1, branch="b2"))
        assert (again.status_code, again.json()["new_series"]) == (201, False)
        other = ci.post(f"{base}/push", json=_body(_sha(7, 5), day, 0.1, project="p2"))
        assert other.status_code == 201  # a bound per project
        assert len(ci.get(f"{base}/series").json()) == 4
    listed = perfwalk("list", "-c", str(config))
    assert listed.returncode == 0, listed.stderr
    assert "\u202e" not in listed.stdout
    assert "fix \\u202eslow\\u202c on ci-1" in listed.stdout


#: what a hostile (or a man-in-the-middle) API answers: escapes that set a terminal's
#: title, clear its screen, colour it, and reorder the text after them
HOSTILE = "\x1b[31mRED \x1b]0;OWNED-TITLE\x07\x1b[2J \u202eevil\x9b2J"


class _Hostile(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path.startswith("/deny"):
            status, body = 403, {"error": {"field": HOSTILE, "message": HOSTILE}}
        else:
            status, body = 201, {"values": HOSTILE, "series": HOSTILE, "checkout": 1}
        data = json.dumps(body, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: object) -> None:
        pass


def test_perfwalk_push_shows_no_server_escapes_and_no_api_password(tmp_path: Path) -> None:
    """D16: a server's answer is printed with its controls and bidi characters as
    visible escapes, and the password of an --api URL is never shown, whether the
    push is stored, refused or cannot reach the API; a name such as HEAD outside a
    checkout is refused before anything is sent."""
    result = tmp_path / "hyperfine.json"
    result.write_text(hyperfine(0.1), encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    secret = "ApiBasicS3cret"
    env = {"PERFWALK_TOKEN": "pwk_token"}

    def push(commit: str, api: str) -> subprocess.CompletedProcess[str]:
        argv = ["push", str(result), "--branch", "main", "--host", "ci", "--commit", commit]
        argv += ["--date", "2024-03-01T12:00:00Z", "--api", api]
        return perfwalk(*argv, env=env, cwd=tmp_path)

    closed = free_port()
    try:
        said = [
            push("a" * 40, f"http://u:{secret}@127.0.0.1:{where}")
            for where in (f"{port}", f"{port}/deny", f"{closed}")
        ]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    stored, denied, unreachable = said
    assert stored.returncode == 0, stored.stderr
    assert (denied.returncode, unreachable.returncode) == (2, 2)
    assert "pushed \\x1b[31mRED \\x1b]0;OWNED-TITLE\\x07" in stored.stdout
    assert "403" in denied.stderr
    assert "cannot reach the perfwalk API at http://u:***@127.0.0.1" in unreachable.stderr
    for done in said:
        shown = done.stdout + done.stderr
        assert secret not in shown
        assert not {"\x1b", "\x07", "\x9b", "\u202e"} & set(shown), ascii(shown)
    named = push("HEAD", f"http://127.0.0.1:{closed}")  # tmp_path is no git checkout
    assert named.returncode == 2
    assert "--commit 'HEAD' is not a commit id and no git repository" in named.stderr
