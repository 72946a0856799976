"""Breaks traced, on a real git history whose build breaks at commit 17 and whose
functional test starts failing at commit 9 (tests/fixtures/breaking_repo.py), walked
every 4th commit: each break is a change of its own kind (listed, exit status 1,
triaged by its id), drilled with the drill, noise-free on its status, to its first
bad commit and that commit's author; a watch cycle drills them, tells them and its
site shows them with their culprits (a broken build and a newly failing test were
never named: they were only in the status columns)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.store import Store
from tests.fixtures.breaking_repo import (
    BREAKING_CONFIG,
    BUILD_BREAK_AT,
    TEST_BREAK_AT,
    BreakingHistory,
)
from tests.fixtures.receivers import Hook

#: the walk's checkouts are commits 0, 4, 8, 12, 16, 20, 23: the check passes at 8 and
#: fails at 12 (checkout 3), the build works at 16 and fails at 20 (checkout 5)
TEST_CHANGE, BUILD_CHANGE = "1:3", "1:5"


def _config(tmp_path: Path, repo: BreakingHistory, more: str = "") -> Path:
    path = tmp_path / "perfwalk.toml"
    path.write_text(BREAKING_CONFIG.format(repo=repo.path, more=more))
    return path


def _said(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_each_break_is_a_change_drilled_to_its_first_bad_commit(
    tmp_path: Path, breaking_repo: BreakingHistory, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(_config(tmp_path, breaking_repo))
    assert main(["run", "--walk", "nightly", "-c", path]) == exits.FOUND  # builds failed
    code, out = _said(capsys, "changes", "-c", path)
    print(out)
    assert code == exits.FOUND  # untriaged breaks
    assert f"TEST FAILING {TEST_CHANGE} in series 1" in out
    assert "check (status) PASS → NOEXIT between checkout 2" in out
    assert f"BUILD BROKEN {BUILD_CHANGE} in series 1" in out
    assert "build PASS → NOEXIST between checkout 4" in out
    for change, culprit, at in (
        (TEST_CHANGE, breaking_repo.test_break, TEST_BREAK_AT),
        (BUILD_CHANGE, breaking_repo.build_break, BUILD_BREAK_AT),
    ):
        code, out = _said(capsys, "drill", change, "-c", path)
        print(out)
        assert code == 0
        assert f"CULPRIT {culprit[:12]}" in out
        # the ends' statuses are the walk's: 2 halvings of 4 commits, one status each
        assert "(2 stored values reused)" in out
        assert "spent 2 builds, 2 repetitions" in out
        code, out = _said(capsys, "changes", "-c", path)
        assert f"culprit {culprit[:10]}" in out
        assert f"by Dev {at} <dev{at}@example.org>" in out
    with Store.open(load_config(Path(path)).store.url) as store:
        drills = store.drills.all()
        assert [(d.test, d.name, d.verdict) for d in drills] == [
            ("check", "status", "culprit"),
            ("(build)", "status", "culprit"),
        ]
        assert [d.change["broke"] for d in drills] == ["test", "build"]
        assert [(d.answer or {}).get("culprit") for d in drills] == [
            breaking_repo.test_break,
            breaking_repo.build_break,
        ]
    code, out = _said(capsys, "changes", "-c", path, "--format", "json")
    broken = {b["id"]: b for b in json.loads(out)["breaks"]}
    assert broken[BUILD_CHANGE]["kind"] == "build"
    assert (broken[BUILD_CHANGE]["passed"], broken[BUILD_CHANGE]["failed"]) == ("PASS", "NOEXIST")
    assert broken[TEST_CHANGE]["test"] == "check"
    culprit = broken[TEST_CHANGE]["drill"]["culprit"]
    assert culprit["commit"] == breaking_repo.test_break
    assert culprit["author"] == f"Dev {TEST_BREAK_AT} <dev{TEST_BREAK_AT}@example.org>"
    # triaged like a speed change, by its id: the build break no longer fails `changes`
    triage = ["triage", BUILD_CHANGE, "-c", path, "--state", "acknowledged"]
    assert main([*triage, "--reason", "the allocator port, fixed next week"]) == 0
    code, out = _said(capsys, "changes", "-c", path, "--all")
    assert "triage: acknowledged by " in out
    assert code == exits.FOUND  # the test still fails, untriaged
    triage = ["triage", TEST_CHANGE, "-c", path, "--state", "expected"]
    assert main([*triage, "--reason", "the new block order changes the checksum"]) == 0
    code, out = _said(capsys, "changes", "-c", path)
    assert code != exits.FOUND


def test_a_watch_cycle_drills_tells_and_shows_the_breaks(
    tmp_path: Path,
    breaking_repo: BreakingHistory,
    capsys: pytest.CaptureFixture[str],
    hook: Hook,
) -> None:
    receivers = [f"json://127.0.0.1:{hook.port}/perf"]
    path = str(_config(tmp_path, breaking_repo, f"\n[notify]\nurls = {json.dumps(receivers)}"))
    code, out = _said(capsys, "watch", "--once", "-c", path)
    print(out)
    assert code == exits.FOUND  # new breaks nobody triaged
    assert re.search(
        r"new regression \(confirmed\): check \(status\) ✗ test failing worse .*\n"
        rf"  culprit found by drill \d: {breaking_repo.test_break[:10]} Reorder the block "
        r"writes \(Dev 9 <dev9@example.org>\)",
        out,
    )
    assert re.search(
        r"new regression \(confirmed\): build ✗ build broken worse .*\n"
        rf"  culprit found by drill \d: {breaking_repo.build_break[:10]} Use the new "
        r"allocator \(Dev 17 <dev17@example.org>\)",
        out,
    )
    # its last line names the worst, a break as one: "test failing check (status) at …"
    assert re.search(
        r"\n2 regressions: (test failing check \(status\)|build broken build) at ", out
    )
    told = json.dumps(hook.posts)
    assert len(hook.posts) == 2
    for culprit in (breaking_repo.test_break, breaking_repo.build_break):
        assert culprit[:10] in told
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    # the changes table: a group per culprit, its members (the breaks) under it
    table = index[index.index('<table class="changes groups">') :]
    table = re.sub(r"<[^>]*>", " ", table[: table.index("<h2>Walks</h2>")])
    print(" ".join(table.split()))
    assert re.search(r"build PASS → NOEXIST .* Use the new allocator", " ".join(table.split()))
    assert re.search(
        r"check \(status\) PASS → NOEXIT .* Reorder the block writes", " ".join(table.split())
    )
    strip = re.sub(r"<[^>]*>", "", index[index.index('<p id="last-night"') :])
    assert "nightly +7 checkouts · 0 new regressions, 1 build broken, 1 test newly failing" in strip
