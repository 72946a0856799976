"""The rusage instrument in real walks: a benchmark that burns a known amount of CPU
and holds a known amount of memory, walked over a real repository; its rusage
metrics are stored beside its own value with their units and directions, a commit
that doubles its work is a change of rusage.user_cpu (never suspect on the
machine's state), and its user CPU time moves far less than its wall time while
a CPU load started by the test runs beside it.

What is checked is what the instrument guarantees (the kernel's counts of the
benchmark's own work), never a speed of this machine.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.config.instruments import INSTRUMENT_METRICS, RUSAGE
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.orchestrate.walk.walk_progress import Progress
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.hogs import Hogs
from tests.fixtures.synthetic_repo import CommitSpec, make_repo
from tests.services.walks import values_by_metric, walk_config

#: every test here measures CPU time, which the machine moves (a busy core slows the
#: same work): no other test of the run loads the machine beside them; those that
#: load it start the load themselves
pytestmark = pytest.mark.alone

#: the memory the benchmark fills (MiB) and its loop's turns at the first commit
MEMORY_MIB = 48
WORK = 1_500_000

BENCH = f"""\
import sys
memory = bytearray(b"x") * ({MEMORY_MIB} << 20)  # written, hence resident
total = 0
for i in range(int(open("work.txt").read())):
    total += i
print("VALUE", len(memory) + total % 2, "B filled")
"""


def _project(
    tmp_path: Path, works: Sequence[object], repetitions: int = 3, bench: str = BENCH, env: str = ""
) -> Path:
    start = datetime(2024, 1, 1, tzinfo=UTC)
    make_repo(
        tmp_path / "repo",
        [
            CommitSpec(
                start + timedelta(days=i),
                f"work {work}",
                {"bench.py": bench, "work.txt": f"{work}\n"},
            )
            for i, work in enumerate(works)
        ],
    )
    path = tmp_path / "perfwalk.toml"
    extra = '[[test.instrument]]\nkind = "rusage"\n'
    text = walk_config(
        tmp_path / "repo",
        f"{env}python3 bench.py",
        test="bench",
        repetitions=repetitions,
        extra=extra,
    )
    path.write_text(text, "utf-8")
    return path


#: the walk of :func:`quadrupled`: its checkouts on each side of the step, repetitions
SIDE, REPETITIONS = 6, 4


@pytest.fixture(scope="module")
def quadrupled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A walk of 12 commits whose loop turns 4 times as often from the seventh on: its
    config and series. The user CPU time of the same work spreads by about 17 % from one
    run to the next on a virtual machine whose host is busy (its core runs slower: the
    same instructions take more of its time), and the start of Python does not grow
    with the loop: a doubled loop, +55 % in 8 checkouts of 3 repetitions, is told in
    about 1 of 8 such walks (undecided in the others, with the step as the most likely
    one); +160 % in 12 checkouts of 4 in 300 of 300 simulated walks (independent noise
    of that spread)."""
    works = [WORK] * SIDE + [4 * WORK] * SIDE
    path = _project(tmp_path_factory.mktemp("quadrupled"), works, REPETITIONS)
    result = run_series(load_config(path), RunOptions())
    return path, result.series_id


def test_the_rusage_metrics_are_stored_beside_the_tests_value(quadrupled: tuple[Path, int]) -> None:
    path, series_id = quadrupled
    with Store.open(load_config(path).store.url) as store:
        rows = store.passed_values(series_id)
        results = [
            result
            for checkout in store.checkouts(series_id)
            for repetition in store.repetitions(checkout.id)
            for result in repetition.results
        ]
    assert len(results) == 2 * SIDE * REPETITIONS
    assert not [r.message for r in results if "rusage" in r.message]  # no note
    metrics = values_by_metric(rows)
    declared = {m.name: m.unit for m in INSTRUMENT_METRICS[RUSAGE]}
    assert set(metrics) == {"filled", *declared}
    for name, unit in declared.items():
        assert len(metrics[name]) == 2 * SIDE * REPETITIONS, name  # every repetition, none twice
        assert {(row[4], row[6]) for row in metrics[name]} == {(unit, "lower")}, name
        assert all(row[5] >= 0 for row in metrics[name]), name
    assert min(row[5] for row in metrics["rusage.user_cpu"]) > 0
    # the largest resident set holds the memory the benchmark filled
    assert min(row[5] for row in metrics["rusage.max_rss"]) >= MEMORY_MIB * 1024
    # and the first touch of each of its pages is a minor fault
    assert min(row[5] for row in metrics["rusage.minor_faults"]) >= MEMORY_MIB * 256
    print("user CPU", sorted(row[5] for row in metrics["rusage.user_cpu"]))
    print("max RSS", sorted({row[5] for row in metrics["rusage.max_rss"]}))


def test_a_commit_that_quadruples_the_loop_is_a_change_of_user_cpu(
    quadrupled: tuple[Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _series_id = quadrupled
    main(["changes", "-c", str(path), "--format", "json"])
    events = json.loads(capsys.readouterr().out)["changes"]
    moved = [
        (event["after"]["idx"], metric)
        for event in events
        for metric in event["metrics"]
        if metric["name"] == "rusage.user_cpu"
    ]
    assert [idx for idx, _metric in moved] == [SIDE], events
    metric = moved[0][1]
    assert metric["regression"] is True
    # the loop turns 4 times as often; the start of Python and the filled memory do not
    assert 0.6 < metric["relative"] < 3, metric
    print("rusage.user_cpu", metric["relative"], metric["verdict"]["state"], metric["suspect"])


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")
def test_user_cpu_moves_far_less_than_wall_time_under_a_cpu_load(
    tmp_path: Path, hogs: Hogs
) -> None:
    # every other checkout loaded: the speed of a virtual machine's core drifts with
    # what its host runs (the user CPU time of the same work by 20 % within seconds),
    # and loaded and quiet checkouts side by side drift alike
    checkouts, loaded = 8, range(1, 8, 2)
    timed = BENCH.replace("import sys", "import time\nstart = time.monotonic()", 1) + (
        'print("VALUE", time.monotonic() - start, "s wall")\n'
    )
    # the benchmark and the load share one CPU: the scheduler gives each its turn
    # there, whatever else the machine runs
    path = _project(tmp_path, [2 * WORK] * checkouts, bench=timed, env="taskset -c 0 ")

    def progress(step: Progress) -> None:
        if step.message.startswith("building"):
            hogs.stop()
            if step.checkout - 1 in loaded:
                hogs.start(1, cpu=0)
                time.sleep(0.5)

    result = run_series(load_config(path), RunOptions(), progress)
    hogs.stop()
    with Store.open(load_config(path).store.url) as store:
        rows = store.passed_values(result.series_id)
        states = store.machine_states(result.series_id)
    metrics = values_by_metric(rows)
    assert len(states) == checkouts * 3

    def moved(name: str) -> float:
        def median(under_load: bool) -> float:
            return statistics.median(
                row[5] for row in metrics[name] if (row[0] in loaded) is under_load
            )

        return median(True) / median(False) - 1

    user, wall = moved("rusage.user_cpu"), moved("wall")
    print(f"under load: wall time {wall:+.1%}, user CPU {user:+.1%}")
    # a CPU-bound process on the benchmark's CPU takes about every other turn there:
    # the benchmark waits about as long as it works, and its wall time shows it (a
    # third as much when two other busy processes share that CPU already)
    assert wall > 0.25
    # the kernel counts the benchmark's own CPU time: the load beside it takes turns,
    # not more of its work (the caches it shares cost a little, never the wait)
    assert abs(user) < wall / 3


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")
def test_a_change_of_memory_with_one_side_loaded_is_no_suspect_and_keeps_its_values(
    tmp_path: Path, hogs: Hogs, capsys: pytest.CaptureFixture[str]
) -> None:
    # the memory the benchmark fills doubles at checkout 3, and a CPU load runs from
    # checkout 3 on: a step of wall time there would be the machine's as much as the
    # code's; the largest resident set is the code's alone
    filling = BENCH.replace(f"({MEMORY_MIB} << 20)", '(int(open("work.txt").read()) << 20)')
    filling = filling.replace('for i in range(int(open("work.txt").read())):', "for i in range(1):")
    path = _project(tmp_path, [MEMORY_MIB] * 3 + [2 * MEMORY_MIB] * 3, bench=filling)
    text = path.read_text("utf-8").replace("[run]\n", "[run]\nexclude_loaded = true\n", 1)
    path.write_text(text, "utf-8")

    def progress(step: Progress) -> None:
        if step.message.startswith("building") and step.checkout - 1 == 3:
            hogs.start(2)  # as many CPU-bound processes as this machine's 2 cores
            time.sleep(0.5)

    run_series(load_config(path), RunOptions(), progress)
    hogs.stop()
    main(["changes", "-c", str(path), "--format", "json"])
    found = json.loads(capsys.readouterr().out)
    moved = [
        metric
        for event in found["changes"]
        for metric in event["metrics"]
        if metric["name"] == "rusage.max_rss"
    ]
    print(json.dumps(moved, indent=1)[:3000])
    (metric,) = moved
    assert metric["suspect"] is None, metric
    assert metric["regression"] is True
    assert 0.7 < metric["relative"] < 1.1, metric  # the filled memory doubled
    (floor,) = [f for f in found["floors"] if f["name"] == "rusage.max_rss"]
    assert floor["excluded"] == 0, floor  # every value kept: the load does not touch it
    assert floor["values"] == 6 * 3
    # the CPU time and the involuntary switches feel the machine (a busy core slows
    # the same work, the scheduler preempts the benchmark for the load): their loaded
    # repetitions are left out as wall time's would be
    for name in ("rusage.user_cpu", "rusage.involuntary_switches"):
        (left,) = [f for f in found["floors"] if f["name"] == name]
        print(name, left)
        assert left["excluded"] > 0, left


TIMED = """\
import os, time
started = time.perf_counter()
work, waits = open("work.txt").read().split()
total = 0
for i in range(int(work)):
    total += i
time.sleep(float(waits))  # the code's own waits
time.sleep(float(open(os.environ["MACHINE_DELAY"]).read()))  # the machine's, not the code's
print("VALUE", time.perf_counter() - started + total % 2 * 0, "s elapsed")
"""


def _timed(tmp_path: Path, works: list[str], repetitions: int = 3) -> Path:
    """A walk of a benchmark that prints its own elapsed time (its loop and its waits,
    ``works``: "TURNS SECONDS" per commit; then a sleep as long as the file ``delay``
    says: what the machine adds), with rusage. Its wall time is mostly waits: what a
    load beside it does to the loop is small beside the steps."""
    (tmp_path / "delay").write_text("0.02\n", "utf-8")
    delay = f"MACHINE_DELAY={tmp_path / 'delay'} "
    return _project(tmp_path, works, repetitions, bench=TIMED, env=delay)


def _elapsed_chain(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    main(["changes", "-c", str(path), "--format", "json"])
    events = json.loads(capsys.readouterr().out)["changes"]
    chains = [
        " | ".join(metric["verdict"]["chain"])
        for event in events
        for metric in event["metrics"]
        if metric["name"] == "elapsed"
    ]
    assert len(chains) == 1, events
    print(chains[0])
    return chains[0]


def test_a_change_of_wall_time_that_its_instruments_share_is_the_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the loop runs 4 times as long and the code waits 0.3 s more: wall time and user
    # CPU move (the start of Python and the memory fill do not: user CPU about +150 %;
    # a walk as long as :func:`quadrupled`'s, for the user CPU time's spread)
    works = [f"{WORK} 0.02"] * SIDE + [f"{4 * WORK} 0.3"] * SIDE
    path = _timed(tmp_path, works, REPETITIONS)
    run_series(load_config(path), RunOptions())
    chain = _elapsed_chain(path, capsys)
    assert "its instruments: " in chain
    assert "rusage.user_cpu +" in chain
    assert "(a change)" in chain
    assert "→ the code" in chain


def test_a_change_of_wall_time_its_instruments_did_not_see_is_never_the_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _timed(tmp_path, [f"{WORK} 0.02"] * 8)  # the same code all along
    delay = tmp_path / "delay"

    # the machine gets slower from checkout 4 on: 1 s more per run, 5 times the loop's
    # time (whose user CPU time spreads by 17 % from run to run on a VM: a step of 0.23 s
    # was told in 276 of 300 simulated walks of 8 × 3, one of 1 s in 299 of 300 at 25 %)
    def progress(step: Progress) -> None:
        if step.message.startswith("building") and step.checkout - 1 == 4:
            delay.write_text("1.0\n", "utf-8")

    run_series(load_config(path), RunOptions(), progress)
    chain = _elapsed_chain(path, capsys)
    assert "rusage.user_cpu " in chain
    assert "(no change, could see ±" in chain
    # a slower machine never reads as the code (its user CPU time is noisy on a busy
    # machine: it may not be able to tell; tests/analysis/test_verdict.py has the rule)
    assert "→ the code" not in chain
    assert chain.endswith(("→ the machine or the layout, not the code", "→ they cannot tell"))


def test_a_drill_told_one_metric_drills_that_one(
    quadrupled: tuple[Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    path, series_id = quadrupled
    metric = ["--metric", "bench.rusage.user_cpu", "--format", "json"]
    budget = ["--max-repetitions", "6"]  # which metric it drills is said at once
    code = main(["drill", "-c", str(path), f"{series_id}:{SIDE}", *metric, *budget])
    out = capsys.readouterr().out
    print(out[:2000])
    (answer,) = json.loads(out)["drills"]
    assert (answer["test"], answer["value"]) == ("bench", "rusage.user_cpu")
    assert code in (0, 4)  # answered, or undecided within its budget: never an error


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (["--metric", "bench"], "drill --metric bench: not TEST.VALUE of a test of"),
        (["--metric", "nosuch.value"], "drill --metric nosuch.value: not TEST.VALUE"),
        (
            ["--metric", "bench.filled", "--test", "bench"],
            "drill --metric bench.filled names the test and the value already",
        ),
    ],
)
def test_a_drill_told_a_metric_it_cannot_drill_says_why(
    quadrupled: tuple[Path, int], capsys: pytest.CaptureFixture[str], given: list[str], said: str
) -> None:
    path, series_id = quadrupled
    assert main(["drill", "-c", str(path), f"{series_id}:{SIDE}", *given]) == 2
    err = capsys.readouterr().err
    print(err)
    assert said in err
