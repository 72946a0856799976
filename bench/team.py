"""Pushes through the HTTP API: results per second and latency with concurrent clients.

Starts `perfwalk api` on a loopback port over a fresh store (SQLite, or --store-url),
makes a push token, then pushes ``--results`` values with ``--clients`` concurrent
httpx clients, each its own process (as CI jobs are): each push a pytest-benchmark
JSON file of ``--benchmarks`` benchmarks (six values each: min, max, mean, median,
stddev, ops), for ``--commits`` commits in commit order, every commit pushed as
often as needed (each push a repetition of its checkout). That run is at saturation
(closed loop: each client pushes again as soon as it is answered): it gives the
rate, and a latency that is the clients in flight over the rate (Little's law). Then
times `perfwalk changes` over what was pushed. Then a second run at the goal's rate
(open loop, ``--paced-seconds`` long, to a second branch): the clients push on a
schedule that offers 2 000 values/s together, each push timed from when it was due,
so that a push held back counts its wait. Prints values/s, pushes/s, p50/p99 latency
of a push in each run, the API's CPU per push, the changes time, and PASS/FAIL
against the goals (>= 2 000 values/s at saturation, p99 <= 50 ms in both runs; with
a PostgreSQL --store-url, the queue's overhead <= 1 s).

    .venv/bin/python bench/team.py [--results 100000] [--clients 8] [--benchmarks 10]
        [--paced-seconds 20] [--store-url URL]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import multiprocessing
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

GOAL_RATE = 2000.0
GOAL_P99_MS = 50.0
GOAL_QUEUE_S = 1.0
#: Published ingest figures of comparable services, with their source; none found.
PUBLISHED = (
    "Bencher, Conbench: no published ingest figure found (searched: their docs, "
    "web pages and GitHub issues for ingest/report throughput)"
)


def queue_overhead(store_url: str, jobs: int) -> list[float]:
    """Submit → start of ``jobs`` no-op jobs, one after the other, taken by an idle
    procrastinate worker (as `perfwalk worker` runs it: LISTEN/NOTIFY, and a poll
    every 5 s besides) on the store's PostgreSQL; seconds each."""
    import asyncio

    from perfwalk.orchestrate.session.queue import ensure_schema, queue_app

    ensure_schema(store_url)
    app = queue_app(store_url)
    started: dict[int, float] = {}

    @app.task(name="bench.noop", queue="bench-noop")
    def noop(n: int) -> None:
        started[n] = time.perf_counter()

    async def measure() -> list[float]:
        async with app.open_async():
            worker = asyncio.create_task(
                app.run_worker_async(
                    queues=["bench-noop"],
                    concurrency=1,
                    fetch_job_polling_interval=5.0,
                    install_signal_handlers=False,
                )
            )
            await asyncio.sleep(1.0)
            took = []
            for n in range(jobs):
                submitted = time.perf_counter()
                await noop.defer_async(n=n)
                while n not in started:
                    await asyncio.sleep(0.001)
                took.append(started[n] - submitted)
                await asyncio.sleep(0.1)  # the worker is idle again: it waits for the next
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        return took

    return asyncio.run(measure())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _file(benchmarks: int, level: float, push: int) -> str:
    wobble = 1 + 0.002 * (push % 5)
    return json.dumps(
        {
            "machine_info": {"node": "ci"},
            "benchmarks": [
                {
                    "name": f"test_{b}",
                    "stats": {
                        "min": level * wobble * 0.98,
                        "max": level * wobble * 1.02,
                        "mean": level * wobble,
                        "median": level * wobble,
                        "stddev": level * 0.01,
                        "ops": 1 / (level * wobble),
                    },
                }
                for b in range(benchmarks)
            ],
        }
    )


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _bodies(pushes: int, commits: int, benchmarks: int, branch: str) -> list[dict[str, Any]]:
    """Push k goes to commit k * commits // pushes: commits in order, a regression of
    20 % at two thirds of them."""
    bodies = []
    for k in range(pushes):
        commit = k * commits // pushes
        level = 0.010 * (1.2 if commit >= 2 * commits // 3 else 1.0)
        bodies.append(
            {
                "format": "pytest-benchmark",
                "text": _file(benchmarks, level, k),
                "commit": f"{commit + 1:040x}",
                "date": time.strftime(
                    "%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(1.7e9 + 3600 * commit)
                ),
                "branch": branch,
                "host": "ci-1",
            }
        )
    return bodies


@dataclass
class Run:
    """The pushes of one run: each one's latency (s), the failures, how long it took,
    and the API's CPU time (s) when it started."""

    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    cpu_before: float = 0.0

    def percentiles(self) -> tuple[float, float]:
        """p50 and p99 of the latencies, in ms."""
        return (1000 * _percentile(self.latencies, 0.50), 1000 * _percentile(self.latencies, 0.99))

    def cpu(self, pid: int) -> float:
        """The API's CPU time (s) since the run started."""
        return _cpu_of(pid) - self.cpu_before


def _cpu_of(pid: int) -> float:
    """User + system CPU time (s) of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _push_all(
    base: str,
    token: str,
    bodies: list[dict[str, Any]],
    clients: int,
    server_pid: int,
    *,
    rate: float | None = None,
) -> Run:
    """Push ``bodies`` with ``clients`` concurrent clients, each its own process (as CI
    jobs are: no client waits for another's interpreter lock). Before the clock
    starts, each client connects and makes one push of its own (to the branch
    ``warm-up``): the figures are those of connected clients and a server past its
    first statements, not of a first connection. ``rate`` None: closed
    loop, each client pushes the next body as soon as its previous push is answered.
    Else open loop: push k is due at k / ``rate`` s after the start, on client
    k % clients; its latency is counted from when it was due, so a push held back by a
    slow one before it counts its wait (no coordinated omission)."""
    context = multiprocessing.get_context("fork")  # the bodies are the clients' already
    ready = context.Barrier(clients + 1)
    go = context.Barrier(clients + 1)
    started = context.Value("d", 0.0)
    next_push = context.Value("i", 0)
    answers: multiprocessing.SimpleQueue[tuple[list[float], list[str]]] = context.SimpleQueue()

    def client(own: int) -> None:
        gc.freeze()  # the bodies stay: a collection need not walk them
        headers = {"Authorization": f"Bearer {token}"}
        latencies: list[float] = []
        failures: list[str] = []
        with httpx.Client(headers=headers, timeout=60) as http:
            warm_up = {**bodies[own % len(bodies)], "branch": "warm-up"}
            http.post(f"{base}/push", json=warm_up).raise_for_status()
            ready.wait()  # making a client and its first push are not timed
            go.wait()
            mine = iter(range(own, len(bodies), clients))
            while True:
                if rate is None:
                    with next_push.get_lock():
                        k = next_push.value
                        next_push.value += 1
                    if k >= len(bodies):
                        break
                else:
                    k = next(mine, -1)
                    if k < 0:
                        break
                due = time.perf_counter()  # the same clock in every process
                if rate is not None:
                    due = started.value + k / rate
                    wait = due - time.perf_counter()
                    if wait > 0:
                        time.sleep(wait)
                answer = http.post(f"{base}/push", json=bodies[k])
                latencies.append(time.perf_counter() - due)
                if answer.status_code != 201:
                    failures.append(f"{answer.status_code} {answer.text[:200]}")
        answers.put((latencies, failures))

    processes = [context.Process(target=client, args=(n,)) for n in range(clients)]
    for process in processes:
        process.start()
    found = Run()
    ready.wait()
    found.cpu_before = _cpu_of(server_pid)
    started.value = time.perf_counter()
    go.wait()
    for _ in processes:
        latencies, failures = answers.get()
        found.latencies.extend(latencies)
        found.failures.extend(failures)
    found.elapsed = time.perf_counter() - started.value
    for process in processes:
        process.join()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=100_000, help="values to push")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--benchmarks", type=int, default=10, help="benchmarks per pushed file")
    parser.add_argument("--commits", type=int, default=100)
    parser.add_argument(
        "--paced-seconds",
        type=float,
        default=20.0,
        help="length of the run at the goal's rate (pushes to a second branch)",
    )
    parser.add_argument("--store-url", help="default: a SQLite file in a temporary directory")
    parser.add_argument(
        "--queue-jobs",
        type=int,
        default=50,
        help="jobs for the queue's overhead (a PostgreSQL --store-url only)",
    )
    args = parser.parse_args()

    per_push = 6 * args.benchmarks
    pushes = max(1, args.results // per_push)
    work = Path(tempfile.mkdtemp(prefix="perfwalk-team-"))
    port = _free_port()
    url = args.store_url or f"sqlite:///{work}/store.db"
    config = work / "perfwalk.toml"
    config.write_text(
        f'[project]\nname = "bench"\n\n[store]\nurl = "{url}"\n\n'
        f'[api]\nlisten = "127.0.0.1:{port}"\nmax_body = {8 << 20}\n\n'
        '[[test]]\nname = "t"\ncommand = "./bench"\nparser = "pytest-benchmark"\n',
        encoding="utf-8",
    )
    run = [sys.executable, "-m", "perfwalk"]
    token = subprocess.run(
        [*run, "tokens", "add", "ci", "--scope", "push", "-c", str(config)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    log = (work / "api.log").open("wb")
    server = subprocess.Popen([*run, "api", "-c", str(config)], stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}/api/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/series", timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("perfwalk api did not start") from None
                time.sleep(0.1)
        saturated = _push_all(
            base,
            token,
            _bodies(pushes, args.commits, args.benchmarks, "main"),
            args.clients,
            server.pid,
        )
        cpu_saturated = saturated.cpu(server.pid)
        start = time.perf_counter()
        changes = subprocess.run(
            [*run, "changes", "--format", "json", "-c", str(config)],
            capture_output=True,
            text=True,
            check=False,
        )
        changes_s = time.perf_counter() - start
        paced_pushes = max(1, round(GOAL_RATE * args.paced_seconds / per_push))
        paced = _push_all(
            base,
            token,
            _bodies(paced_pushes, args.commits, args.benchmarks, "paced"),
            args.clients,
            server.pid,
            rate=GOAL_RATE / per_push,
        )
        cpu_paced = paced.cpu(server.pid)
    finally:
        server.terminate()
        server.wait()
        log.close()
    found = json.loads(changes.stdout)["changes"] if changes.stdout else []
    values = pushes * per_push
    rate = values / saturated.elapsed
    p50, p99 = saturated.percentiles()
    print(
        f"store: {url.split(':')[0]}, {args.clients} clients, {pushes} pushes of "
        f"{per_push} values ({args.benchmarks} benchmarks), {args.commits} commits"
    )
    rate_ok = rate >= GOAL_RATE and not saturated.failures
    print(
        f"at saturation (closed loop: each client pushes again as soon as answered): "
        f"{values} values in {saturated.elapsed:.1f} s: {rate:,.0f} values/s, "
        f"{pushes * args.benchmarks / saturated.elapsed:,.0f} benchmark results/s, "
        f"{pushes / saturated.elapsed:,.1f} pushes/s; failures: {len(saturated.failures)} "
        f"({'PASS' if rate_ok else 'FAIL'}: goal >= {GOAL_RATE:,.0f} values/s)"
    )
    print(
        f"  latency of a push at saturation: p50 {p50:.1f} ms, p99 {p99:.1f} ms "
        f"({'PASS' if p99 <= GOAL_P99_MS else 'FAIL'}: p99 <= {GOAL_P99_MS:.0f} ms; "
        f"here latency is {args.clients} in flight / throughput)"
    )
    print(
        f"  the API's CPU: {cpu_saturated:.1f} s, {1000 * cpu_saturated / pushes:.2f} ms per push"
    )
    q50, q99 = paced.percentiles()
    paced_ok = q99 <= GOAL_P99_MS and not paced.failures
    print(
        f"at the goal's rate (open loop: {args.clients} clients on a schedule offering "
        f"{GOAL_RATE:,.0f} values/s, each push timed from its scheduled start): "
        f"{paced_pushes * per_push} values in {paced.elapsed:.1f} s; failures: "
        f"{len(paced.failures)}"
    )
    print(
        f"  latency of a push at {GOAL_RATE:,.0f} values/s: p50 {q50:.1f} ms, p99 {q99:.1f} ms "
        f"({'PASS' if paced_ok else 'FAIL'}: p99 <= {GOAL_P99_MS:.0f} ms)"
    )
    print(f"  the API's CPU: {cpu_paced:.1f} s, {1000 * cpu_paced / paced_pushes:.2f} ms per push")
    print(PUBLISHED)
    queue_ok = True
    if url.startswith("postgresql"):
        took = queue_overhead(url, args.queue_jobs)
        q50, q95 = (_percentile(took, q) for q in (0.50, 0.95))
        queue_ok = q95 <= GOAL_QUEUE_S
        print(
            f"queue overhead (submit -> start), {len(took)} jobs: median {1000 * q50:.1f} ms, "
            f"p95 {1000 * q95:.1f} ms ({'PASS' if queue_ok else 'FAIL'}: goal <= "
            f"{GOAL_QUEUE_S:.0f} s)"
        )
    print(
        f"perfwalk changes over them: {changes_s:.2f} s, {len(found)} changes "
        f"(exit {changes.returncode})"
    )
    saturated_ok = p99 <= GOAL_P99_MS
    ok = rate_ok and saturated_ok and paced_ok and queue_ok
    print(
        f"{'PASS' if ok else 'FAIL'}: goals >= {GOAL_RATE:,.0f} values/s at saturation, "
        f"p99 <= {GOAL_P99_MS:.0f} ms at saturation and at {GOAL_RATE:,.0f} values/s"
        + (f", queue overhead <= {GOAL_QUEUE_S:.0f} s" if url.startswith("postgresql") else "")
    )
    for failure in (saturated.failures + paced.failures)[:3]:
        print("  failed:", failure)
    if not os.environ.get("KEEP"):
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
