"""Jobs submitted over real HTTP (`perfwalk api` on loopback) and with `perfwalk
submit`, on the tests' PostgreSQL, run by a real `perfwalk worker` process: a job
chooses only what the configuration allows and never carries a command; every
parameter is checked where it is submitted, the error naming it; the job records who
queued it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from perfwalk.composites.jobs import jobs, submit
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.orchestrate.session.queue import TASK, ensure_schema, lease_names, queue_app
from perfwalk.store import Store
from perfwalk.store.leases import user_at_machine
from tests.api.test_http import Api, free_port, serving
from tests.fixtures.synthetic_repo import KnownHistory
from tests.fixtures.team import (
    Worker,
    job_series,
    perfwalk,
    pg_url,
    states,
    team_config,
    wait_for,
    workers,
)
from tests.store.conftest import pg_admin

__all__ = ["pg_admin", "pg_url", "workers"]

pytest.importorskip("procrastinate", reason="team mode needs procrastinate (pip install .)")

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(180)]

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _configured(folder: Path, repo: KnownHistory, url: str, *, between: str = "keep") -> Config:
    """The configuration of the API and of the worker: one variant, one named walk,
    two more tests in the groups ``net`` and ``fs``, ``[run] between`` the worker's own."""
    extra = f"""
[api]
listen = "127.0.0.1:{free_port()}"

[[test]]
name = "tcp"
group = "net"
command = "sh bench.sh"
parser = "value"

[[test]]
name = "files"
group = "fs"
command = "sh bench.sh"
parser = "value"

[[walk]]
name = "nightly"
from = "2024-01-08"

[[variant]]
name = "tso-off"
[[variant.modifier]]
apply = ["echo 7 > {folder}/state"]
undo = ["rm -f {folder}/state"]
"""
    return team_config(folder, repo, url, "pool-a", extra=extra, between=between)


def _attacks(proof: Path) -> list[tuple[dict[str, Any], str]]:
    """Bodies of ``POST /api/v1/jobs`` that try to have a worker run a command (each
    would write ``proof``), with the field its 422 names."""
    commands = [
        f"id > {proof}",
        f"touch {proof}",
        f"$(touch {proof})",
        f"`touch {proof}`",
        f"keep; touch {proof}",
        f"rebuild && touch {proof}",
        f"keep\ntouch {proof}",
    ]
    touch = f"touch {proof}"
    evil_config = f'[build]\nsteps = ["{touch}"]\n[run]\nbetween = "{touch}"\n'
    run: list[tuple[dict[str, Any], str]] = [
        ({"between": command}, "params.between") for command in commands
    ]
    run += [
        ({"between": ["sh", "-c", touch]}, "params.between"),
        ({"between": {"command": touch}}, "params.between"),
        ({"build": [touch]}, "params.build"),
        ({"steps": [touch]}, "params.steps"),
        ({"build_steps": [touch]}, "params.build_steps"),
        ({"command": touch}, "params.command"),
        ({"test": {"name": "x", "command": touch}}, "params.test"),
        ({"tests": [{"name": "x", "command": touch}]}, "params.tests"),
        ({"config_text": evil_config}, "params.config_text"),
        ({"config": {"build": {"steps": [touch]}}}, "params.config"),
        ({"config_path": str(proof.parent / "evil.toml")}, "params.config_path"),
        ({"env": {"LD_PRELOAD": str(proof)}}, "params.env"),
        ({"modifiers": [{"apply": [touch], "undo": []}]}, "params.modifiers"),
        ({"variants": [{"name": "evil", "apply": [touch]}]}, "params.variants"),
        ({"variants": ["evil"]}, "params.variants"),
        ({"variants": ["tso-off", f"tso-off; {touch}"]}, "params.variants"),
        ({"walk": f"nightly; {touch}"}, "params.walk"),
        ({"from_": f"--upload-pack={touch}"}, "params.from_"),
        ({"to": f"$(touch {proof})"}, "params.to"),
        ({"to": f"HEAD`touch {proof}`"}, "params.to"),
        ({"step": touch}, "params.step"),
        ({"name": f"x\n[build]\nsteps = ['{touch}']"}, "params.name"),
        ({"resume": touch}, "params.resume"),
        ({"resume_series": 1}, "params.resume_series"),
    ]
    bodies = [({"kind": "run", "params": params}, field) for params, field in run]
    bodies += [
        ({"kind": "try", "params": {"base": "HEAD", "patches": [str(proof)]}}, "params.patches"),
        ({"kind": "try", "params": {"base": "HEAD", "patch": f"+{touch}"}}, "params.patch"),
        ({"kind": "try", "params": {"base": "HEAD", "variant": "evil"}}, "params.variant"),
        ({"kind": "try", "params": {"base": "HEAD", "head": f"--output={proof}"}}, "params.head"),
        ({"kind": "try", "params": {"base": "HEAD", "build_steps": [touch]}}, "params.build_steps"),
        ({"kind": "try", "params": {"base": f"$(touch {proof})"}}, "params.base"),
        ({"kind": "drill", "params": {"between": ["HEAD~1", f"HEAD;{touch}"]}}, "params.between"),
        ({"kind": "drill", "params": {"change": "1:1", "command": touch}}, "params.command"),
        ({"kind": "drill", "params": {"change": "1:1\x1b]0;x\x07"}}, "params.change"),
        ({"kind": "watch", "params": {"between": touch}}, "params.between"),
        ({"kind": "watch", "params": {"config_text": evil_config}}, "params.config_text"),
        ({"kind": "shell", "params": {"command": touch}}, "kind"),
        ({"kind": f"run; {touch}", "params": {}}, "kind"),
        ({"kind": "run", "params": {}, "config_text": evil_config}, "config_text"),
        ({"kind": "run", "params": [touch]}, "params"),
    ]
    return bodies


def _post_job(api: Api, token: str, body: Any) -> httpx.Response:
    return httpx.post(
        f"{api.url}/api/v1/jobs",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )


def _error(answer: httpx.Response) -> dict[str, Any]:
    found = answer.json()
    assert set(found) == {"error"}, found
    return dict(found["error"])


def test_a_job_can_carry_no_command(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str, workers: list[Worker]
) -> None:
    """Every command-carrying parameter is refused with 422 naming it, nothing is
    queued, and no command of a job ever runs; a command between repetitions is the
    worker's own [run] between; a job queued by an earlier version with the
    configuration's text is run with the worker's configuration (or refused, when its
    options carry a command); a job of another project is refused."""
    proof = tmp_path / "proof"
    marks = tmp_path / "between-marks"
    config = _configured(
        tmp_path / "team", known_values_repo_copy, pg_url, between=f"echo worker >> {marks}"
    )
    workers.append(Worker(config, "pool-a", tmp_path / "worker.log"))
    with serving(Path(config.path)) as api:
        token = api.token("lab", "submit")
        tried = 0
        for body, field in _attacks(proof):
            answer = _post_job(api, token, body)
            assert answer.status_code == 422, (body, answer.text)
            assert _error(answer)["field"] == field, (body, answer.text)
            tried += 1
        assert tried == 46  # parameter sets tried
        assert httpx.get(f"{api.url}/api/v1/jobs").json() == []  # nothing queued
        # what the configuration allows is queued, and says who queued it
        allowed = {"kind": "run", "params": {"from_": "2024-01-09", "repetitions": 2}}
        queued = _post_job(api, token, allowed)
        assert queued.status_code == 202, queued.text
        job_id = queued.json()["id"]
        [listed] = httpx.get(f"{api.url}/api/v1/jobs").json()
        project = config.project.name
        assert (listed["id"], listed["owner"], listed["project"]) == (job_id, "token lab", project)
    old_forms = _old_jobs(config, proof)
    other = _other_project(config)
    other_job = submit(other, "run", {"from_": "2024-01-09"})
    ended = {job_id, *old_forms, other_job}
    wait_for(
        "the jobs to end",
        lambda: all(states(config).get(j) in ("done", "failed") for j in ended),
        timeout=120,
    )
    found = states(config)
    assert found[job_id] == "done"
    assert found[old_forms[0]] == "done"  # its configuration text ignored
    assert found[old_forms[1]] == "failed"  # its between is a command
    assert found[other_job] == "failed"
    said = workers[0].said()
    assert f"job {old_forms[1]}: failed: params.between: expected one of keep, reboot, " in said
    assert f"job {other_job}: failed: the job is of project 'elsewhere', and this worker" in said
    assert not proof.exists()  # no command of a job ran
    # the worker's own [run] between ran between the repetitions of the allowed job
    assert marks.read_text().count("worker") >= 1
    listed_rows = perfwalk("jobs", "-c", str(config.path))
    assert re.search(
        rf"^\s*{job_id}\s+run\s+done\s+pool-a\s+box-pool-a\s+token lab\s", listed_rows.stdout, re.M
    ), listed_rows.stdout
    with Store.open(pg_url) as store:
        assert store.series(job_series(pg_url, job_id)).between == f"echo worker >> {marks}"


def _old_jobs(config: Config, proof: Path) -> list[int]:
    """Two jobs as an earlier version queued them: with the configuration's text (a
    build step and a between that write ``proof``), one with a between command in its
    options too."""
    touch = f"touch {proof}"
    text = re.sub(
        r"^between = .*$", f'between = "{touch}"', Path(config.path).read_text(), flags=re.M
    ).replace('steps = ["sh build.sh"]', f'steps = ["{touch}", "sh build.sh"]')
    assert text.count(touch) == 2
    old = {
        "kind": "run",
        "config_path": str(config.path),
        "config_text": text,
        "owner": "mallory@elsewhere",
        "hosts": list(lease_names(config)),
    }
    ensure_schema(config.store.url)
    app = queue_app(config.store.url)
    app.open()
    try:
        task = app.configure_task(name=TASK, queue="pool-a", lock="pool-a")
        return [
            int(task.defer(request={**old, "options": {"from_": "2024-01-09"}})),
            int(task.defer(request={**old, "options": {"from_": "2024-01-09", "between": touch}})),
        ]
    finally:
        app.close()


def _other_project(config: Config) -> Config:
    path = Path(config.path).parent / "other.toml"
    path.write_text(
        Path(config.path).read_text().replace("[project]\n", '[project]\nname = "elsewhere"\n')
    )
    return load_config(path)


#: Parameters of the wrong type or out of bounds, with the field their 422 names.
WRONG: list[tuple[str, dict[str, Any], str]] = [
    ("run", {"repetitions": "abc"}, "params.repetitions"),
    ("run", {"repetitions": True}, "params.repetitions"),
    ("run", {"repetitions": 1.5}, "params.repetitions"),
    ("run", {"repetitions": [1, 2]}, "params.repetitions"),
    ("run", {"repetitions": 0}, "params.repetitions"),
    ("run", {"repetitions": -3}, "params.repetitions"),
    ("run", {"repetitions": 10**9}, "params.repetitions"),
    ("run", {"repetitions": 10**30}, "params.repetitions"),
    ("run", {"to": {"a": 1}}, "params.to"),
    ("run", {"from_": 20240101}, "params.from_"),
    ("run", {"from_": ""}, "params.from_"),
    ("run", {"from_": "x" * 1000}, "params.from_"),
    ("run", {"step": "fortnightly"}, "params.step"),
    ("run", {"step": 7}, "params.step"),
    ("run", {"variants": "v1"}, "params.variants"),
    ("run", {"variants": "tso-off"}, "params.variants"),
    ("run", {"variants": ["tso-off", "tso-off"]}, "params.variants"),
    ("run", {"variants": ["base"]}, "params.variants"),
    ("run", {"variants": ["tso-off"], "resume": True}, "params.variants"),
    ("run", {"resume": "yes"}, "params.resume"),
    ("run", {"resume": 1}, "params.resume"),
    ("run", {"walk": ["nightly"]}, "params.walk"),
    ("run", {"walk": "weekly"}, "params.walk"),
    ("run", {"walk": "nightly", "variants": ["tso-off"]}, "params.variants"),
    ("run", {"name": 42}, "params.name"),
    ("run", {"between": "reboots"}, "params.between"),
    ("try", {"base": ["HEAD"]}, "params.base"),
    ("try", {"head": "HEAD"}, "params.base"),
    ("try", {"base": "HEAD", "confidence": 97}, "params.confidence"),
    ("try", {"base": "HEAD", "confidence": "high"}, "params.confidence"),
    ("try", {"base": "HEAD", "max_repetitions": 0}, "params.max_repetitions"),
    ("try", {"base": "HEAD", "profile": "yes"}, "params.profile"),
    ("drill", {"between": [1, 2, 3]}, "params.between"),
    ("drill", {"between": ["HEAD"]}, "params.between"),
    ("drill", {"between": "HEAD~1 HEAD"}, "params.between"),
    ("drill", {"change": 12}, "params.change"),
    ("drill", {"change": ""}, "params.change"),
    ("drill", {"change": "9" * 300}, "params.change"),
    ("drill", {"change": "1:2", "between": ["HEAD~1", "HEAD"]}, "params.between"),
    ("drill", {}, "params.change"),
    ("drill", {"change": "1:2", "max_builds": -1}, "params.max_builds"),
    ("drill", {"change": "1:2", "max_repetitions": 1}, "params.max_repetitions"),
    ("watch", {"once": True}, "params.once"),
]


def test_job_parameters_are_checked_where_they_are_submitted(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str
) -> None:
    """Each wrong parameter: 422 with the documented error shape naming it, nothing
    queued; the same mistakes given to `perfwalk submit` exit 2 naming the option."""
    config = _configured(tmp_path / "team", known_values_repo_copy, pg_url)
    with serving(Path(config.path)) as api:
        token = api.token("lab", "submit")
        for kind, params, field in WRONG:
            answer = _post_job(api, token, {"kind": kind, "params": params})
            assert answer.status_code == 422, (params, answer.text)
            error = _error(answer)
            assert error["field"] == field, (params, answer.text)
            assert error["message"].startswith(f"{field}: "), error
        assert len(WRONG) == 43
        assert httpx.get(f"{api.url}/api/v1/jobs").json() == []
    path = str(config.path)
    for argv, said in [
        (["run", "-n", "abc"], "argument -n/--repetitions"),
        (["run", "--between", "touch x"], "params.between: expected one of keep"),
        (["run", "--variants", "v1"], "params.variants: variants: no variant 'v1'"),
        (["drill", "--between", "a", "--upload-pack=x"], "bad options"),
        (["drill", "1:2", "--change", "3:4"], "two changes to drill"),
        (["try", "HEAD", "--confidence", "97"], "bad options"),
    ]:
        refused = perfwalk("submit", *argv, "-c", path)
        assert refused.returncode == 2, (argv, refused.stdout, refused.stderr)
        assert said in refused.stderr, (argv, refused.stderr)
    assert jobs(config) == []


def test_the_documented_submissions_queue_their_jobs(
    tmp_path: Path, known_values_repo_copy: KnownHistory, pg_url: str
) -> None:
    """Every `perfwalk submit` line of docs/team.md queues its job as written."""
    config = _configured(tmp_path / "team", known_values_repo_copy, pg_url)
    documented = [
        line.split("#")[0].split()
        for line in (DOCS / "team.md").read_text().splitlines()
        if line.startswith("perfwalk submit ")
    ]
    assert len(documented) >= 4
    for argv in documented:
        done = perfwalk(*argv[1:], "-c", str(config.path))
        assert done.returncode == 0, (argv, done.stderr)
        assert done.stdout.strip().isdigit(), (argv, done.stdout)
    listed = {row.kind: row for row in jobs(config)}
    assert set(listed) == {"run", "drill", "try", "watch"}
    assert listed["drill"].options == {"change": "12", "max_builds": 20, "max_repetitions": 500}
    assert {row.owner for row in listed.values()} == {user_at_machine()}
