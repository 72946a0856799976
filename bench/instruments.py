"""Instruments against a busy machine: wall time beside cachegrind's counts and rusage.

Run: ``.venv/bin/python bench/instruments.py [--commits 16] [--repetitions 3] [--keep DIR]``

A small C project made here (a git repository of ``--commits`` commits, one a day):
its program loops a fixed number of turns and prints its own wall time; the commit
after the middle of the history does 5 % more turns, every other commit changes only a
text file. Two tests run the same program: ``native`` (its wall time, with
``rusage``) and ``simulated`` (under ``[[test.instrument]] kind = "cachegrind"``).
The history is walked every 4th commit (``step = "commit/4"``) twice with real
``perfwalk run`` processes: on the machine as it is ("quiet") and with as many
CPU-bound processes as it has cores started by this bench beside the walk
("loaded"), stopped by their PIDs. Then, under the same load, the 5 % change is
drilled between the two checkouts around it twice: once on wall time, once on
cachegrind's instructions (``perfwalk drill --between … --test … --value …``).

Printed per metric and walk: the coefficient of variation of a checkout's
repetitions (the median over checkouts), the changes found (checkout and size; the
true one is marked) and the drills' answers with the repetitions each needed.

Goals: an instrument's count varies by at most 0.1 % under load, no change that is
not the true one on an instrument's metric under load, and the drill on
instructions needs at most half the repetitions of the drill on wall time. Exits 1
when one is missed. A benchmark, not a test: nothing here is timed by pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: the loop's turns before the change (about 10 instructions each)
WORK = 5_000_000
STEP = 0.05  # the change of work: +5 %
FIRST_DAY = datetime(2024, 1, 1, 12, tzinfo=UTC)
GOAL_CV = 0.001
GOAL_DRILL_SHARE = 0.5
INSTRUMENTS = ("cachegrind.instructions", "cachegrind.cycles")

PROGRAM = """\
#include <stdio.h>
#include <time.h>
#include "work.h"

int main(void) {
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  static unsigned buf[1 << 12];
  unsigned h = 1;
  for (long i = 0; i < WORK; i++) { h = h * 2654435761u + buf[h & 0xfff]; buf[i & 0xfff] ^= h; }
  clock_gettime(CLOCK_MONOTONIC, &end);
  double ms = (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6;
  printf("checksum %u\\nVALUE %.3f ms elapsed\\n", h, ms);
  return 0;
}
"""

CONFIG = """\
[project]
repo = {repo}

[store]
url = {store}

[build]
steps = ["cc -O1 -o bench bench.c"]

[run]
step = "commit/4"
repetitions = {repetitions}

[[test]]
name = "native"
command = "./bench"
parser = "value"
timeout = 120
[[test.instrument]]
kind = "rusage"

[[test]]
name = "simulated"
command = "./bench"
parser = "value"
timeout = 600
[[test.instrument]]
kind = "cachegrind"
"""


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env
    ).stdout


def make_project(repo: Path, commits: int) -> tuple[list[str], int]:
    """The project's repository: its commits, oldest first, and the index of the one
    that does 5 % more work."""
    changed = commits // 2 + 1
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    hashes = []
    for i in range(commits):
        work = WORK if i < changed else round(WORK * (1 + STEP))
        (repo / "bench.c").write_text(PROGRAM)
        (repo / "work.h").write_text(f"#define WORK {work}\n")
        (repo / "commit.txt").write_text(f"{i}\n")
        git(repo, "add", "-A")
        date = (FIRST_DAY + timedelta(days=i)).isoformat()
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "Ada",
            "GIT_AUTHOR_EMAIL": "ada@example.org",
            "GIT_COMMITTER_NAME": "Ada",
            "GIT_COMMITTER_EMAIL": "ada@example.org",
            "GIT_AUTHOR_DATE": date,
            "GIT_COMMITTER_DATE": date,
        }
        git(repo, "commit", "-q", "-m", f"commit {i}: work {work}", env=env)
        hashes.append(git(repo, "rev-parse", "HEAD").strip())
    return hashes, changed


def perfwalk(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "perfwalk", *args, "-c", str(config)],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
        check=False,
    )


@contextmanager
def cpu_load(count: int) -> Iterator[None]:
    """``count`` CPU-bound processes beside whatever runs in the block, each stopped
    by its PID at its end."""
    hogs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
        for _ in range(count)
    ]
    try:
        time.sleep(0.5)
        yield
    finally:
        for hog in hogs:
            hog.send_signal(signal.SIGKILL)
            hog.wait()


def walk(directory: Path, repo: Path, repetitions: int) -> dict[str, Any]:
    """One walk of the project into a store of its own: its changes (``perfwalk
    changes --format json``) and the values of each metric per checkout."""
    directory.mkdir()
    config = directory / "perfwalk.toml"
    config.write_text(
        CONFIG.format(
            repo=json.dumps(str(repo)),
            store=json.dumps(f"sqlite:///{directory / 'perfwalk.db'}"),
            repetitions=repetitions,
        )
    )
    started = time.monotonic()
    ran = perfwalk(config, "run")
    if ran.returncode not in (0, 1, 4):
        raise SystemExit(f"perfwalk run failed ({ran.returncode}):\n{ran.stderr[-3000:]}")
    seconds = time.monotonic() - started
    found = json.loads(perfwalk(config, "changes", "--format", "json").stdout)
    exported = perfwalk(config, "export", "--format", "json")
    return {
        "config": config,
        "seconds": seconds,
        "changes": found["changes"],
        "values": values_per_checkout(json.loads(exported.stdout)),
    }


def values_per_checkout(exported: Any) -> dict[str, list[list[float]]]:
    """``test.metric`` → per checkout, the values of its repetitions (from ``perfwalk
    export --format json``)."""
    out: dict[str, list[list[float]]] = {}
    for series in exported["series"]:
        for checkout in series["checkouts"]:
            for name, values in checkout_values(checkout).items():
                out.setdefault(name, []).append(values)
    return out


def checkout_values(checkout: dict[str, Any]) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for repetition in checkout["repetitions"]:
        for result in repetition["tests"]:
            for value in result["values"]:
                found.setdefault(f"{result['name']}.{value['name']}", []).append(value["value"])
    return found


def cv(sets: Sequence[Sequence[float]]) -> float:
    """The median over checkouts of the coefficient of variation of their values."""
    return statistics.median(
        statistics.stdev(values) / statistics.mean(values) for values in sets if len(values) > 1
    )


def changes_of(changes: Sequence[dict[str, Any]], test: str, name: str) -> list[tuple[int, float]]:
    return [
        (event["after"]["idx"], metric["relative"])
        for event in changes
        for metric in event["metrics"]
        if metric["test"] == test and metric["name"] == name
    ]


def drill(config: Path, before: str, after: str, test: str, value: str) -> dict[str, Any]:
    ran = perfwalk(
        config,
        "drill",
        "--between",
        before,
        after,
        "--test",
        test,
        "--value",
        value,
        "--format",
        "json",
    )
    answer: dict[str, Any] = json.loads(ran.stdout)["drills"][0]
    return answer


METRICS = (
    ("native", "elapsed", "wall time (native)"),
    ("native", "rusage.user_cpu", "rusage user CPU"),
    ("simulated", "cachegrind.instructions", "cachegrind instructions"),
    ("simulated", "cachegrind.cycles", "cachegrind cycles (simulated)"),
    ("simulated", "elapsed", "wall time (under valgrind)"),
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commits", type=int, default=32)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="keep the walks' stores here")
    args = parser.parse_args(argv)
    cores = os.cpu_count() or 2
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        hashes, changed = make_project(root / "repo", args.commits)
        walked = list(range(0, args.commits, 4))
        if walked[-1] != args.commits - 1:
            walked.append(args.commits - 1)
        true_idx = next(i for i, c in enumerate(walked) if c >= changed)
        quiet = walk(root / "quiet", root / "repo", args.repetitions)
        with cpu_load(cores):
            loaded = walk(root / "loaded", root / "repo", args.repetitions)
            before, after = hashes[walked[true_idx - 1]], hashes[walked[true_idx]]
            drills = {
                "wall time": drill(loaded["config"], before, after, "native", "elapsed"),
                "instructions": drill(
                    loaded["config"], before, after, "simulated", "cachegrind.instructions"
                ),
            }
    print(
        f"{args.commits} commits walked every 4th ({len(walked)} checkouts x {args.repetitions}"
        f" repetitions); commit {changed} does {STEP:.0%} more work (checkout {true_idx});"
        f" loaded: {cores} CPU-bound processes on {cores} cores"
    )
    print(f"walks: quiet {quiet['seconds']:.0f} s, loaded {loaded['seconds']:.0f} s")
    print()
    print(
        f"{'metric':32} {'CV quiet':>9} {'CV loaded':>10}   changes quiet / loaded (* the true one)"
    )
    failed: list[str] = []
    for test, name, label in METRICS:
        key = f"{test}.{name}"
        cells = []
        for result in (quiet, loaded):
            found = changes_of(result["changes"], test, name)
            cells.append(
                ", ".join(f"{'*' if i == true_idx else ''}{i} {r:+.1%}" for i, r in found) or "-"
            )
        q, ld = cv(quiet["values"][key]), cv(loaded["values"][key])
        print(f"{label:32} {q:9.3%} {ld:10.3%}   {cells[0]} / {cells[1]}")
        if name in INSTRUMENTS:
            if ld > GOAL_CV:
                failed.append(f"{label} varies by {ld:.3%} under load")
            false = [i for i, _ in changes_of(loaded["changes"], test, name) if i != true_idx]
            if false:
                failed.append(f"{label}: {len(false)} false changes under load")
    print()
    for label, answer in drills.items():
        commit = (answer.get("commit") or "")[:12]
        right = " (the commit)" if answer.get("commit") == hashes[changed] else ""
        print(
            f"drill on {label:12}: {answer.get('verdict')} {commit}{right},"
            f" {answer.get('builds')} builds, {answer.get('repetitions')} repetitions"
        )
    wall, counted = (drills[k].get("repetitions") or 0 for k in ("wall time", "instructions"))
    if drills["instructions"].get("commit") != hashes[changed]:
        failed.append("the drill on instructions did not name the commit")
    elif wall and counted > GOAL_DRILL_SHARE * wall:
        failed.append(f"the drill on instructions needed {counted} of wall time's {wall}")
    print()
    goals = (
        f"goals: instruments' CV <= {GOAL_CV:.1%} under load, no false change of theirs under"
        f" load, a drill on instructions in <= {GOAL_DRILL_SHARE:.0%} of wall time's repetitions"
    )
    print(f"{goals} -> {'FAIL: ' + '; '.join(failed) if failed else 'PASS'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
