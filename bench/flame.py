"""Flame graphs' data on the site: the time to write the data files of many profiles.

    .venv/bin/python bench/flame.py [--profiles 1000] [--stacks 5000] [--work DIR]

Makes a few synthetic profiles (folded stacks of STACKS distinct stacks, 8 to 40
frames deep, names from a pool of 3 000, as a kernel and user profile of a network
benchmark looks), then measures:

1. capture: folding a profile into what the site ships (``compress_folded``: sorted
   text, zlib), once per profile, when it is stored;
2. publish: writing PROFILES data files from the compressed profiles, as a publish
   does for a store that keeps them compressed (``profile_data_file``: base64 only);
3. the differential of two profiles (tree and table) and its data file, which a
   drill's or a try's page needs once.

Goal (issue 16): publish 1 000 profiled checkouts ≤ 10 s, of which the profiles'
data files are a small part.
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
import time
from pathlib import Path

from perfwalk.analysis.profile_diff import differential
from perfwalk.report import layout
from perfwalk.report.flame_data import compress_folded, diff_data_file, profile_data_file

GOAL_SECONDS = 10.0
#: distinct profiles made (the others reuse them: writing does not depend on which)
DISTINCT = 8


def synthetic_profile(seed: int, stacks: int = 5000, names: int = 3000) -> dict[str, int]:
    """``stacks`` distinct folded stacks of a call tree where each function calls one
    to four others, with seeded samples."""
    rnd = random.Random(seed)
    words = ("tcp", "ip", "sock", "x64", "do", "mlx5", "skb", "ksys", "vfs", "page")
    verbs = ("send", "recv", "alloc", "free", "copy", "xmit", "poll", "wake")
    pool = [f"{rnd.choice(words)}_{rnd.choice(verbs)}_{i}" for i in range(names)]
    callees: dict[tuple[int, int], list[int]] = {}
    folded: dict[str, int] = {}
    while len(folded) < stacks:
        path = [0]
        node = (0, 0)
        for depth in range(rnd.randint(8, 40)):
            kids = callees.get(node)
            if kids is None:
                kids = callees[node] = [rnd.randrange(names) for _ in range(rnd.randint(1, 4))]
            frame = rnd.choice(kids)
            path.append(frame)
            node = (hash((node, frame, depth)), frame)
        stack = "bench;" + ";".join(pool[f] for f in path[1:])
        folded[stack] = folded.get(stack, 0) + rnd.randint(1, 200)
    return folded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profiles", type=int, default=1000)
    parser.add_argument("--stacks", type=int, default=5000)
    parser.add_argument("--work", type=Path, default=None, help="where to write the data files")
    args = parser.parse_args()

    profiles = [synthetic_profile(seed, args.stacks) for seed in range(DISTINCT)]
    started = time.perf_counter()
    compressed = [compress_folded(p) for p in profiles]
    capture = (time.perf_counter() - started) / len(profiles)
    raw = sum(len(p) for p in (map(str, profiles))) / len(profiles)

    work = args.work or Path(tempfile.mkdtemp(prefix="perfwalk-flame-"))
    data = work / "site"
    shutil.rmtree(data, ignore_errors=True)
    (data / "series-1" / "data").mkdir(parents=True)
    started = time.perf_counter()
    written = 0
    for n in range(args.profiles):
        text = profile_data_file(n, compressed[n % DISTINCT], test="net", checkout=n)
        (data / layout.profile_data(1, n)).write_text(text, encoding="ascii")
        written += len(text)
    publish = time.perf_counter() - started

    started = time.perf_counter()
    diff = differential(profiles[0], profiles[1])
    tree = time.perf_counter() - started
    started = time.perf_counter()
    diff_text = diff_data_file(
        "net", diff.tree, before="a", after="b", samples=(diff.before_samples, diff.after_samples)
    )
    diff_file = time.perf_counter() - started

    print(f"profiles of {args.stacks} stacks, {raw / 1e6:.1f} MB of folded text each")
    print(f"capture (compress_folded): {1000 * capture:.1f} ms a profile")
    print(
        f"publish {args.profiles} profiles' data files: {publish:.2f} s"
        f" ({written / 1e6:.0f} MB; goal of the whole publish: ≤ {GOAL_SECONDS:.0f} s)"
    )
    print(
        f"differential of two profiles: tree and table {1000 * tree:.0f} ms,"
        f" data file {1000 * diff_file:.0f} ms ({len(diff_text) / 1e6:.1f} MB)"
    )
    if args.work is None:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
