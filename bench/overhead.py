"""What LocalHost.run costs per execution, against bare subprocess.run and hyperfine.

Run: ``.venv/bin/python bench/overhead.py [--rounds 10] [--runs 30]``

The same short commands (``/bin/true`` and a 5 ms ``sleep 0.005``) are run by
(a) ``subprocess.run(argv, capture_output=True)``, (b) ``LocalHost.run(argv)`` and
(c) ``hyperfine -N --output=pipe`` (its own per-run times, read from its JSON
export: hyperfine times fork/exec/wait from inside itself, so it shows the floor a
native runner reaches). Methods are interleaved, in a rotating order, round after
round, so that drift on a noisy machine hits them all alike.

Prints medians, p10/p90, the cost LocalHost adds over subprocess.run (ms and
ratio) and against hyperfine, and PASS/FAIL against the goal: at most 5 ms added
per execution. Exits 1 on FAIL. A benchmark, not a test: nothing here is timed by
pytest.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

try:
    from perfwalk.hosts import LocalHost
except ModuleNotFoundError:  # run from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from perfwalk.hosts import LocalHost

GOAL_MS = 5.0
COMMANDS: tuple[tuple[str, ...], ...] = (("/bin/true",), ("sleep", "0.005"))
BARE = "subprocess.run"
LOCAL = "LocalHost.run"
HYPERFINE = "hyperfine -N"

Method = Callable[[tuple[str, ...], int], list[float]]


def timed_loop(run_once: Callable[[tuple[str, ...]], object]) -> Method:
    def method(argv: tuple[str, ...], runs: int) -> list[float]:
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            run_once(argv)
            times.append(time.perf_counter() - t0)
        return times

    return method


def bare(argv: tuple[str, ...]) -> object:
    return subprocess.run(argv, capture_output=True, check=False)


def hyperfine_method(binary: str, workdir: Path) -> Method:
    def method(argv: tuple[str, ...], runs: int) -> list[float]:
        export = workdir / "hyperfine.json"
        subprocess.run(
            [
                binary,
                "-N",
                "--output=pipe",
                "--style=none",
                "--warmup=1",
                f"--runs={max(runs, 2)}",
                f"--export-json={export}",
                shlex.join(argv),
            ],
            check=True,
            capture_output=True,
        )
        times: list[float] = json.loads(export.read_text())["results"][0]["times"]
        return times

    return method


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(
    methods: dict[str, Method], rounds: int, runs: int
) -> dict[tuple[str, ...], dict[str, list[float]]]:
    samples: dict[tuple[str, ...], dict[str, list[float]]] = {
        argv: {name: [] for name in methods} for argv in COMMANDS
    }
    names = list(methods)
    for argv in COMMANDS:  # warm-up: page cache, imports, first fork
        for name in names:
            methods[name](argv, 5)
    for round_no in range(rounds):
        order = names[round_no % len(names) :] + names[: round_no % len(names)]
        for argv in COMMANDS:
            for name in order:
                samples[argv][name].extend(methods[name](argv, runs))
    return samples


def report(samples: dict[tuple[str, ...], dict[str, list[float]]], goal_ms: float) -> bool:
    ms = 1000.0
    print(f"{'command':<14} {'method':<16} {'median ms':>10} {'p10 ms':>8} {'p90 ms':>8} {'n':>6}")
    for argv, by_method in samples.items():
        for name, times in by_method.items():
            print(
                f"{shlex.join(argv):<14} {name:<16} {statistics.median(times) * ms:>10.3f} "
                f"{percentile(times, 0.1) * ms:>8.3f} {percentile(times, 0.9) * ms:>8.3f} "
                f"{len(times):>6}"
            )
    print()
    worst = -float("inf")
    for argv, by_method in samples.items():
        local = statistics.median(by_method[LOCAL])
        base = statistics.median(by_method[BARE])
        added = (local - base) * ms
        worst = max(worst, added)
        line = (
            f"{shlex.join(argv):<14} LocalHost adds {added:+.3f} ms over subprocess.run "
            f"(x{local / base:.2f})"
        )
        if HYPERFINE in by_method:
            native = statistics.median(by_method[HYPERFINE])
            line += f", {(local - native) * ms:+.3f} ms over hyperfine (x{local / native:.2f})"
        print(line)
    passed = worst <= goal_ms
    verdict = "PASS" if passed else "FAIL"
    print(f"\ngoal: <= {goal_ms:g} ms added per execution -> {verdict} (worst {worst:+.3f} ms)")
    return passed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="interleaved rounds (10)")
    parser.add_argument("--runs", type=int, default=30, help="runs per method per round (30)")
    parser.add_argument("--goal-ms", type=float, default=GOAL_MS, help="allowed added cost")
    parser.add_argument("--hyperfine", default="hyperfine", help="hyperfine binary")
    args = parser.parse_args(argv)

    host = LocalHost()
    methods: dict[str, Method] = {
        BARE: timed_loop(bare),
        LOCAL: timed_loop(host.run),
    }
    binary = shutil.which(args.hyperfine)
    with tempfile.TemporaryDirectory(prefix="perfwalk-bench-") as tmp:
        if binary:
            methods[HYPERFINE] = hyperfine_method(binary, Path(tmp))
        else:
            print(f"hyperfine not found ({args.hyperfine}): comparing with subprocess only")
        total = args.rounds * args.runs
        print(
            f"perfwalk overhead: {args.rounds} interleaved rounds x {args.runs} runs "
            f"= {total} executions per method and command\n"
        )
        samples = measure(methods, args.rounds, args.runs)
    return 0 if report(samples, args.goal_ms) else 1


if __name__ == "__main__":
    sys.exit(main())
