"""``perfwalk drill-env``: does a step follow the code or the environment?

A real C benchmark (a loop calling a small function, which -O2 inlines and -O0 does
not; timed in CPU time, so that a busy machine weighs little)
built with ``cc $OPT``. The walk's build picks ``-O0`` for its first three builds and
``-O2`` from the fourth on (as a CI image updated overnight would), so the walk sees a
step at checkout 5 that no commit made; commit 9 halves the loop (a step the code
made). Measured in two real environments (``[[environment]] build_env`` OPT=-O0 and
OPT=-O2), the first step follows the environment and the second is the code's; an
environment that sets the tests' environment (``run_env``) is measured too.

Beside it, a program linked against a shared library (``app``, test ``linked``): two
real builds of the library, made outside the repository — ``lib-1x`` and ``lib-2x``,
which does twice the work — and a copy of ``lib-1x`` at another path. The program finds
``lib-1x`` through its RUNPATH; the environments ``lib-1x``, ``lib-2x`` and
``lib-1x-copy`` differ only by ``run_env`` LD_LIBRARY_PATH, as the same program run with
and without a changed library path. Commit 12 makes the program call the library twice
(a step the code made). Real compiler, real dynamic loader, real processes, SQLite."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.store import Store
from tests.fixtures.commands import perfwalk_with
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

APP = r"""#include <stdio.h>
#include <time.h>

unsigned long work(unsigned long seed);

int main(void) {
    unsigned long acc = 0;
    clock_t start = clock();
    for (int call = 0; call < CALLS; call++) acc += work(acc + (unsigned long)call);
    double ms = (double)(clock() - start) * 1000.0 / CLOCKS_PER_SEC;
    printf("VALUE %.3f ms time\n", ms);
    return acc == 42;
}
"""

#: the shared library the program is linked against, built outside the repository
LIBRARY = r"""unsigned long work(unsigned long seed) {
    unsigned long x = seed | 1UL;
    for (long i = 0; i < WORK; i++) x = (x ^ (unsigned long)i) * 6364136223846793005UL + 1UL;
    return x;
}
"""

BUILD = """\
n=$(cat "$BUILDS" 2>/dev/null || echo 0)
echo $((n + 1)) > "$BUILDS"
if [ -z "$OPT" ]; then
  if [ "$n" -ge 5 ]; then OPT=-O2; else OPT=-O0; fi
fi
cc $OPT -DLOOPS=$(cat loops.txt) -o bench bench.c
cc -O2 -DCALLS=$(cat calls.txt) -o app app.c -L"$LIBWORK" -lwork \\
  -Wl,-rpath,"$LIBWORK" -Wl,--enable-new-dtags
"""

CONFIG = """\
[project]
repo = "project"
[build]
steps = ["sh build.sh"]
env = {{ BUILDS = "{builds}", LIBWORK = "{libs}/lib-1x" }}
[run]
repetitions = 3
[[test]]
name = "bench"
command = "./bench"
parser = "value"
[test.metrics.time]
min_change = 0.05
[[test]]
name = "linked"
command = "./app"
parser = "value"
[test.metrics.time]
min_change = 0.1
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
[[environment]]
name = "lib-1x"
run_env = {{ LD_LIBRARY_PATH = "{libs}/lib-1x" }}
[[environment]]
name = "lib-2x"
comment = "the library's next release: twice the work per call"
run_env = {{ LD_LIBRARY_PATH = "{libs}/lib-2x" }}
[[environment]]
name = "lib-1x-copy"
comment = "the same build of the library at another path"
run_env = {{ LD_LIBRARY_PATH = "{libs}/lib-1x-copy" }}
"""

LOOPS = 3_000_000
#: where two effects of nothing (a commit that changed a note, a copy of a library) are
#: asserted not to count: at 99.5 % for the drill's 4 effects together each is compared
#: at 99.875 %, so that one of them counts in at most 1 drill of 400 (at 95 % for all
#: together, 1 of 40; at 95 % each, 1 of 10: this VM's CPU time spreads by as much as
#: 17 % from run to run, beyond the metrics' min_change); 8 rounds keep the steps it
#: measures proven at that confidence
SURE = ("--confidence", "99.5", "--repetitions", "8")
#: the library's loop in lib-1x (lib-2x: twice as many)
WORK = 8_000_000


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The project (13 commits: notes, commit 9 halves the loop, commit 12 calls the
    library twice) walked on main, the library's builds beside it; the configuration
    and the commits."""
    folder = tmp_path_factory.mktemp("env")
    libs = folder / "libs"
    (folder / "work.c").write_text(LIBRARY, encoding="utf-8")
    for name, work in (("lib-1x", WORK), ("lib-2x", 2 * WORK)):
        (libs / name).mkdir(parents=True)
        subprocess.run(
            ["cc", "-O2", "-shared", "-fPIC", f"-DWORK={work}", "-Wl,-soname,libwork.so",
             "-o", str(libs / name / "libwork.so"), str(folder / "work.c")],
            check=True,
        )  # fmt: skip
    shutil.copytree(libs / "lib-1x", libs / "lib-1x-copy")
    start = datetime(2025, 1, 1, tzinfo=UTC)
    files = {"bench.c": BENCH, "app.c": APP, "build.sh": BUILD, "calls.txt": "1\n"}
    specs = [
        CommitSpec(start, "A benchmark", {**files, "loops.txt": f"{LOOPS}\n", "notes": "0\n"}),
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
        CommitSpec(start + timedelta(days=12), "Call the library twice", {"calls.txt": "2\n"}),
    ]
    commits = make_repo(folder / "project", specs)
    config = folder / "perfwalk.toml"
    config.write_text(CONFIG.format(builds=folder / "builds", libs=libs), encoding="utf-8")
    walk = perfwalk_with(config, "run", "--walk", "nightly")
    assert walk.returncode == 0, walk.stdout + walk.stderr
    return config, commits


def _drill_env(config: Path, *args: str) -> tuple[int, dict[str, object]]:
    done = perfwalk_with(config, "drill-env", *args, "--format", "json")
    assert done.returncode in (0, 1, 4), done.stdout + done.stderr
    return done.returncode, json.loads(done.stdout)


def test_a_step_no_commit_made_follows_the_environment(walked: tuple[Path, list[str]]) -> None:
    """The walk sees the step at checkout 5 and the drill starts from that change; on
    a machine so busy that the loop's CPU time moves by half between repetitions the
    walk cannot, and says so (undecided, never "no changes"): the drill then starts
    from the two commits."""
    config, commits = walked
    changes = perfwalk_with(config, "changes", "--all", "--format", "json")
    report = json.loads(changes.stdout)
    at_5 = [c for c in report["changes"] if commits[5].startswith(c["after"]["commit"])]
    where: tuple[str, ...] = (at_5[0]["id"],) if at_5 else ()
    if not at_5:
        (floor,) = [f for f in report["floors"] if (f["test"], f["name"]) == ("bench", "time")]
        assert floor["undecided"], report
        where = ("--between", commits[4], commits[5], "--metric", "bench.time")
    code, answer = _drill_env(config, *where, "--environments", "old-image,new-image", *SURE)
    assert code == 1, answer  # an environment moves it
    assert (answer["confidence"], answer["each_confidence"]) == (99.5, pytest.approx(99.875))
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
        assert row.answer["confidence"] == 99.5


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
        *SURE,
    )
    assert (code, answer["verdict"]) == (0, "code"), answer
    assert "is the code's" in str(answer["said"])


def test_a_step_no_commit_made_follows_the_library_path(walked: tuple[Path, list[str]]) -> None:
    config, commits = walked
    code, answer = _drill_env(
        config,
        "--between",
        commits[1],
        commits[2],
        "--metric",
        "linked.time",
        "--environments",
        "lib-1x,lib-2x",
        *SURE,
    )
    # the same program, its library found at another path: twice the work at both commits
    assert (code, answer["verdict"]) == (1, "environment"), answer
    assert answer["moved_by"] == ["lib-1x", "lib-2x"]
    assert answer["unit"] == "ms"  # as measured: the two commits had none before
    assert "follows lib-1x → lib-2x" in str(answer["said"])
    effects = answer["environments"]
    assert isinstance(effects, list)
    assert len(effects) == 2  # lib-1x → lib-2x at each commit
    assert all(e["counts"] and e["change"] > 0.5 for e in effects), effects
    assert all(not effect["counts"] for effect in answer["commits"])  # type: ignore[union-attr]


def test_a_step_the_code_made_with_one_library_is_the_codes(
    walked: tuple[Path, list[str]],
) -> None:
    config, commits = walked
    done = perfwalk_with(config, "drill-env", "--between", commits[11], commits[12], "--metric",
                     "linked.time", "--environments", "lib-1x,lib-1x-copy", *SURE)  # fmt: skip
    print(done.stdout)
    # one build of the library at two paths: the commit's second call is the step
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for env in ("lib-1x", "lib-1x-copy"):  # the medians in their unit, the commits' effect
        said = [line for line in lines if line.startswith(f"  in {env}: before ")]
        assert len(said) == 1, lines
        assert re.fullmatch(
            rf"  in {env}: before [0-9.]+ ms, after [0-9.]+ ms \(medians\): the commits "
            r"\+\d+(\.\d)? % \[.*\]",
            said[0],
        ), said
    assert sum(" (within min_change or not proven)" in line for line in lines) == 2, lines
    assert "  each effect at 99.875 % confidence: 99.5 % for all 4 together" in lines
    assert any(line.startswith("  CODE: the step of linked.time is the code's") for line in lines)


def test_bad_environments_are_refused_with_what_the_file_has(
    walked: tuple[Path, list[str]],
) -> None:
    config, commits = walked
    one = perfwalk_with(config, "drill-env", "--between", commits[0], commits[1], "--metric",
                    "bench.time", "--environments", "old-image")  # fmt: skip
    assert one.returncode == 2
    assert "drill-env compares two environments or more" in one.stderr
    unknown = perfwalk_with(config, "drill-env", "--between", commits[0], commits[1], "--metric",
                        "bench.time", "--environments", "old-image,gcc-99")  # fmt: skip
    assert unknown.returncode == 2
    assert "no [[environment]] named 'gcc-99'" in unknown.stderr
    assert "known: old-image, new-image, twice, lib-1x, lib-2x, lib-1x-copy" in unknown.stderr
    nothing = perfwalk_with(config, "drill-env")
    assert nothing.returncode == 2
    assert "drill-env needs the change to compare" in nothing.stderr
    odd = perfwalk_with(config, "drill-env", "--between", commits[0], commits[1], "--metric",
                    "bench.time", "--confidence", "97")  # fmt: skip
    assert odd.returncode == 2
    assert "--confidence: invalid choice: 97.0" in odd.stderr, odd.stderr
