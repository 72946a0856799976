"""A fixed regress history for the matrix tests: two hosts, six nights each,
hostile test names, messages, logs and host names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from perfwalk.model import Log, Status
from perfwalk.store import Store
from perfwalk.store.regress import NewRegressResult, NewRegressRun
from tests.fixtures.synthetic_repo import KnownHistory

P, X, S, F, NE, NT = (
    Status.PASS,
    Status.XFAIL,
    Status.SKIP,
    Status.FAIL,
    Status.NOEXIT,
    Status.NOTERM,
)
HOSTILE_TEST = "<script>alert(1)</script>"
HOSTILE_HOST = "beta <i>x</i>"
HOSTILE_MESSAGE = "message <img src=x onerror=alert(3)>"
HOSTILE_LOG = b"<script>alert('log')</script> \x1b[31mred\x1b[0m \xff\xfe\n"
DAY0 = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)

#: per host, per test: the statuses of nights 0..5, oldest first (None: not run)
NIGHTS: dict[str, dict[str, list[Status | None]]] = {
    "alpha": {
        "always-passes": [P, P, P, P, P, P],
        "broke-recently": [P, P, P, P, F, F],
        "hangs": [NT, NT, NT, NT, NT, NT],
        "flaky": [P, F, P, F, P, F],
        HOSTILE_TEST: [P, P, P, P, P, F],
        "skipped": [S, S, S, S, S, S],
        "xfail": [X, X, X, X, X, X],
        "new-test": [None, None, None, None, None, NE],
    },
    HOSTILE_HOST: {
        "always-passes": [P, P, P, P, P, P],
        "broke-recently": [P, P, P, P, P, P],
        "hangs": [P, P, P, P, P, NT],
        "flaky": [P, P, P, P, P, P],
        HOSTILE_TEST: [F, F, F, F, F, F],
        "skipped": [S, S, S, S, S, S],
    },
}
ARCH = {"alpha": "amd64", HOSTILE_HOST: "arm64"}


def commit_of(repo: KnownHistory, host: str, night: int) -> str | None:
    """alpha tests every fifth commit of the known history; the other host knows none."""
    return repo.first_parent[5 * night] if host == "alpha" else None


def build_history(store: Store, repo: KnownHistory) -> dict[tuple[str, int], int]:
    """Store the history; the run id of each (host, night)."""
    ids = {}
    for night in range(6):
        for offset, (host, tests) in enumerate(NIGHTS.items()):
            started = DAY0 + timedelta(days=night, hours=offset)
            results = tuple(
                NewRegressResult(
                    test=name,
                    status=statuses[night],  # type: ignore[arg-type]
                    log=Log.of(HOSTILE_LOG if name == HOSTILE_TEST else f"{name}\n".encode()),
                    message=HOSTILE_MESSAGE if statuses[night] is F else "",
                    source=f"regress/{name}" if name.isalpha() else None,
                )
                for name, statuses in tests.items()
                if statuses[night] is not None
            )
            ids[(host, night)] = store.regress.add_run(
                NewRegressRun(
                    host=host,
                    started_at=started,
                    finished_at=started + timedelta(minutes=30),
                    results=results,
                    arch=ARCH[host],
                    os="TestOS 1.0",
                    kernel=f"TestOS 1.0 #{night} {ARCH[host]}",
                    build="stock" if host == "alpha" else "custom",
                    commit=commit_of(repo, host, night),
                    label="nightly",
                    fingerprint={"hostname": host, "cpu": "<b>cpu</b>"},
                    log=Log.of(b"runner output " + HOSTILE_LOG),
                )
            )
    return ids


def expected_columns() -> list[tuple[str, int]]:
    """(host, night) of every run, newest first, as the all-hosts page shows them."""
    return [(host, night) for night in reversed(range(6)) for host in reversed(list(NIGHTS))]
