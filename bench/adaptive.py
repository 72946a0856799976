"""An adaptive walk against a fixed-step walk plus a drill of each change it found.

Run: ``.venv/bin/python bench/adaptive.py [--seeds 5] [--commits 1000]
[--fixed-checkouts N] [--quick]``

Each seed makes a real git repository of ``--commits`` first-parent commits (with
``git fast-import``) whose history has 3 to 6 steps of 5 to 30 % (up or down) at
random commits, a slow drift (up to 2 % over the line) and a per-run noise of 1 to 3
% of the level; commit p stores its known level in ``level.txt``, and the benchmark
(``bench.sh``, awk) prints it with seeded Gaussian noise. Both methods measure it
with real ``perfwalk`` processes, each in a store of its own, in the same run:

- **fixed + drill**: ``perfwalk run --step commit/K``, then ``perfwalk drill`` of
  every change ``perfwalk changes`` found (its default budget); K is a quarter of the
  fewest commits between two steps, so that every level holds at least 3 checkouts
  (the detector's ``min_size``) and each step can be seen (``--fixed-checkouts N``
  walks N checkouts instead: a coarser walk spends fewer builds and misses the steps
  whose levels it cannot tell apart);
- **adaptive**: ``perfwalk run --adaptive --budget B`` (B = 25 + 8 per known step).

Builds are the checkouts built in every series of the store (the walk's, each
drill's); repetitions are every repetition stored. A step is **found** when a
drill names its commit as the culprit, or when ``perfwalk changes`` reports a
change between it and the commit before (the adaptive walk measured both); else
it is **missed**. The table gives per seed, then the medians over the seeds, the
builds and repetitions each method spent and the steps it missed, and the ratio
adaptive / fixed + drill. Exits 1 when the adaptive walk spends more builds than
the baseline (median) or misses more steps (in all). ``--quick``: one seed, a small
history (80 commits, 2 steps, 3 repetitions per checkout: for tests). A benchmark,
not a test: nothing here is timed by pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

try:
    from perfwalk.store import Store
except ModuleNotFoundError:  # run from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from perfwalk.store import Store

SRC = Path(__file__).resolve().parents[1] / "src"
GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.org",
}
REPETITIONS = 5
QUICK_REPETITIONS = 3  # --quick: fewer, on a history of QUICK_COMMITS
QUICK_COMMITS = 80
COARSE_BUDGET = 25  # the adaptive walk's budget: this, and BUDGET_PER_STEP per step
BUDGET_PER_STEP = 8
SMALLEST = 0.05  # the steps a method must find
METHODS = ("fixed + drill", "adaptive")

#: prints the known level of the commit it runs at, with seeded Gaussian noise
BENCH_SH = r"""#!/bin/sh
runs=$(( $(cat "{counter}" 2>/dev/null || echo 0) + 1 ))
echo "$runs" > "{counter}"
awk -v level="$(cat level.txt)" -v runs="$runs" -v noise="{noise}" 'BEGIN {{
  srand({seed} * 100003 + runs)
  u = rand(); v = rand(); if (u < 1e-12) u = 1e-12
  z = sqrt(-2 * log(u)) * cos(6.283185307179586 * v)
  printf "VALUE %.6f ms latency\n", level * (1 + noise * z)
}}'
"""


@dataclass(frozen=True)
class History:
    """A seeded history: its steps (commit → factor), drift and noise."""

    seed: int
    commits: int
    steps: dict[int, float]
    drift: float
    noise: float
    apart: int  # the fewest commits between two steps

    @staticmethod
    def of(seed: int, commits: int, quick: bool) -> History:
        rng = random.Random(f"bench-adaptive/{seed}")
        count = 2 if quick else rng.randint(3, 6)
        apart = commits // 4 if quick else commits // 25  # 25 % of the line, or 4 %
        at: list[int] = []
        while len(at) < count:  # steps more than `apart` commits apart
            p = rng.randrange(commits // 20, commits - commits // 20)
            if all(abs(p - q) > apart for q in at):
                at.append(p)
        factors = {p: 1 + rng.choice((-1, 1)) * rng.uniform(0.05, 0.3) for p in sorted(at)}
        noise = rng.uniform(0.01, 0.015 if quick else 0.03)
        return History(seed, commits, factors, rng.uniform(-0.02, 0.02), noise, apart)

    def fixed_every(self, checkouts: int | None) -> int:
        """The fixed walk's step (commit/N): ``checkouts`` over the line, or by default
        a quarter of the fewest commits between two steps, so that every level holds
        at least 3 checkouts (the detector's min_size) and is told from its
        neighbours."""
        if checkouts is not None:
            return max(1, self.commits // checkouts)
        return max(1, self.apart // 4)

    def level(self, p: int) -> float:
        level = 100.0 * (1 + self.drift * p / self.commits)
        for at, factor in self.steps.items():
            if p >= at:
                level *= factor
        return level

    def must_find(self) -> list[int]:
        """The steps of 5 % or more (every step here, as made)."""
        return [p for p, f in self.steps.items() if abs(f - 1) >= SMALLEST]


@dataclass(frozen=True)
class Spent:
    method: str
    builds: int
    repetitions: int
    missed: int
    seconds: float


def git(repo: Path, *args: str, text_in: str | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env=GIT_ENV,
        input=text_in,
    )
    return done.stdout


def make_repository(path: Path, history: History) -> list[str]:
    """A real repository of the history's commits; commit p writes its level."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    stream = []
    for p in range(history.commits):
        message = f"commit {p}\n"
        content = f"{history.level(p):.6f}\n"
        stream.append(
            f"commit refs/heads/main\nmark :{p + 1}\n"
            f"committer Bench <bench@example.org> {1_700_000_000 + 3600 * p} +0000\n"
            f"data {len(message)}\n{message}"
            + (f"from :{p}\n" if p else "")
            + f"M 100644 inline level.txt\ndata {len(content)}\n{content}\n"
        )
    git(path, "fast-import", "--quiet", text_in="".join(stream))
    git(path, "reset", "-q", "--hard", "main")
    return git(path, "rev-list", "--reverse", "main").split()


def config_text(repo: Path, store: Path, bench: Path, worktrees: Path, repetitions: int) -> str:
    return f"""\
[project]
repo = {json.dumps(str(repo))}

[store]
url = {json.dumps(f"sqlite:///{store}")}
worktrees = {json.dumps(str(worktrees))}

[build]
steps = ["true"]

[run]
repetitions = {repetitions}

[analysis]
suspect_load = false

[[test]]
name = "bench"
command = {json.dumps(f"sh {bench}")}
parser = "value"
timeout = 60
"""


def perfwalk(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-m", "perfwalk", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=3600,
    )
    if done.returncode not in (0, 1, 4):
        raise SystemExit(f"perfwalk {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done


def spent(store_url: str) -> tuple[int, int]:
    """(builds, repetitions) stored in every series of the store."""
    builds = repetitions = 0
    with Store.open(store_url, read_only=True) as store:
        for series in store.list_series():
            builds += sum(1 for r in store.checkouts(series.id) if r.build_status is not None)
            repetitions += len(store.done_repetitions(series.id))
    return builds, repetitions


def adjacent_changes(config: Path, position: dict[str, int]) -> set[int]:
    """The commits after each change ``perfwalk changes`` reports between two
    neighbouring commits (located exactly by the walk itself)."""
    done = perfwalk("changes", "-c", str(config), "--format", "json")
    found = set()
    for change in json.loads(done.stdout)["changes"]:
        before, after = position[change["before"]["commit"]], position[change["after"]["commit"]]
        if after == before + 1:
            found.add(after)
    return found


def run_method(
    method: str,
    history: History,
    work: Path,
    ids: list[str],
    *,
    fixed: int | None,
    repetitions: int,
) -> Spent:
    place = work / method.replace(" ", "").replace("+", "-")
    place.mkdir()
    bench = place / "bench.sh"
    bench.write_text(
        BENCH_SH.format(counter=place / "runs", noise=history.noise, seed=history.seed)
    )
    config = place / "perfwalk.toml"
    store = place / "results.db"
    config.write_text(config_text(work / "repo", store, bench, place / "worktrees", repetitions))
    position = {sha: p for p, sha in enumerate(ids)}
    started = time.perf_counter()
    found: set[int] = set()
    if method == "adaptive":
        budget = COARSE_BUDGET + BUDGET_PER_STEP * len(history.steps)
        perfwalk("run", "-c", str(config), "--adaptive", "--budget", str(budget))
    else:
        every = history.fixed_every(fixed)
        perfwalk("run", "-c", str(config), "--step", f"commit/{every}")
        drilled = perfwalk("drill", "-c", str(config), "--format", "json")
        for answer in json.loads(drilled.stdout)["drills"]:
            culprit = answer.get("commit")
            if answer.get("verdict") == "culprit" and culprit in position:
                found.add(position[culprit])
    found |= adjacent_changes(config, position)
    seconds = time.perf_counter() - started
    builds, repetitions = spent(f"sqlite:///{store}")
    missed = sum(1 for p in history.must_find() if p not in found)
    return Spent(method, builds, repetitions, missed, seconds)


HEADER = (
    f"{'seed':>4} {'steps':>5} {'noise':>6}  {'method':<14} {'builds':>6} {'reps':>6} "
    f"{'missed':>6} {'seconds':>7}"
)


def row_line(history: History, row: Spent) -> str:
    return (
        f"{history.seed:>4} {len(history.steps):>5} {history.noise:>6.1%}  {row.method:<14} "
        f"{row.builds:>6} {row.repetitions:>6} {row.missed:>6} {row.seconds:>7.0f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeded histories (5)")
    parser.add_argument("--commits", type=int, default=1000, help="commits per history (1000)")
    parser.add_argument(
        "--fixed-checkouts",
        type=int,
        help="checkouts of the fixed walk (default: every level between two steps gets 4)",
    )
    parser.add_argument("--quick", action="store_true", help="one small history (for tests)")
    args = parser.parse_args(argv)
    seeds = 1 if args.quick else args.seeds
    commits = QUICK_COMMITS if args.quick else args.commits
    repetitions = QUICK_REPETITIONS if args.quick else REPETITIONS
    fixed = (
        f"of {args.fixed_checkouts} checkouts"
        if args.fixed_checkouts
        else "with 4 checkouts in the shortest level"
    )
    print(
        f"adaptive: {seeds} histories of {commits} commits, steps of 5-30 %, noise 1-3 %, "
        f"drift up to 2 %; {repetitions} repetitions per checkout; fixed walk {fixed}"
        f" + a drill of each change; adaptive budget {COARSE_BUDGET} + {BUDGET_PER_STEP} per "
        "step\n",
        flush=True,
    )
    rows: list[tuple[History, Spent]] = []
    print(HEADER, flush=True)
    with tempfile.TemporaryDirectory(prefix="perfwalk-bench-adaptive-") as tmp:
        for seed in range(seeds):
            history = History.of(seed, commits, args.quick)
            work = Path(tmp) / f"seed{seed}"
            ids = make_repository(work / "repo", history)
            for method in METHODS:
                spent = run_method(
                    method, history, work, ids, fixed=args.fixed_checkouts, repetitions=repetitions
                )
                rows.append((history, spent))
                print(row_line(*rows[-1]), flush=True)
    medians = {
        m: [
            statistics.median(getattr(r, k) for _h, r in rows if r.method == m)
            for k in ("builds", "repetitions")
        ]
        for m in METHODS
    }
    missed = {m: sum(r.missed for _h, r in rows if r.method == m) for m in METHODS}
    steps = sum(len(h.must_find()) for h, r in rows if r.method == METHODS[0])
    print(f"\n{'median over seeds':<20} {'builds':>8} {'reps':>8} {'missed':>10}")
    for m in METHODS:
        b, r = medians[m]
        print(f"{m:<20} {b:>8.1f} {r:>8.1f} {missed[m]:>4} of {steps}")
    (fb, fr), (ab, ar) = medians[METHODS[0]], medians[METHODS[1]]
    print(f"{'adaptive / fixed':<20} {ab / fb:>8.2f} {ar / fr:>8.2f}")
    fewer = ab <= fb
    found = missed["adaptive"] <= missed["fixed + drill"]
    print(f"\ngoal: adaptive builds <= fixed + drill builds -> {'PASS' if fewer else 'FAIL'}")
    print(f"goal: adaptive misses no more steps -> {'PASS' if found else 'FAIL'}")
    return 0 if fewer and found else 1


if __name__ == "__main__":
    sys.exit(main())
