"""What perfwalk costs per step over ssh, against bare ``ssh`` with ControlMaster.

Run (root, Linux): ``.venv/bin/python bench/ssh_overhead.py [--rounds 40] [--runs 5]``

It makes a lab of its own (``perfwalk lab``, name ``pwbench``, removed at the
end) and runs the same short step on the lab's dut, ``true`` and a 5 ms
``sleep 0.005``, by

(a) ``ssh -o ControlPath=… dut 'sh -c …'`` through a master connection the
    benchmark opened itself (``ssh -M -N -f``): the bare peer;
(b) ``SshHost.run(["sh", "-c", …])``: perfwalk's host, over its own master
    connection, with the remote process-group script and bounded capture;
(c) a phase step: ``StepRecorder.shell``, what a test's startup, run, collect or
    reset step costs, with its work directory and its record.

Methods are interleaved, in a rotating order, round after round, so that drift on
a noisy machine hits them all alike. Prints medians, p10/p90, the ratio of (b) and
(c) to (a), and PASS/FAIL against the goal of at most 1.5 times the bare ssh
(exit 1 on FAIL). A benchmark, not a test: nothing here is timed by pytest.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

try:
    from perfwalk.hosts import SshHost, SshTarget
except ModuleNotFoundError:  # run from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from perfwalk.hosts import SshHost, SshTarget
from perfwalk.lab import LabPlan, lab_down, lab_plan, lab_up
from perfwalk.orchestrate.hosts.topology import Member, Topology
from perfwalk.orchestrate.steps.recorder import Place, StepRecorder

GOAL_RATIO = 1.5
STEPS = ("true", "sleep 0.005")
BARE = "ssh ControlMaster"
HOST = "SshHost.run"
STEP = "phase step"

Method = Callable[[str], object]


def bare_ssh(plan: LabPlan, control: Path) -> tuple[Method, Callable[[], None]]:
    """ssh through a master connection of our own; and how to close it."""
    base = ["ssh", "-F", str(plan.ssh_config), "-o", f"ControlPath={control}"]
    target = plan.namespace("dut")
    subprocess.run([*base, "-M", "-N", "-f", target], check=True)

    def run(step: str) -> object:
        command = shlex.join(["sh", "-c", step])
        return subprocess.run([*base, target, command], capture_output=True, check=True)

    def close() -> None:
        subprocess.run([*base, "-O", "exit", target], capture_output=True, check=False)

    return run, close


def measure(
    methods: dict[str, Method], rounds: int, runs: int
) -> dict[str, dict[str, list[float]]]:
    samples: dict[str, dict[str, list[float]]] = {
        step: {name: [] for name in methods} for step in STEPS
    }
    names = list(methods)
    for step in STEPS:  # warm-up: connections, page cache, imports
        for name in names:
            for _ in range(3):
                methods[name](step)
    for round_no in range(rounds):
        order = names[round_no % len(names) :] + names[: round_no % len(names)]
        for step in STEPS:
            for name in order:
                for _ in range(runs):
                    t0 = time.perf_counter()
                    methods[name](step)
                    samples[step][name].append(time.perf_counter() - t0)
    return samples


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report(samples: dict[str, dict[str, list[float]]], goal: float) -> bool:
    ms = 1000.0
    print(f"{'step':<12} {'method':<18} {'median ms':>10} {'p10 ms':>8} {'p90 ms':>8} {'n':>5}")
    for step, by_method in samples.items():
        for name, times in by_method.items():
            print(
                f"{step:<12} {name:<18} {statistics.median(times) * ms:>10.2f} "
                f"{percentile(times, 0.1) * ms:>8.2f} {percentile(times, 0.9) * ms:>8.2f} "
                f"{len(times):>5}"
            )
    print()
    worst = 0.0
    for step, by_method in samples.items():
        base = statistics.median(by_method[BARE])
        for name in (HOST, STEP):
            mine = statistics.median(by_method[name])
            worst = max(worst, mine / base)
            print(
                f"{step:<12} {name} costs {(mine - base) * ms:+.2f} ms over bare ssh "
                f"(x{mine / base:.2f})"
            )
    passed = worst <= goal
    verdict = "PASS" if passed else "FAIL"
    print(f"\ngoal: <= {goal:g} x bare ssh with ControlMaster -> {verdict} (worst x{worst:.2f})")
    return passed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40, help="interleaved rounds (40)")
    parser.add_argument("--runs", type=int, default=5, help="runs per method per round (5)")
    parser.add_argument("--goal", type=float, default=GOAL_RATIO, help="allowed ratio (1.5)")
    parser.add_argument("--lab", default="pwbench", help="name of the lab it makes (pwbench)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("bench/ssh_overhead.py needs root: it makes a lab of network namespaces")
        return 2
    plan = lab_plan(args.lab)
    lab_up(plan)
    try:
        with tempfile.TemporaryDirectory(prefix="pw-bench-") as tmp:
            control = Path(tmp)
            target = SshTarget(
                plan.namespace("dut"), ssh_config=plan.ssh_config, known_hosts=plan.known_hosts
            )
            host = SshHost("dut", target, control)
            member = Member("dut", host, local=False, roles=("dut",))
            topology = Topology({"dut": member}, "dut")
            recorder = StepRecorder(
                test="bench",
                env={"PERFWALK_COMMIT": "0" * 40},
                output_limit=1 << 20,
                artifact_limit=1 << 20,
                cwd=lambda m: topology.workdir(m.name),
            )
            place = Place("run", "dut", member)
            bare, close = bare_ssh(plan, control / "bare.sock")
            methods: dict[str, Method] = {
                BARE: bare,
                HOST: lambda step: host.run(["sh", "-c", step]),
                STEP: lambda step: recorder.shell(place, step, 30),
            }
            print(
                f"perfwalk ssh overhead on lab {plan.name}: {args.rounds} interleaved rounds x "
                f"{args.runs} runs = {args.rounds * args.runs} steps per method and step\n"
            )
            try:
                samples = measure(methods, args.rounds, args.runs)
            finally:
                close()
                topology.close()
    finally:
        lab_down(plan)
    return 0 if report(samples, args.goal) else 1


if __name__ == "__main__":
    sys.exit(main())
