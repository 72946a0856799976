"""Benchmark validity, pure: each signature of a benchmark that measures the wrong thing
said with its evidence (a stored profile of a program spinning on clock_gettime, a
receiver far below its sender, a metric flat while its hot path changed, values a few
ticks of their timer), and none on healthy ones shaped like real histories."""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

from perfwalk.analysis.validity import (
    FramePatterns,
    StretchCommit,
    ValidityWarning,
    drops,
    flat,
    flat_stretch,
    hot_files_of,
    hot_path_touched,
    overhead,
    overhead_of,
    resolution_step,
    too_short,
)
from perfwalk.config.validity import ValidityConfig
from perfwalk.folded import parse_folded

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "validity"
SETTINGS = ValidityConfig()
PATTERNS = FramePatterns(SETTINGS.clock_frames, SETTINGS.syscall_frames)


def test_a_stored_profile_of_a_clock_spin_is_mostly_the_clock() -> None:
    # perf record -g of a C program that loops on clock_gettime(CLOCK_MONOTONIC)
    stacks = parse_folded((GOLDEN / "clock_spin.folded").read_text(encoding="utf-8"))
    said = overhead("spin", stacks, PATTERNS, threshold=SETTINGS.overhead_share, profiles=1)
    assert said is not None
    print(said.lines())
    assert said.kind == "overhead"
    assert said.metric == ""
    assert "reading the clock" in said.said
    assert any("__vdso_clock_gettime" in line for line in said.evidence)
    share = float(said.said.split(" %", 1)[0])
    assert share > 90


def test_a_cpu_bound_profile_and_a_network_stack_are_no_overhead() -> None:
    cpu = {
        "prog;__libc_start_call_main;main;checksum_block": 700,
        "prog;__libc_start_call_main;main;fill_block": 150,
        "prog;__libc_start_call_main;main;mix_block": 140,
        "prog;__libc_start_call_main;main;clock_gettime@@GLIBC_2.17;__vdso_clock_gettime": 2,
    }
    assert overhead("crc", cpu, PATTERNS, threshold=0.5) is None
    # a UDP sender's time below sendto is the work: the syscall frames count at the leaf only
    udp = {
        "iperf3;main;sendto;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_sendto;"
        "udp_sendmsg;ip_output": 900,
        "iperf3;main;sendto;entry_SYSCALL_64_after_hwframe": 40,
    }
    assert overhead("udp", udp, PATTERNS, threshold=0.5) is None
    assert overhead_of("a;sendto;entry_SYSCALL_64", PATTERNS) == ("syscall", "entry_SYSCALL_64")
    assert overhead("empty", {}, PATTERNS, threshold=0.5) is None


def test_an_iperf3_udp_test_dominated_by_gettimeofday_and_a_harness() -> None:
    stacks = {
        "iperf3;iperf_run_client;iperf_send;gettimeofday;__vdso_gettimeofday": 550,
        "iperf3;iperf_run_client;iperf_check_throttle;bench_pace": 200,
        "iperf3;iperf_run_client;iperf_send;sendto;entry_SYSCALL_64": 100,
        "iperf3;iperf_run_client;iperf_send;sendto;udp_sendmsg": 150,
    }
    patterns = FramePatterns(SETTINGS.clock_frames, SETTINGS.syscall_frames, ("bench_*",))
    said = overhead("udp", stacks, patterns, threshold=0.5, profiles=3)
    assert said is not None
    assert said.said.startswith("85.0 % of its 1000 profiled samples (3 profiles)")
    assert "55.0 % reading the clock" in said.said
    assert "10.0 % entering and leaving the kernel" in said.said
    assert "20.0 % the harness's own functions" in said.said
    assert "55.0 % in __vdso_gettimeofday (reading the clock)" in said.evidence


def test_a_receiver_far_below_its_sender() -> None:
    sides = [(1.0e9 * (1 + 0.01 * i), 0.08e9) for i in range(10)]
    said = drops("udp", sides, "bits/sec", threshold=0.5)
    assert said is not None
    print(said.said)
    assert said.said.startswith(
        "its receiver gets 7.7 % of what its sender sends (80.0 Mbit/s of 1.04 Gbit/s"
    )
    assert "below 50.0 % at 10 of them" in said.said
    healthy = [(9.4e8, 9.39e8)] * 10
    assert drops("tcp", healthy, "bits/sec", threshold=0.5) is None
    assert drops("none", [(0.0, 0.0)], "bits/sec", threshold=0.5) is None


def _history(seed: int, count: int, noise: float, steps: dict[int, float]) -> list[float]:
    """A series shaped like a real one: a slow drift, autocorrelated noise, steps."""
    rng = random.Random(seed)
    level, wander, found = 1000.0, 0.0, []
    for i in range(count):
        level *= steps.get(i, 1.0)
        wander = 0.7 * wander + rng.gauss(0, noise)
        found.append(level * (1 + 0.0002 * i) * (1 + wander))
    return found


def _commits(count: int, every: int) -> dict[int, list[StretchCommit]]:
    return {
        i: [StretchCommit(f"{i:040x}", f"hot: change {i}", ("src/hot.c", "README"))]
        if i % every == 0
        else [StretchCommit(f"{i:040x}", f"docs {i}", ("README",))]
        for i in range(1, count)
    }


def _flat(
    points: list[tuple[int, float]], commits: dict[int, list[StretchCommit]], hot: str
) -> ValidityWarning | None:
    """``flat`` with the defaults of [validity] and one hot path."""
    return flat(
        "bench",
        "ops",
        points,
        commits,
        hot_paths=(hot,),
        within=SETTINGS.flat_within,
        least_checkouts=SETTINGS.flat_checkouts,
        least_commits=SETTINGS.flat_commits,
    )


def test_a_metric_flat_while_its_hot_path_changed() -> None:
    said = _flat(list(enumerate(_history(1, 40, 0.0005, {}))), _commits(40, 2), "src/hot.c")
    assert said is not None
    print(said.said)
    assert said.said.startswith("flat (±")
    assert said.lines()[0].startswith("bench.ops: flat (±")
    assert "over 40 checkouts (#0 to #39) while 19 commits changed src/hot.c" in said.said
    assert said.evidence[-1].startswith("0000000000 hot: change 38: src/hot.c")


def test_a_flat_stretch_is_said_within_its_bound() -> None:
    # lz4's decompress instructions under cachegrind, checkouts 12 to 34 of the corpus's
    # walk: +1.56 % at 12, then real steps of -0.99 % at 27 and -1.00 % at 35 (A/B-proven)
    corpus = Path(__file__).resolve().parents[2] / "bench" / "corpus" / "walks"
    series = json.loads((corpus / "lz4-instructions.series.json").read_text(encoding="utf-8"))
    values = series["metrics"]["decompress_cachegrind.instructions"]["values"]
    points = [(i, statistics.median(v)) for i, v in enumerate(values) if v]
    commits = {i: [StretchCommit(f"{i:040x}", f"lz4 {i}", ("lib/lz4.c",))] for i in range(62)}
    said = _flat(points, commits, "lib/lz4.c")
    assert said is not None
    print(said.said)
    # the stretch holds levels 1 % apart: each within ±0.5 % of its middle, as said
    assert said.said.startswith("flat (±0.5 %) over 23 checkouts (#12 to #34)"), said.said
    assert SETTINGS.flat_within == 0.005


def test_no_flat_warning_on_healthy_histories() -> None:
    # noisy (1 %, autocorrelated, drifting, a step of 8 %): never within ±0.5 % for 20
    for seed in range(20):
        noisy = list(enumerate(_history(seed, 60, 0.01, {30: 1.08})))
        assert _flat(noisy, _commits(60, 1), "src/") is None, seed
    # flat, but no commit changed its hot path
    quiet = list(enumerate(_history(1, 40, 0.0005, {})))
    assert _flat(quiet, _commits(40, 2), "lib/other.c") is None


def test_the_hot_files_of_a_profile_that_names_them() -> None:
    # py-spy record -f raw: "function (file:line)" frames, the process first
    stacks = {
        "python app.py;<module> (/tmp/wt/3/app.py:40);run (/tmp/wt/3/app/hot.py:12);"
        "step (/tmp/wt/3/app/hot.py:30)": 900,
        "python app.py;<module> (/tmp/wt/3/app.py:40);log (/usr/lib/python3/logging.py:1)": 40,
        "python app.py;<module> (/tmp/wt/3/app.py:41)": 60,
    }
    assert hot_files_of(stacks) == ("/tmp/wt/3/app.py", "/tmp/wt/3/app/hot.py")
    assert hot_files_of({"prog;main;checksum_block": 10}) == ()  # perf's: functions only
    assert hot_files_of({}) == ()
    points = list(enumerate(_history(2, 30, 0.0003, {})))
    commits = {i: [StretchCommit(f"{i:040x}", f"hot {i}", ("app/hot.py",))] for i in range(1, 30)}
    said = flat(
        "bench",
        "ops",
        points,
        commits,
        hot_paths=(),
        hot_files=hot_files_of(stacks),
        within=SETTINGS.flat_within,
        least_checkouts=SETTINGS.flat_checkouts,
        least_commits=SETTINGS.flat_commits,
    )
    assert said is not None
    assert "29 commits changed app/hot.py" in said.said


def test_the_longest_flat_stretch() -> None:
    assert flat_stretch([1.0, 5.0, 5.01, 4.99, 5.0, 9.0], 0.005) == (1, 4)
    assert flat_stretch([0.0, 1.0], 0.005) is None
    assert flat_stretch([3.0], 0.01) == (0, 0)
    assert hot_path_touched("src/net/udp.c", ("src/net/",), ())
    assert hot_path_touched("src/hot.c", ("src/*.c",), ())
    assert hot_path_touched("app/hot.py", (), ("/tmp/wt/7/app/hot.py",))
    assert not hot_path_touched("src/hotter.c", ("src/hot.c",), ("/x/src/hot.c",))


def test_values_a_few_ticks_of_their_timer() -> None:
    # time -p writes hundredths of a second: a command of a few ms reads 0.00 or 0.01
    said = too_short("start", "real", [0.01, 0.0, 0.01, 0.02], "s", ticks=10, floor=1e-5)
    assert said is not None
    assert said.said.startswith("1 of its 4 values are 0")
    ticks = too_short("start", "real", [0.01, 0.02, 0.01, 0.03], "s", ticks=10, floor=1e-5)
    assert ticks is not None
    print(ticks.said)
    assert ticks.said.startswith("its values are multiples of 10.0 ms")
    assert "is 2 of those steps" in ticks.said
    assert resolution_step([0.1, 0.2, 0.30000000000000004]) is not None
    assert resolution_step([1.2345, 1.3017, 1.2871]) is None


def test_a_region_of_a_few_microseconds() -> None:
    rng = random.Random(3)
    values = [3100 + rng.randrange(-200, 200) for _ in range(30)]  # ns from clock_gettime
    said = too_short("tiny", "elapsed", values, "ns", ticks=10, floor=1e-5)
    assert said is not None
    print(said.said)
    assert "below the floor of 10.0 µs" in said.said
    assert too_short("tiny", "elapsed", values, "ns", ticks=10, floor=0.0) is None


def test_no_too_short_warning_on_healthy_times() -> None:
    rng = random.Random(5)
    ms = [101.3 + rng.gauss(0, 0.8) for _ in range(30)]
    assert too_short("crc", "elapsed", ms, "ms", ticks=10, floor=1e-5) is None
    assert too_short("crc", "ops", [5.0, 5.0], "ops/s", ticks=10, floor=1e-5) is None
    # a whole-millisecond timer over a 2 s run: many ticks
    assert too_short("crc", "elapsed", [2013, 2020, 2008], "ms", ticks=10, floor=1e-5) is None
