"""A functional test of the regress suite that fails after passing is a change of its
own kind: eight nights of `perfwalk regress` on a real git history whose check starts
failing at commit 9 (tests/fixtures/breaking_repo.py), the suite run in the project's
work tree checked out at every other commit (so each run records its commit). Its
break is listed by `perfwalk changes`, in its JSON and on the site, told once by the
run that confirms it, grouped with the walk's break of the same commits, triaged by
its id and drilled — the suite's test run in a checkout of each commit — to commit 9
and its author. A test that flips between passing and failing every night makes no change.
(A newly failing regress test was only in the matrix.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from perfwalk.cli import exits
from perfwalk.cli.main import main
from tests.fixtures.breaking_repo import BREAKING_CONFIG, TEST_BREAK_AT, BreakingHistory
from tests.fixtures.receivers import Hook
from tests.fixtures.synthetic_repo import git

#: the commits the nights test: the check passes up to 8 and fails from 10 on
NIGHTS = (0, 2, 4, 6, 8, 10, 12, 14)

#: the suite and the receiver added to the walk's configuration (BREAKING_CONFIG): the
#: suite in the project's work tree, its check and a test that flips every night
SUITE = """\
[regress]
dir = "{suite}"
[[regress.test]]
name = "check"
command = "sh check.sh"
[[regress.test]]
name = "flaky"
command = "n=$(( $(cat {counter} || echo 0) + 1 )); echo $n > {counter}; test $((n % 2)) = 1"
[notify]
urls = ["json://127.0.0.1:{port}/perf"]
"""


def _config(tmp_path: Path, repo: BreakingHistory, port: int, suite: Path | None = None) -> str:
    """The configuration of the walk of ``repo`` with the suite (in ``suite``; default
    the project's work tree)."""
    more = SUITE.format(suite=suite or repo.path, counter=tmp_path / "flips", port=port)
    path = tmp_path / "perfwalk.toml"
    path.write_text(BREAKING_CONFIG.format(repo=repo.path, more=more))
    return str(path)


def _said(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_a_regress_test_failing_after_passing_is_a_change_drilled_to_its_commit(
    tmp_path: Path,
    breaking_repo: BreakingHistory,
    hook: Hook,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = _config(tmp_path, breaking_repo, hook.port)
    told_after: list[int] = []
    said: list[list[str]] = []
    for night, commit in enumerate(NIGHTS):  # the work tree updated, then the suite run
        git(breaking_repo.path, "checkout", "-q", "--detach", breaking_repo.line[commit])
        failed = commit > TEST_BREAK_AT or night % 2 == 1  # the check, or the flaky test
        assert main(["regress", "-c", config]) == (1 if failed else 0)
        told_after.append(len(hook.posts))
        said.append([line for line in capsys.readouterr().out.splitlines() if "FAILING" in line])
    git(breaking_repo.path, "checkout", "-q", "main")
    # told once, by the run that confirmed the failure (its second night), not before
    assert told_after == [0, 0, 0, 0, 0, 0, 1, 1]
    assert [len(lines) for lines in said] == [0, 0, 0, 0, 0, 0, 1, 0]  # and said by it
    assert re.fullmatch(
        r"TEST FAILING 1:\d+: check \(status\) PASS → NOEXIT since the run before \(2 commits\): "
        r"`perfwalk drill 1:\d+` names its commit",
        said[6][0],
    ), said[6]
    told = json.dumps(hook.posts)
    assert "check" in told
    assert "flaky" not in told

    code, out = _said(capsys, "changes", "-c", config)
    print(out)
    assert code == exits.FOUND
    assert "TEST FAILING" in out
    assert "'regress on local': check (status) PASS → NOEXIT" in out
    assert "flaky" not in out  # it flipped every night: no change at any flip
    code, out = _said(capsys, "changes", "-c", config, "--format", "json")
    (broken,) = json.loads(out)["breaks"]
    assert (broken["kind"], broken["suite"], broken["host"]) == ("test", "regress", "local")
    assert (broken["test"], broken["passed"], broken["failed"]) == ("check", "PASS", "NOEXIT")
    assert broken["before"]["commit"] == breaking_repo.line[8]
    assert broken["after"]["commit"] == breaking_repo.line[10]
    assert broken["commits"] == 2

    # the walk's own check breaks in 9..12: one group with the regress break (9..10)
    assert main(["run", "--walk", "nightly", "-c", config]) == exits.FOUND  # builds failed
    code, out = _said(capsys, "changes", "-c", config, "--format", "json")
    document = json.loads(out)
    regress_id = next(b["id"] for b in document["breaks"] if b["suite"] == "regress")
    walk_id = next(
        b["id"] for b in document["breaks"] if (b["suite"], b["test"]) == ("walk", "check")
    )
    (group,) = [g for g in document["groups"] if regress_id in _members(g)]
    assert _members(group) == {regress_id, walk_id}

    code, out = _said(capsys, "drill", regress_id, "-c", config)
    print(out)
    assert code == 0
    assert f"CULPRIT {breaking_repo.test_break[:12]}" in out
    code, out = _said(capsys, "changes", "-c", config)
    assert f"by Dev {TEST_BREAK_AT} <dev{TEST_BREAK_AT}@example.org>" in out
    code, out = _said(capsys, "changes", "-c", config, "--format", "json")
    document = json.loads(out)
    (broken,) = [b for b in document["breaks"] if b["id"] == regress_id]
    assert broken["drill"]["culprit"]["commit"] == breaking_repo.test_break
    (group,) = [g for g in document["groups"] if regress_id in _members(g)]
    assert group["culprit"] == breaking_repo.test_break  # the walk's break joins its culprit
    # the site's changes list it too, with its culprit
    assert main(["report", "-c", config, "--out", str(tmp_path / "site")]) == 0
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "regress on local" in index

    # triaged by its id like any change: with the walk's triaged too, nothing fails
    build_id = next(b["id"] for b in document["breaks"] if b["kind"] == "build")
    for change in (regress_id, walk_id, build_id):
        triage = ["triage", change, "-c", config, "--state", "acknowledged"]
        assert main([*triage, "--reason", "the block order changed on purpose"]) == 0
    code, out = _said(capsys, "changes", "-c", config, "--all")
    assert code != exits.FOUND
    assert out.count("triage: acknowledged by ") == 3


def _members(group: dict[str, object]) -> set[str]:
    members = group["members"]
    assert isinstance(members, list)
    return {str(m["change"]) for m in members}


def test_runs_without_a_commit_make_no_change_and_one_commit_has_nothing_to_drill(
    tmp_path: Path,
    breaking_repo: BreakingHistory,
    hook: Hook,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Imported results: a host whose runs record no commit is tied to its dates alone,
    with no commit range to name, group or drill a change by (the matrix shows its
    failing test); a host whose test broke while its commit stayed the same has a
    change of no commit, which a drill refuses, naming the two runs."""
    config = _config(tmp_path, breaking_repo, hook.port)
    same = breaking_repo.line[8]
    for night, verdict in enumerate(("ok", "ok", "not ok", "not ok")):
        results = tmp_path / f"night-{night}.tap"
        results.write_text(f"1..1\n{verdict} 1 - fsync\n")
        date = ["--date", f"2024-04-0{night + 1}T03:00"]
        for host in (["--host", "ci"], ["--host", "lab", "--commit", same]):
            assert main(["regress", "import", str(results), *host, *date, "-c", config]) in (0, 1)
    code, out = _said(capsys, "changes", "-c", config, "--format", "json")
    assert code == exits.FOUND
    (broken,) = json.loads(out)["breaks"]
    assert (broken["host"], broken["test"], broken["commits"]) == ("lab", "fsync", 0)
    assert broken["before"]["commit"] == broken["after"]["commit"] == same
    assert len(hook.posts) == 1  # told, as any new break
    capsys.readouterr()
    assert main(["drill", broken["id"], "-c", config]) == 2
    said = capsys.readouterr().err
    print(said)
    assert "Traceback" not in said
    assert "at the same commit " + same[:12] + " (runs 4 and 6 of lab): no commit to drill" in said
    assert "the host or its system changed between the two runs" in said


def test_a_suite_outside_the_repository_is_not_drilled(
    tmp_path: Path, breaking_repo: BreakingHistory, capsys: pytest.CaptureFixture[str]
) -> None:
    """A suite that does not lie in the project's repository cannot run at another
    commit: the drill of its test's break says so before it makes or builds anything."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "check.sh").write_text("test ! -e fails\n")
    config = _config(tmp_path, breaking_repo, 9, suite)
    for night, commit in enumerate(NIGHTS[:4]):
        if night == 2:
            (suite / "fails").write_text("")
        assert main(["regress", "-c", config, "--commit", breaking_repo.line[commit]]) in (0, 1)
    code, out = _said(capsys, "changes", "-c", config, "--format", "json")
    assert code == exits.FOUND
    (broken,) = json.loads(out)["breaks"]
    capsys.readouterr()
    assert main(["drill", broken["id"], "-c", config]) == 2
    said = capsys.readouterr().err
    print(said)
    assert f"regress.dir {suite} is not in the project's repository {breaking_repo.path}" in said
    code, out = _said(capsys, "list", "-c", config)
    assert code == 0
    assert "drill" not in out  # nothing made
