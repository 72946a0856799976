"""How long perfwalk takes to start: ``--version``, ``detect`` on 100 points and
``compare`` on two files of 10 values, against ``python3 -c pass`` (the floor of
any Python program) and Debian's ``ministat`` (a C program that compares the same
two files).

Run: ``.venv/bin/python bench/startup.py [--runs 15]``

Each command runs ``--runs`` times as a new process (wall time from fork to exit,
output to /dev/null), the commands interleaved in a rotating order run after run,
so that drift on a noisy machine hits them all alike. Prints median, p10 and p90
per command, the ratio of each perfwalk command to ``python3 -c pass`` and of
``compare`` to ``ministat``, and PASS/FAIL against the goal: ``detect`` and
``compare`` in at most 0.3 s (median). Exits 1 on FAIL. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_S = 0.3
PYTHON = "python3 -c pass"
MINISTAT = "ministat A B"


def write_inputs(folder: Path) -> dict[str, Path]:
    """A 100-point series with one step, and two samples of 10 (seeded)."""
    rng = random.Random(12)
    points = [10 + rng.gauss(0, 0.1) for _ in range(50)] + [
        11 + rng.gauss(0, 0.1) for _ in range(50)
    ]
    files = {
        "points": [f"{v:.4f}" for v in points],
        "a": [f"{10 + rng.gauss(0, 0.2):.4f}" for _ in range(10)],
        "b": [f"{10.5 + rng.gauss(0, 0.2):.4f}" for _ in range(10)],
    }
    paths = {}
    for name, lines in files.items():
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n")
    return paths


def commands(perfwalk: str, ministat: str | None, inputs: dict[str, Path]) -> dict[str, list[str]]:
    a, b = str(inputs["a"]), str(inputs["b"])
    found = {
        PYTHON: [sys.executable, "-c", "pass"],
        "perfwalk --version": [perfwalk, "--version"],
        "perfwalk detect (100 points)": [perfwalk, "detect", str(inputs["points"])],
        "perfwalk compare A B (10 + 10)": [perfwalk, "compare", a, b],
    }
    if ministat is not None:
        found[MINISTAT] = [ministat, a, b]
    return found


def once(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


def measure(argvs: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    names = list(argvs)
    times: dict[str, list[float]] = {name: [] for name in names}
    for name in names:  # warm-up: the page cache, .pyc files
        once(argvs[name])
    for run in range(runs):
        shift = run % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(once(argvs[name]))
    return times


def quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[int(q * 10) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs per command (default 15)")
    args = parser.parse_args()
    perfwalk = str(Path(sys.executable).with_name("perfwalk"))
    if not Path(perfwalk).exists():
        print(f"no {perfwalk}: run `make install` first", file=sys.stderr)
        return 2
    ministat = shutil.which("ministat")
    if ministat is None:
        print("ministat is missing (Debian package ministat): it is left out", file=sys.stderr)
    with tempfile.TemporaryDirectory() as folder:
        argvs = commands(perfwalk, ministat, write_inputs(Path(folder)))
        times = measure(argvs, args.runs)
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"{'command':32} {'median ms':>10} {'p10 ms':>8} {'p90 ms':>8} {'n':>4}")
    for name, values in times.items():
        print(
            f"{name:32} {median[name] * 1000:10.1f} {quantile(values, 0.1) * 1000:8.1f} "
            f"{quantile(values, 0.9) * 1000:8.1f} {len(values):4}"
        )
    print()
    floor = median[PYTHON]
    for name in argvs:
        if name.startswith("perfwalk"):
            print(f"{name:32} x{median[name] / floor:.1f} {PYTHON}", end="")
            if name.startswith("perfwalk compare") and MINISTAT in median:
                print(f", x{median[name] / median[MINISTAT]:.1f} {MINISTAT}", end="")
            print()
    checked = [name for name in argvs if name.startswith(("perfwalk detect", "perfwalk compare"))]
    worst = max(median[name] for name in checked)
    verdict = "PASS" if worst <= GOAL_S else "FAIL"
    print(f"\ngoal: detect and compare <= {GOAL_S:g} s -> {verdict} (slowest {worst:.3f} s)")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
