"""``perfwalk prove``: a drill's culprit undone on today's tip and measured against it.

A real git project whose benchmark prints about 100 ms (seeded noise, sd 2 %) times the
factor in ``cost.txt``; commit 4 raises it from 1.00 to 1.30. Walked by commit on
``main`` and drilled to commit 4, the culprit is then proved on three tips: ``main``
(the cost is still there: the revert gives it back), ``moved`` (a later commit makes
the benchmark take its factor elsewhere: the revert changes nothing, "no longer") and
``refactored`` (a later commit rewrote ``cost.txt``: the revert does not apply, nothing
is built). On ``faster``, a commit takes the factor back to 1.00: an improvement drilled
between two commits, then proved on that branch's tip. Real processes, SQLite."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.store import Store
from tests.fixtures.commands import perfwalk_with
from tests.fixtures.receivers import Hook
from tests.fixtures.synthetic_repo import CommitSpec, git, make_repo

BENCH = r"""#!/bin/sh
# About 100 ms times the factor of cost.txt: the n-th run draws the n-th value (sd 2 %).
cd "$(dirname "$0")" || exit 1
factor=$(cat cost.txt)
n=$(cat "$PROVE_COUNTER" 2>/dev/null || echo 0)
echo $((n + 1)) > "$PROVE_COUNTER"
awk -v f="$factor" -v n="$n" 'BEGIN {
  srand(7 * 1000003 + n)
  u = rand(); if (u < 1e-12) u = 1e-12
  z = sqrt(-2 * log(u)) * cos(6.283185307179586 * rand())
  printf "VALUE %.4f ms latency\n", 100 * f * (1 + 0.02 * z)
}'
"""

CONFIG = """\
[project]
repo = "project"
[build]
steps = ["true"]
[run]
repetitions = 3
[[test]]
name = "bench"
command = "PROVE_COUNTER={counter} sh bench.sh"
parser = "value"
[test.metrics.latency]
min_change = 0.05
[[walk]]
name = "nightly"
from = "2025-01-01"
step = "commit"
[drill]
prove_repetitions = 20
"""

CULPRIT_AT = 4


def _history(path: Path) -> dict[str, str]:
    """The project: main's 8 commits (the culprit at 4), and one commit on each of the
    branches ``moved`` and ``refactored``, forked from main's tip; commit ids by name."""
    start = datetime(2025, 1, 1, tzinfo=UTC)

    def day(n: int) -> datetime:
        return start + timedelta(days=n)

    specs = [
        CommitSpec(
            day(0),
            "A benchmark",
            {"bench.sh": BENCH, "cost.txt": "1.00\n", "notes.txt": "0\n"},
            executable=("bench.sh",),
        ),
        *(CommitSpec(day(n), f"notes {n}", {"notes.txt": f"{n}\n"}) for n in (1, 2, 3)),
        CommitSpec(day(4), "Parse every header twice", {"cost.txt": "1.30\n"}),
        *(CommitSpec(day(n), f"notes {n}", {"notes.txt": f"{n}\n"}) for n in (5, 6, 7)),
        CommitSpec(
            day(8),
            "Take the factor from the build",
            {"bench.sh": BENCH.replace("factor=$(cat cost.txt)", "factor=1.30")},
            branch="moved",
            fork_from="main",
        ),
        CommitSpec(
            day(9),
            "Describe the cost",
            {
                "cost.txt": "parser 1.30\n",
                "bench.sh": BENCH.replace("$(cat cost.txt)", "$(awk '{print $2}' cost.txt)"),
            },
            branch="refactored",
            fork_from="main",
        ),
        CommitSpec(day(10), "Parse every header once", {"cost.txt": "1.00\n"}, branch="faster"),
        CommitSpec(day(11), "notes 11", {"notes.txt": "11\n"}, branch="faster"),
    ]
    ids = make_repo(path, specs)
    git(path, "checkout", "-q", "main")
    return {
        "culprit": ids[CULPRIT_AT],
        "main": ids[7],
        "moved": ids[8],
        "refactored": ids[9],
        "faster": ids[10],
        "faster_tip": ids[11],
    }


@pytest.fixture(scope="module")
def drilled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], int]:
    """The project walked on main and its change drilled: the configuration, the
    commits, the drill's series."""
    folder = tmp_path_factory.mktemp("prove")
    commits = _history(folder / "project")
    config = folder / "perfwalk.toml"
    config.write_text(CONFIG.format(counter=folder / "counter"), encoding="utf-8")
    walked = perfwalk_with(config, "run", "--walk", "nightly")
    assert walked.returncode == 0, walked.stdout + walked.stderr
    drill = perfwalk_with(config, "drill", "--format", "json")
    assert drill.returncode == 0, drill.stdout + drill.stderr
    (answer,) = json.loads(drill.stdout)["drills"]
    assert (answer["verdict"], answer["commit"]) == ("culprit", commits["culprit"])
    return config, commits, int(answer["series"])


def test_the_culprit_still_costs_on_main_and_its_revert_gives_it_back(
    drilled: tuple[Path, dict[str, str], int],
) -> None:
    config, commits, drill = drilled
    proved = perfwalk_with(config, "prove", "--format", "json")
    assert proved.returncode == 1, proved.stdout + proved.stderr  # the cost is still there
    (proof,) = json.loads(proved.stdout)["proofs"]
    assert (proof["drill"], proof["culprit"]) == (drill, commits["culprit"])
    assert (proof["tip"], proof["tip_commit"]) == ("HEAD", commits["main"])
    assert proof["outcome"] == "still"
    # 1.00 / 1.30 - 1 = -23 %: the revert's interval holds it, and gives back the step
    assert proof["low"] <= 1 / 1.3 - 1 <= proof["high"]
    assert 0.7 < proof["share"] < 1.3
    print(proof)
    with Store.open(f"sqlite:///{config.parent / 'perfwalk.db'}") as store:
        (row,) = store.proofs.of_drill(drill)
        assert row.try_id is not None
        tried = store.tries.get(row.try_id)
        assert tried is not None
        assert tried.base_sha == commits["main"]
        ((name, patch),) = tried.patches
        assert name == f"revert-{commits['culprit'][:12]}.diff"
        assert "-1.30\n+1.00" in patch
    # asked again on the same tip: the stored proof, nothing measured again
    again = perfwalk_with(config, "prove")
    assert again.returncode == 1
    assert re.search(rf"drill {drill}: proved before on this tip: reverting", again.stdout)


def test_a_tip_where_the_cost_moved_elsewhere_says_no_longer(
    drilled: tuple[Path, dict[str, str], int],
) -> None:
    config, commits, drill = drilled
    proved = perfwalk_with(config, "prove", str(drill), "--tip", "moved")
    assert proved.returncode == 0, proved.stdout + proved.stderr
    assert f"on moved ({commits['moved'][:12]}) changes bench.latency by" in proved.stdout
    assert "no longer" in proved.stdout


def test_a_revert_that_does_not_apply_is_said_and_nothing_is_built(
    drilled: tuple[Path, dict[str, str], int],
) -> None:
    config, _commits, drill = drilled
    with Store.open(f"sqlite:///{config.parent / 'perfwalk.db'}") as store:
        series_before = len(store.list_series())
    proved = perfwalk_with(config, "prove", str(drill), "--tip", "refactored", "--format", "json")
    assert proved.returncode == 4, proved.stdout + proved.stderr
    (proof,) = json.loads(proved.stdout)["proofs"]
    assert (proof["outcome"], proof["try"]) == ("conflict", None)
    assert "cost.txt" in proof["message"]
    with Store.open(f"sqlite:///{config.parent / 'perfwalk.db'}") as store:
        assert len(store.list_series()) == series_before  # no try was made


def test_a_revert_that_does_not_apply_is_said_once(
    drilled: tuple[Path, dict[str, str], int],
) -> None:
    config, _commits, drill = drilled
    proved = perfwalk_with(config, "prove", str(drill), "--tip", "refactored")
    assert proved.returncode == 4, proved.stdout + proved.stderr
    said = proved.stdout + proved.stderr
    assert said.count("does not revert cleanly") == 1, said  # was said as progress too


def test_an_improvement_drilled_between_two_commits_is_still_given_back(
    drilled: tuple[Path, dict[str, str], int],
) -> None:
    main, commits, _drill = drilled
    config = main.with_name("faster.toml")  # the project followed on its branch faster
    config.write_text(
        main.read_text(encoding="utf-8").replace('repo = "project"\n', 'repo = "project"\n'
                                                 'branch = "faster"\n'),
        encoding="utf-8",
    )  # fmt: skip
    drill = perfwalk_with(config, "drill", "--between", commits["main"], commits["faster"],
                      "--metric", "bench.latency")  # fmt: skip
    print(drill.stdout)
    assert drill.returncode == 0, drill.stdout + drill.stderr
    assert f"CULPRIT {commits['faster'][:12]} 'Parse every header once'" in drill.stdout
    # its levels in their unit as measured (two commits given by --between have none before)
    assert re.search(r"^  level [0-9.]+ ms -> [0-9.]+ ms \(-2\d\.\d %\)", drill.stdout, re.M)
    series = re.findall(r"series (\d+)$", drill.stdout, re.M)[-1]
    proved = perfwalk_with(config, "prove", series, "--tip", "faster")
    print(proved.stdout)
    # its revert takes the cost back up: the improvement is still there, all of it
    assert proved.returncode == 1, proved.stdout + proved.stderr
    assert f"reverting {commits['faster'][:12]} on faster" in proved.stdout
    assert "gives back bench.latency +" in proved.stdout
    assert "the way the culprit did" not in proved.stdout


def test_a_drill_without_a_culprit_or_a_tip_without_it_is_refused(
    drilled: tuple[Path, dict[str, str], int],
) -> None:
    config, commits, drill = drilled
    unknown = perfwalk_with(config, "prove", "999")
    assert unknown.returncode == 2
    assert f"no drill '999' in project project (known: {drill}" in unknown.stderr
    before = perfwalk_with(config, "prove", str(drill), "--tip", commits["culprit"] + "~1")
    assert before.returncode == 2
    assert f"its culprit {commits['culprit'][:12]} is not in the history of" in before.stderr


def test_a_watch_cycle_proves_the_culprit_its_drill_named_and_tells_it(
    tmp_path: Path, hook: Hook
) -> None:
    """The default cycle ([watch] prove): walked, drilled, proved on main's tip; the
    proof is on the drill's page and in the notification."""
    commits = _history(tmp_path / "project")
    config = tmp_path / "perfwalk.toml"
    # neither a re-measure nor the machine's load decides here (its wait for a quiet
    # machine, a change suspect under load and not drilled): the proof does
    told = (
        f'[notify]\nurls = ["json://127.0.0.1:{hook.port}/perf"]\n[watch]\nconfirm = false\n'
        "[analysis]\nsuspect_load = false\n"
    )
    config.write_text(CONFIG.format(counter=tmp_path / "counter") + told, encoding="utf-8")
    cycle = perfwalk_with(config, "watch", "--once")
    assert cycle.returncode in (1, 4), cycle.stdout + cycle.stderr  # a regression, new
    found = r"^drill (\d+): reverting (\w+) on HEAD \((\w+)\) gives back"
    proved = re.search(found, cycle.stdout, re.MULTILINE)
    assert proved is not None, cycle.stdout
    drill, culprit, tip = proved.groups()
    assert (culprit, tip) == (commits["culprit"][:12], commits["main"][:12])
    assert f"on today's tip: reverting {culprit}" in cycle.stdout
    bodies = [post["message"] for post in hook.posts]
    assert any(f"on today's tip: reverting {culprit} on HEAD" in body for body in bodies), bodies
    page = (tmp_path / "site" / f"series-{drill}.html").read_text(encoding="utf-8")
    assert '<li class="proof proof-still">' in page
