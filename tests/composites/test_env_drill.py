"""``perfwalk drill-env``: does a step follow the code or the environment?

A real C benchmark (a loop calling a small function, which -O2 inlines and -O0 does
not; timed in CPU time, so that a busy machine weighs little)
built with ``cc $OPT``. The walk's build picks ``-O0`` for its first three builds and
``-O2`` from the fourth on (as a CI image updated overnight would), so the walk sees a
step at checkout 5 that no commit made; commit 5 doubles the loop (a step the code
made). Measured in two real environments (``[[environment]] build_env`` OPT=-O0 and
OPT=-O2), the first step follows the environment and the second is the code's; an
environment that sets the tests' environment (``run_env``) is measured too. Real
compiler, real processes, SQLite."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.store import Store
from tests.fixtures.synthetic_repo import CommitSpec, make_repo

BENCH = r"""#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long mix(unsigned long x, long i) {
    return (x ^ (unsigned long)i) * 6364136223846793005UL + 1442695040888963407UL;
}

int main(void) {
    const char *repeat = getenv("BENCH_REPEAT");
    long rounds = LOOPS * (repeat ? atol(repeat) : 1);
    unsigned long lanes[4] = {1, 2, 3, 4};
    clock_t start = clock();
    for (long i = 0; i < rounds; i++) {
        for (int k = 0; k < 4; k++) lanes[k] = mix(lanes[k], i);
    }
    double ms = (double)(clock() - start) * 1000.0 / CLOCKS_PER_SEC;
    printf("VALUE %.3f ms time\n", ms);
    return (lanes[0] ^ lanes[1] ^ lanes[2] ^ lanes[3]) == 42;
}
"""

BUILD = """\
n=$(cat "$BUILDS" 2>/dev/null || echo 0)
echo $((n + 1)) > "$BUILDS"
if [ -z "$OPT" ]; then
  if [ "$n" -ge 5 ]; then OPT=-O2; else OPT=-O0; fi
fi
cc $OPT -DLOOPS=$(cat loops.txt) -o bench bench.c
"""

CONFIG = """\
[project]
repo = "project"
[build]
steps = ["sh build.sh"]
env = {{ BUILDS = "{builds}" }}
[run]
repetitions = 3
[[test]]
name = "bench"
command = "./bench"
parser = "value"
[test.metrics.time]
min_change = 0.05
[[walk]]
name = "nightly"
from = "2025-01-01"
step = "commit"
[[environment]]
name = "old-image"
comment = "the CI image before the update: no optimisation"
build_env = {{ OPT = "-O0" }}
[[environment]]
name = "new-image"
build_env = {{ OPT = "-O2" }}
[[environment]]
name = "twice"
comment = "the new image, and the benchmark told to run its loop twice"
build_env = {{ OPT = "-O2" }}
run_env = {{ BENCH_REPEAT = "2" }}
"""

LOOPS = 3_000_000
PERFWALK = (sys.executable, "-m", "perfwalk")


def _perfwalk(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PERFWALK, *args, "-c", str(config)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        cwd=config.parent,
    )


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The project (12 commits: notes, and commit 9 halves the loop) walked on main;
    the configuration and the commits."""
    folder = tmp_path_factory.mktemp("env")
    start = datetime(2025, 1, 1, tzinfo=UTC)
    specs = [
        CommitSpec(
            start,
            "A benchmark",
            {"bench.c": BENCH, "build.sh": BUILD, "loops.txt": f"{LOOPS}\n", "notes": "0\n"},
        ),
        *(
            CommitSpec(start + timedelta(days=n), f"notes {n}", {"notes": f"{n}\n"})
            for n in range(1, 9)
        ),
        CommitSpec(
            start + timedelta(days=9), "Check half as often", {"loops.txt": f"{LOOPS // 2}\n"}
        ),
        *(
            CommitSpec(start + timedelta(days=n), f"notes {n}", {"notes": f"{n}\n"})
            for n in (10, 11)
        ),
    ]
    commits = make_repo(folder / "project", specs)
    config = folder / "perfwalk.toml"
    config.write_text(CONFIG.format(builds=folder / "builds"), encoding="utf-8")
    walk = _perfwalk(config, "run", "--walk", "nightly")
    assert walk.returncode == 0, walk.stdout + walk.stderr
    return config, commits


def _drill_env(config: Path, *args: str) -> tuple[int, dict[str, object]]:
    done = _perfwalk(config, "drill-env", *args, "--format", "json")
    assert done.returncode in (0, 1, 4), done.stdout + done.stderr
    return done.returncode, json.loads(done.stdout)


def test_a_step_no_commit_made_follows_the_environment(walked: tuple[Path, list[str]]) -> None:
    config, commits = walked
    changes = _perfwalk(config, "changes", "--all", "--format", "json")
    found = json.loads(changes.stdout)["changes"]
    at_5 = [c for c in found if commits[5].startswith(c["after"]["commit"])]
    assert at_5, [c["after"]["commit"][:8] for c in found]  # the walk saw it at checkout 5
    code, answer = _drill_env(config, at_5[0]["id"], "--environments", "old-image,new-image")
    assert code == 1, answer  # an environment moves it
    assert answer["verdict"] == "environment", answer
    assert answer["moved_by"] == ["old-image", "new-image"]
    assert "follows old-image → new-image" in str(answer["said"])
    assert "not any commit" in str(answer["said"])
    assert all(not effect["counts"] for effect in answer["commits"])  # type: ignore[union-attr]
    with Store.open(f"sqlite:///{config.parent / 'perfwalk.db'}") as store:
        row = store.env_drills.get(int(answer["series"]))  # type: ignore[arg-type]
        assert row is not None
        assert row.answer is not None
        assert row.answer["verdict"] == "environment"
        assert [e["name"] for e in row.environments] == ["old-image", "new-image"]
        assert len(row.sides) == 4
        assert store.series(row.series_id).kind == "environment"
        assert len(store.checkouts(row.series_id)) == 4


def test_a_step_the_code_made_is_the_codes(walked: tuple[Path, list[str]]) -> None:
    config, commits = walked
    code, answer = _drill_env(
        config,
        "--between",
        commits[8],
        commits[9],
        "--metric",
        "bench.time",
        "--environments",
        "new-image,twice",
    )
    # half the loop in both environments: the commits move it; "twice" moves it too
    assert answer["verdict"] == "both", answer
    commit_effects = answer["commits"]
    assert isinstance(commit_effects, list)
    assert all(e["counts"] and e["change"] < -0.3 for e in commit_effects)
    assert code == 1


def test_the_same_environment_twice_leaves_the_code_alone(walked: tuple[Path, list[str]]) -> None:
    config, commits = walked
    code, answer = _drill_env(
        config,
        "--between",
        commits[8],
        commits[9],
        "--metric",
        "bench.time",
        "--environments",
        "new-image,new-image",
        "--repetitions",
        "4",
    )
    assert (code, answer["verdict"]) == (0, "code"), answer
    assert "is the code's" in str(answer["said"])


def test_bad_environments_are_refused_with_what_the_file_has(
    walked: tuple[Path, list[str]],
) -> None:
    config, commits = walked
    one = _perfwalk(config, "drill-env", "--between", commits[0], commits[1], "--metric",
                    "bench.time", "--environments", "old-image")  # fmt: skip
    assert one.returncode == 2
    assert "drill-env compares two environments or more" in one.stderr
    unknown = _perfwalk(config, "drill-env", "--between", commits[0], commits[1], "--metric",
                        "bench.time", "--environments", "old-image,gcc-99")  # fmt: skip
    assert unknown.returncode == 2
    assert "no [[environment]] named 'gcc-99'" in unknown.stderr
    assert "known: old-image, new-image, twice" in unknown.stderr
    nothing = _perfwalk(config, "drill-env")
    assert nothing.returncode == 2
    assert "drill-env needs the change to compare" in nothing.stderr
