"""Team mode under faults, with real ``perfwalk worker`` processes on real PostgreSQL:
secrets kept out of the worker's output and the queue's tables when jobs fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.services.jobs import submit
from tests.fixtures.synthetic_repo import KnownHistory
from tests.fixtures.team import (
    Worker,
    perfwalk,
    pg_url,
    queue_rows,
    states,
    team_config,
    wait_for,
    workers,
)
from tests.store.conftest import pg_admin

__all__ = ["pg_admin", "pg_url", "workers"]

pytest.importorskip("procrastinate", reason="team mode needs procrastinate (pip install .)")

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(240)]

PASSWORD = "TeamPassw0rdXyz"
HOOK = "NotifyHookS3cret"
MATTERMOST = "3ccdd113474722377935511fc85d3dd4"
BUILD_TOKEN = "BuildEnvS3cretValue"


def _with_secrets(folder: Path, repo: KnownHistory, url: str) -> tuple[Config, list[str]]:
    """A configuration whose store URL has a password, whose [notify] URLs hold
    secrets and whose build has a secret environment value; and those secrets."""
    with_password = url.replace("://postgres@", f"://postgres:{PASSWORD}@", 1)
    assert with_password != url
    hook = f"json://hook:{HOOK}@127.0.0.1:9/ok"
    mattermost = f"mmost://127.0.0.1:9/{MATTERMOST}"
    config = team_config(
        folder,
        repo,
        with_password,
        "pool-a",
        extra=f'\n[notify]\nurls = ["{hook}", "{mattermost}"]\n',
    )
    path = Path(config.path)
    path.write_text(
        path.read_text().replace(
            'steps = ["sh build.sh"]',
            f'steps = ["sh build.sh"]\nenv = {{ UPLOAD_TOKEN = "{BUILD_TOKEN}" }}',
        )
    )
    return load_config(path), [PASSWORD, HOOK, MATTERMOST, BUILD_TOKEN, hook, mattermost]


def test_no_secret_in_the_worker_s_output_the_queue_or_an_error(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str, workers: list[Worker]
) -> None:
    """Jobs that fail (an unknown change, commits that do not exist): each is one line
    of the worker's output, without a traceback; no secret of the configuration is in
    that output, in any row of the queue's tables, or in the errors of the commands."""
    config, secrets = _with_secrets(tmp_path / "team", known_values_repo_copy, pg_url)
    path = str(config.path)
    failing = [
        submit(config, "drill", {"change": "99:99"}),
        submit(config, "drill", {"between": ["nosuchgood", "nosuchbad"]}),
        submit(config, "run", {"from_": "nosuchcommit"}),
        submit(config, "run", {"from_": "2024-01-09", "to": "nosuchtip"}),
        submit(config, "try", {"base": "nosuchbase"}),
    ]
    worker = Worker(config, "pool-a", tmp_path / "worker.log")
    workers.append(worker)
    wait_for(
        "the jobs to fail",
        lambda: all(states(config).get(job) == "failed" for job in failing),
        timeout=120,
    )
    outputs: list[str] = []
    codes: list[tuple[tuple[str, ...], int, int]] = []
    bad = Path(path).with_name("bad.toml")
    bad.write_text(Path(path).read_text().replace("/perfwalk_test?", "/nosuchdb?"))
    for argv, code in [
        (("jobs", "-c", path), 0),
        (("jobs", "cancel", "999999", "-c", path), 2),
        (("submit", "run", "--between", "touch x", "-c", path), 2),
        (("submit", "drill", "--change", "1:1\x1b[2J", "-c", path), 2),
        (("jobs", "-c", str(bad)), 2),
        (("submit", "watch", "-c", str(bad)), 2),
        (("status", "-c", str(bad)), 2),
    ]:
        done = perfwalk(*argv)
        outputs.append(done.stdout + done.stderr)
        codes.append((argv, code, done.returncode))
    worker.stop()
    said = worker.said()
    tables = queue_rows(config.store.url)
    assert {"procrastinate_jobs", "procrastinate_events"} <= set(tables)
    texts = [said, *outputs, *(row for found in tables.values() for row in found)]
    hits = sum(text.count(secret) for text in texts for secret in secrets)
    assert hits == 0, [s for s in secrets if any(s in t for t in texts)]
    assert [(argv, code) for argv, code, _ in codes] == [(argv, got) for argv, _, got in codes]
    assert "Traceback" not in said
    for job in failing:
        told = [line for line in said.splitlines() if line.startswith(f"job {job}: failed: ")]
        assert len(told) == 1, said
    assert "no change '99:99'" in said
    assert "postgresql+psycopg://postgres:***@" in said  # the store named, its password masked
