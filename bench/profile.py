"""What a profiled run costs, what a profile weighs in the store, and how long the
site of 1 000 profiled checkouts takes to publish.

Run: ``.venv/bin/python bench/profile.py [--rounds 5] [--checkouts 1000] [--publishes 3]``

1. **Overhead**: a C program with a hot function (built ``-O2 -g
   -fno-omit-frame-pointer``, about 0.3 s) run plainly by ``LocalHost.run`` and as
   perfwalk runs its extra profiled repetition: ``perf record -q -g -F 999 -e
   cpu-clock`` around it, then ``perf script`` read back and folded
   (:class:`perfwalk.orchestrate.instruments.profiling.Profiler`). Interleaved round by round.
   Prints the wall time of each (median, min, max), the time the program measures
   itself (how much the sampling slows the measured code), and what the profiled
   run adds.
2. **Size**: the bytes stored for the real profile, and for a large synthetic one
   (200 000 distinct stacks, 40 frames deep, C++-like names), each cut to the
   default ``[test.profile] limit`` and compressed as the store keeps it. Goal:
   at most 2 MiB stored per profile.
3. **Publish**: a walk of 1 000 checkouts (bench/publish_store.py's history: one
   test, three repetitions each) in a SQLite store, published whole (``perfwalk
   report --full``) as it is and with a profile of 2 000 synthetic stacks at every
   checkout (each checkout's page links its flame graph, each profile a data file),
   in turns, ``--publishes`` rounds. Goal: at most 10 s for the profiled publish.

Needs perf (linux-perf) and cc. A benchmark, not a test: nothing here is timed by
pytest.
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
import zlib
from datetime import UTC, datetime
from pathlib import Path

try:
    from perfwalk.hosts import LocalHost
except ModuleNotFoundError:  # run from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from perfwalk.hosts import LocalHost

from perfwalk.config.model import ProfileConfig
from perfwalk.folded import FoldedStacks
from perfwalk.model import Status
from perfwalk.orchestrate.hosts.topology import Member
from perfwalk.orchestrate.instruments.profiling import Profiler, ProfileRequest, wrapper
from perfwalk.report.site import PublishOptions, publish
from perfwalk.store import Store
from perfwalk.store.profiles import NewProfile, bounded

sys.path.insert(0, str(Path(__file__).resolve().parent))
from publish_store import Shape, make_repo, make_store

START = datetime(2024, 1, 1, tzinfo=UTC)
GOAL_BYTES = 2 << 20
GOAL_SECONDS = 10.0

PROGRAM = r"""
#include <stdio.h>
#include <time.h>
static unsigned char buf[4096];
__attribute__((noinline)) unsigned fill_block(unsigned s) {
  for (int i = 0; i < 4096; i++) buf[i] = (unsigned char)(s * 31 + i * 7);
  return buf[s % 4096];
}
__attribute__((noinline)) unsigned checksum_block(void) {
  unsigned sum = 0;
  for (int r = 0; r < 3; r++) for (int i = 0; i < 4096; i++) sum = sum * 33 + buf[i] + r;
  return sum;
}
__attribute__((noinline)) unsigned mix_block(unsigned x) {
  for (int i = 0; i < 2048; i++) x = (x ^ buf[i]) * 2654435761u;
  return x;
}
int main(void) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  unsigned t = 0;
  for (unsigned j = 0; j < 20000; j++) t += fill_block(j) + checksum_block() + mix_block(j);
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("checksum %u\nVALUE %.3f ms elapsed\n", t,
         (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
  return 0;
}
"""


def _ms(stdout: str) -> float:
    line = next(line for line in stdout.splitlines() if line.startswith("VALUE "))
    return float(line.split()[1])


def _figures(values: list[float]) -> str:
    return f"{statistics.median(values):9.3f} {min(values):9.3f} {max(values):9.3f}"


def overhead(work: Path, rounds: int) -> FoldedStacks:
    source = work / "prog.c"
    source.write_text(PROGRAM)
    program = str(work / "prog")
    subprocess.run(
        ["cc", "-O2", "-g", "-fno-omit-frame-pointer", "-o", program, str(source)], check=True
    )
    host = LocalHost()
    member = Member("local", host, local=True)
    config = ProfileConfig(tool="perf")
    profiler = Profiler()
    problem = profiler.unavailable(member, config)
    if problem is not None:
        sys.exit(f"cannot profile here: {problem}")
    plain_wall, plain_own, prof_wall, prof_own = [], [], [], []
    stacks: FoldedStacks = {}
    for number in range(rounds):
        order = ("plain", "profiled") if number % 2 == 0 else ("profiled", "plain")
        for kind in order:
            start = time.perf_counter()
            if kind == "plain":
                done = host.run(["sh", "-c", program], timeout=120)
                plain_wall.append(time.perf_counter() - start)
                plain_own.append(_ms(done.stdout.text()) / 1e3)
                continue
            path = str(work / f"profile-{number}")
            done = host.run([*wrapper(config, path), "sh", "-c", program], timeout=120)
            captured = profiler.read(member, ProfileRequest(config, "", path))
            prof_wall.append(time.perf_counter() - start)
            prof_own.append(_ms(done.stdout.text()) / 1e3)
            if captured.status is not Status.PASS:
                sys.exit(f"the profiled run failed: {captured.message}")
            stacks = captured.stacks
    print(f"overhead of a profiled run ({rounds} rounds, interleaved; seconds)")
    print(f"{'':34} {'median':>9} {'min':>9} {'max':>9}")
    print(f"{'plain run, wall':34} {_figures(plain_wall)}")
    print(f"{'profiled run + perf script, wall':34} {_figures(prof_wall)}")
    print(f"{'plain run, as the program timed it':34} {_figures(plain_own)}")
    print(f"{'profiled, as the program timed it':34} {_figures(prof_own)}")
    added = statistics.median(prof_wall) - statistics.median(plain_wall)
    slowed = statistics.median(prof_own) / statistics.median(plain_own)
    print(
        f"the extra repetition costs +{added:.3f} s wall "
        f"(x{statistics.median(prof_wall) / statistics.median(plain_wall):.2f}); "
        f"sampling slows the measured code x{slowed:.3f}"
    )
    return stacks


def _stored(stacks: FoldedStacks, limit: int) -> tuple[int, int, int]:
    text, dropped = bounded(stacks, limit)
    return len(text.encode()), len(zlib.compress(text.encode(), 6)), dropped


def synthetic(count: int, depth: int, seed: int = 1) -> FoldedStacks:
    rng = random.Random(seed)
    names = [
        f"ns{n % 17}::Widget<std::vector<unsigned long, std::allocator<unsigned long> >>::"
        f"method_{n}(int, char const*)"
        for n in range(4000)
    ]
    stacks: FoldedStacks = {}
    for _ in range(count):
        frames = ["prog", *(rng.choice(names) for _ in range(rng.randint(5, depth)))]
        stack = ";".join(frames)
        stacks[stack] = stacks.get(stack, 0) + rng.randint(1, 20)
    return stacks


def sizes(real: FoldedStacks) -> None:
    limit = ProfileConfig().limit
    print(f"\nbytes stored per profile (limit {limit} bytes of folded text, then zlib)")
    print(f"{'profile':28} {'stacks':>8} {'samples':>9} {'folded':>10} {'stored':>10} {'cut':>9}")
    worst = 0
    big = synthetic(200_000, 40)
    for name, stacks in (("real (perf, cpu-clock)", real), ("synthetic 200k x 40", big)):
        folded, stored, dropped = _stored(stacks, limit)
        worst = max(worst, stored)
        samples = sum(stacks.values())
        print(f"{name:28} {len(stacks):8} {samples:9} {folded:10} {stored:10} {dropped:9}")
    verdict = "PASS" if worst <= GOAL_BYTES else "FAIL"
    print(f"goal: <= {GOAL_BYTES} bytes stored per profile -> {verdict} (largest {worst})")


def publish_many(work: Path, stacks: FoldedStacks, checkouts: int, rounds: int) -> None:
    """A walk of ``checkouts`` checkouts (one test, three repetitions each), published
    whole without profiles and with one (``stacks``) per checkout, in turns."""
    commits = make_repo(work / "repo", checkouts)
    plain = work / "plain.db"
    make_store(f"sqlite:///{plain}", Shape(checkouts=checkouts, tests=1, repetitions=3), commits)
    profiled = work / "profiled.db"
    shutil.copy(plain, profiled)
    with Store.open(f"sqlite:///{profiled}") as store:
        [series] = store.list_series()
        start = time.perf_counter()
        for row in store.checkouts(series.id):
            store.profiles.add(
                row.id,
                NewProfile(
                    test="t00",
                    role="",
                    host="local",
                    tool="perf",
                    event="cpu-clock",
                    status=Status.PASS,
                    message="",
                    stacks=stacks,
                ),
                limit=ProfileConfig().limit,
            )
        written = time.perf_counter() - start
    took: dict[str, list[float]] = {"plain": [], "profiled": []}
    for _round in range(rounds):
        for name, db in (("plain", plain), ("profiled", profiled)):
            out = work / f"site-{name}"
            shutil.rmtree(out, ignore_errors=True)
            with Store.open(f"sqlite:///{db}", read_only=True) as store:
                start = time.perf_counter()
                publish(store, None, out, PublishOptions(full=True))
                took[name].append(time.perf_counter() - start)
    files = sum(1 for _ in (work / "site-profiled").rglob("profile-*.js"))
    size = sum(f.stat().st_size for f in (work / "site-profiled").rglob("profile-*.js"))
    print(f"\n{checkouts} profiled checkouts ({len(stacks)} stacks each), one test, 3 repetitions")
    print(f"profiles written to the store one by one: {written:.2f} s")
    print(f"a full publish, {rounds} rounds in turns    median       min       max")
    for name, figures in took.items():
        print(f"  {name:<35} {_figures(figures)}")
    extra = statistics.median(took["profiled"]) - statistics.median(took["plain"])
    ratio = statistics.median(took["profiled"]) / statistics.median(took["plain"])
    print(
        f"the profiles add {extra:+.2f} s (x{ratio:.2f}): {files} data files, {size / 1e6:.1f} MB"
    )
    best = statistics.median(took["profiled"])
    verdict = "PASS" if best <= GOAL_SECONDS else "FAIL"
    print(f"goal: publish {checkouts} profiled checkouts <= {GOAL_SECONDS:g} s -> {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--checkouts", type=int, default=1000)
    parser.add_argument("--publishes", type=int, default=3)
    args = parser.parse_args()
    for tool in ("perf", "cc"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed (Debian: linux-perf, gcc)")
    with tempfile.TemporaryDirectory(prefix="perfwalk-bench-profile-") as tmp:
        work = Path(tmp)
        real = overhead(work, args.rounds)
        sizes(real)
        publish_many(work, synthetic(2000, 30), args.checkouts, args.publishes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
