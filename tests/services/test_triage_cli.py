"""`perfwalk triage` on a real walk of a real repository: the word is stored with its
history under the change's commit range, `perfwalk changes` shows it (text, JSON,
Markdown) with the drill's answer and stops failing for a triaged regression, the
word stays with the change when the walk is continued and the change found again,
and a change on another range has none. Mistakes are refused and store nothing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.drill import Verdict
from perfwalk.services.drill import change_targets, run_drill
from perfwalk.store import Store
from perfwalk.store.leases import user_at_machine
from tests.fixtures.synthetic_repo import CommitSpec, add_commits, make_repo
from tests.report.test_markdown import rendered
from tests.services.walks import walk_config

#: this commit's level with a little seeded noise (the same values every run)
BENCH = r"""#!/bin/sh
cd "$(dirname "$0")" || exit 1
awk -v base="$(cat value.txt)" -v at="$(cat commit.txt)" -v rep="${PERFWALK_REPETITION:-0}" \
    'BEGIN { srand(at * 1009 + rep + 1)
             printf "VALUE %.4f ms latency\n", base + (rand() - 0.5) * 0.2 }'
"""
START = datetime(2025, 3, 1, tzinfo=UTC)
#: walked every second commit: checkouts at commits 0, 2, 4, 6, 8, 10 and 11 (the tip)
#: its values come from a seed, not from the machine: the other processes of a shared
#: machine must not make the change suspect (what that does: test_machine_load.py)
NIGHTLY = """
[analysis]
suspect_load = false

[[walk]]
name = "nightly"
from = "{first}"
step = "commit/2"
"""
pytestmark = pytest.mark.slow

REASON = "the new checksum is slower by design"
BUG = "https://bugs.example.org/1234"


@dataclass(frozen=True)
class Walked:
    path: Path
    repo: Path
    ids: list[str]

    @property
    def config(self) -> Config:
        return load_config(self.path)


def _spec(i: int, value: int) -> CommitSpec:
    message = "Make the checksum slower" if i == 5 else f"Commit {i}"
    files: dict[str, str | bytes | None] = {"value.txt": f"{value}\n", "commit.txt": f"{i}\n"}
    if i == 0:
        files["bench.sh"] = BENCH
    return CommitSpec(START + i * timedelta(hours=1), message, files)


def _add_commits(repo: Path, first: int, values: list[int]) -> list[str]:
    """More commits on main, one an hour after the last, each at its level; their ids."""
    return add_commits(repo, [_spec(n, value) for n, value in enumerate(values, start=first)])


def _walk(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    """Continue the walk "nightly"."""
    assert _run(capsys, "run", "-c", str(path), "--walk", "nightly")[0] == 0


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def walked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Walked:
    """12 commits at 100 ms, 110 ms from commit 5 on, walked every second commit by
    the named walk "nightly": one regression, between the checkouts of commits 4 and
    6 (change 1:3)."""
    repo = tmp_path / "repo"
    ids = make_repo(repo, [_spec(i, 110 if i >= 5 else 100) for i in range(12)])
    path = tmp_path / "perfwalk.toml"
    path.write_text(
        walk_config(repo, "sh bench.sh", extra=NIGHTLY.format(first=ids[0])), encoding="utf-8"
    )
    _walk(capsys, path)
    return Walked(path, repo, ids)


def _triage_rows(walked: Walked) -> int:
    with Store.open(walked.config.store.url, read_only=True) as store:
        return sum(len(store.triage.history(key)) for key in store.triage.current())


def _changes_json(
    capsys: pytest.CaptureFixture[str], walked: Walked
) -> tuple[int, list[dict[str, Any]]]:
    code, out, _ = _run(capsys, "changes", "-c", str(walked.path), "--format", "json")
    return code, json.loads(out)["changes"]


def test_a_triaged_regression_no_longer_fails_and_keeps_its_word_when_found_again(
    walked: Walked, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(walked.path)
    code, out, _ = _run(capsys, "changes", "-c", config)
    assert code == 1  # an untriaged regression
    assert out.startswith("REGRESSION 1:3 ")
    assert out.splitlines()[1] == "  triage: untriaged"

    code, out, _ = _run(
        capsys, "triage", "1:3", "-c", config, "--state", "expected", "--reason", REASON
    )
    assert code == 0
    first, *said = out.splitlines()
    assert first == (
        f"change 1:3 (regression in series 1 'repo nightly', after {walked.ids[4][:10]} up to "
        f"{walked.ids[6][:10]}): expected (was untriaged)"
    )
    assert (
        said[0]
        == f"  commits: {walked.ids[4]}..{walked.ids[6]} (after the first, up to the second)"
    )
    assert said[1] == f"  reason: {REASON}"
    assert said[2].startswith(f"  by {user_at_machine()} at ")

    code, out, _ = _run(capsys, "changes", "-c", config, "--all")
    assert code == 0  # its only regression is triaged
    assert out.splitlines()[1].startswith(f"  triage: expected by {user_at_machine()} on ")
    assert out.splitlines()[1].endswith(f" UTC: {REASON}")

    code, out, _ = _run(  # the same change, named by its commit
        capsys, "triage", f"1:{walked.ids[6][:8]}", "-c", config, "--state", "acknowledged",
        "--reason", "looking into it after all", "--bug", BUG,
    )  # fmt: skip
    assert code == 0
    assert out.splitlines()[0].endswith(": acknowledged (was expected)")
    assert f"  bug: {BUG}" in out.splitlines()

    code, out, _ = _run(capsys, "triage", "1:3", "-c", config, "--history")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].endswith(": acknowledged (2 words, the last is the current one)")
    assert (
        lines[1]
        == f"  commits: {walked.ids[4]}..{walked.ids[6]} (after the first, up to the second)"
    )
    states = [line.strip() for line in lines[2:] if not line.startswith("    ")]
    assert states == ["expected", "acknowledged"]  # oldest first
    assert f"    reason: {REASON}" in lines
    with Store.open(walked.config.store.url, read_only=True) as store:
        key = (1, walked.ids[4], walked.ids[6])
        history = store.triage.history(key)
        assert [(r.state, r.bug) for r in history] == [("expected", ""), ("acknowledged", BUG)]
        assert store.triage.current()[key] == history[-1]  # the newest is the current word

    code, (change,) = _changes_json(capsys, walked)
    assert code == 0
    assert list(change) == [  # as docs/analysis.md lists them
        "id",
        "series",
        "series_name",
        "variant",
        "variant_of",
        "kind",
        "before",
        "after",
        "metrics",
        "known_causes",
        "verdict",
        "counters",
        "not_confirmed_by",
        "confirmed_by_remeasure",
        "triage",
        "drill",
        "commits",
    ]
    assert set(change["triage"]) == {"state", "reason", "bug", "who", "at"}
    assert change["triage"]["state"] == "acknowledged"
    assert change["triage"]["bug"] == BUG
    assert change["triage"]["who"] == user_at_machine()
    assert datetime.fromisoformat(change["triage"]["at"]) == history[-1].at
    assert change["drill"] is None  # never drilled

    # the walk goes on: 4 more commits at 110 ms, then 6 at 125 ms
    later = _add_commits(walked.repo, 12, [110] * 4 + [125] * 6)
    _walk(capsys, walked.path)
    code, changes = _changes_json(capsys, walked)
    assert [c["id"] for c in changes] == ["1:3", "1:9"]
    again, new = changes
    assert (again["before"]["commit"], again["after"]["commit"]) == (walked.ids[4], walked.ids[6])
    assert again["triage"]["state"] == "acknowledged"  # the same range: the same word
    assert (new["before"]["commit"], new["after"]["commit"]) == (later[3], later[5])
    assert new["triage"] is None  # another range: none
    assert code == 1  # that one is untriaged

    code, out, _ = _run(capsys, "changes", "-c", config, "--format", "markdown")
    assert code == 1
    assert out.startswith("### perfwalk: ")
    assert out.splitlines()[0].endswith(": 2 regressions (1 triaged)")
    _head, *rows = rendered(out).rows
    assert [(row[0], row[8].split(":")[0]) for row in rows] == [
        ("regression (confirmed)", "untriaged"),  # newest first, shown as one to act on (bold)
        ("regression (confirmed)", "acknowledged"),
    ]
    assert rows[1][8].startswith("acknowledged: looking into it after all (")


def test_the_drills_answer_is_shown_with_the_change(
    walked: Walked, capsys: pytest.CaptureFixture[str]
) -> None:
    config = walked.config
    with Store.open(config.store.url) as store:
        (target,) = change_targets(store, config)
    result = run_drill(config, target)
    assert result.done.verdict is Verdict.CULPRIT
    culprit = walked.ids[5]

    code, out, _ = _run(capsys, "changes", "-c", str(walked.path))
    assert code == 1  # drilled, not triaged: still a regression to act on
    lines = out.splitlines()
    assert lines[1] == "  triage: untriaged"
    assert lines[2] == (
        f"  drill {result.series_id}: culprit {culprit[:10]} 'Make the checksum slower'"
    )
    _code, (change,) = _changes_json(capsys, walked)
    assert change["drill"] == {
        "drill": result.series_id,
        "verdict": "culprit",
        "lo": walked.ids[4],
        "hi": culprit,
        "reason": change["drill"]["reason"],
        "culprit": {
            "commit": culprit,
            "subject": "Make the checksum slower",
            "author": "Ada Lovelace <ada@example.org>",
        },
    }
    assert change["drill"]["reason"]
    code, out, _ = _run(capsys, "changes", "-c", str(walked.path), "--format", "markdown")
    (row,) = rendered(out).rows[1:]
    assert row[7] == f"{culprit[:10]} Make the checksum slower (drill {result.series_id})"
    assert row[8] == "untriaged"


#: (arguments after `perfwalk triage -c FILE`, what the error says, what its hint says)
MISTAKES = [
    (["1:99", "--state", "expected", "--reason", REASON], "no change '1:99'", "`perfwalk changes`"),
    (["3", "--state", "expected", "--reason", REASON], "not a change id", "`perfwalk changes`"),
    (["1:3", "--state", "expected", "--reason", "  "], "needs a reason", "--reason"),
    (["1:3", "--state", "expected"], "needs a reason", "--reason"),
    (["1:3", "--reason", REASON], "--state is missing", "--state acknowledged"),
    (["1:3", "--state", "fixed", "--reason", "r", "--bug", "bugs/12"], "not an http(s)", "--bug"),
    (["1:3", "--state", "fixed", "--reason", "r", "--bug", "ftp://x.org/1"], "not an", "--bug"),
    (["1:3", "--history", "--state", "fixed"], "takes no --state", "--history"),
]


def test_a_mistake_is_refused_and_stores_nothing(
    walked: Walked, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(walked.path)
    assert (
        _run(capsys, "triage", "1:3", "-c", config, "--state", "invalid", "--reason", "x")[0] == 0
    )
    for argv, said, hint in MISTAKES:
        code, out, err = _run(capsys, "triage", "-c", config, *argv)
        assert (code, out) == (2, ""), argv
        message, _, hinted = err.partition("hint:")
        assert said in message, argv
        assert hint in hinted, argv
        assert "Traceback" not in err
    _code, out, err = _run(
        capsys, "triage", "-c", config, "1:99", "--state", "fixed", "--reason", "r"
    )
    assert "(known: 1:3)" in err  # the ids that exist
    assert _triage_rows(walked) == 1  # the first word only
    _code, out, _ = _run(capsys, "triage", "-c", config, "1:3", "--history")
    assert out.splitlines()[0].endswith(": invalid (1 word, the last is the current one)")


def test_a_bad_state_is_refused_by_its_choices(
    walked: Walked, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["triage", "1:3", "-c", str(walked.path), "--state", "wontfix", "--reason", "r"])
    assert refused.value.code == 2
    assert "invalid choice: 'wontfix'" in capsys.readouterr().err
    assert _triage_rows(walked) == 0


#: a second named walk, every commit: its step (commit 5) lies in the nightly's (5 … 6)
EVERY = """
[[walk]]
name = "every"
from = "{first}"
step = "commit"
"""


def test_a_group_is_triaged_at_once_and_a_member_apart(
    walked: Walked, capsys: pytest.CaptureFixture[str]
) -> None:
    """The step seen by two walks (two series, overlapping ranges, not drilled) is one
    group; one `perfwalk triage GROUP` stores the word on both changes, each under its
    own range; one of them triaged apart makes the group "mixed"."""
    text = walked.path.read_text(encoding="utf-8")
    walked.path.write_text(text + EVERY.format(first=walked.ids[0]), encoding="utf-8")
    config = str(walked.path)
    assert _run(capsys, "run", "-c", config, "--walk", "every")[0] == 0
    code, out, _ = _run(capsys, "changes", "-c", config, "--format", "json")
    assert code == 1
    (group,) = json.loads(out)["groups"]
    ids = walked.ids
    assert group["id"] == f"{ids[4][:12]}..{ids[5][:12]}"  # the narrowest: commit 5
    assert (group["commits"], group["needs_action"], group["series"]) == (1, True, [1, 2])
    assert sorted(m["change"] for m in group["members"]) == ["1:3", "2:5"]
    code, out, _ = _run(capsys, "changes", "-c", config)
    assert f"  {group['id']} " in out  # the groups, under the changes

    named = f"{ids[4][:8]}..{ids[5][:8]}"  # fewer digits name it too
    code, out, err = _run(
        capsys, "triage", named, "-c", config, "--state", "acknowledged", "--reason", REASON
    )
    print(out)
    assert code == 0, err
    head, first, second, *said = out.splitlines()
    assert head == (
        f"group {group['id']} (at {ids[5][:12]}, 1 metric in 2 walks on 1 host): "
        "acknowledged on its 2 changes"
    )
    assert {first.split(" (")[0], second.split(" (")[0]} == {"  change 1:3", "  change 2:5"}
    assert first.endswith(": was untriaged")
    assert said[0] == f"  reason: {REASON}"
    assert _triage_rows(walked) == 2  # a word per change
    assert _run(capsys, "changes", "-c", config)[0] == 0  # triaged: no longer fails

    code, _, _ = _run(capsys, "triage", "2:5", "-c", config, "--state", "invalid", "--reason", "r")
    assert code == 0
    code, out, _ = _run(capsys, "changes", "-c", config, "--format", "json")
    (group,) = json.loads(out)["groups"]
    assert group["triage"] == "mixed"
    states = {c["id"]: c["triage"]["state"] for c in json.loads(out)["changes"]}
    assert states == {"1:3": "acknowledged", "2:5": "invalid"}

    code, out, err = _run(
        capsys, "triage", "beef", "-c", config, "--state", "fixed", "--reason", "r"
    )
    assert (code, out) == (2, "")
    assert "no group named 'beef'" in err
    assert f"(known: {group['id']})" in err
    assert "Traceback" not in err
    assert _triage_rows(walked) == 3
