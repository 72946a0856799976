"""The cachegrind instrument in real walks of a small C project built at each
checkout: the instructions it counts do not move over commits that leave the code as
it is, a commit that doubles the program's work is a change of
cachegrind.instructions of about +100 % (never suspect on the machine's state), and
under a CPU load started by the test the count stays within 0.1 % while the wall
time of the same runs moves.

What is checked is what the instrument guarantees (valgrind's count of the
program's own instructions), never a speed of this machine.
"""

from __future__ import annotations

import json
import shutil
import statistics
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.config.instruments import CACHEGRIND, INSTRUMENT_METRICS
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.orchestrate.walk.walk_progress import Progress
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.hogs import Hogs
from tests.fixtures.synthetic_repo import CommitSpec, make_repo
from tests.services.walks import values_by_metric, walk_config

pytestmark = pytest.mark.skipif(
    shutil.which("valgrind") is None or shutil.which("cc") is None,
    reason="needs valgrind and cc (Debian: apt-get install valgrind gcc)",
)

#: the turns of the program's loop at the first commit (about 10 million instructions)
WORK = 1_000_000

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


def _project(tmp_path: Path, works: list[int], repetitions: int = 2, instrument: str = "") -> Path:
    """A C project whose commit ``i`` loops ``works[i]`` times; a commit that keeps
    the work of the one before changes only a text file."""
    start = datetime(2024, 1, 1, tzinfo=UTC)
    make_repo(
        tmp_path / "repo",
        [
            CommitSpec(
                start + timedelta(days=i),
                f"commit {i}: work {work}",
                {"bench.c": PROGRAM, "work.h": f"#define WORK {work}\n", "commit.txt": f"{i}\n"},
            )
            for i, work in enumerate(works)
        ],
    )
    path = tmp_path / "perfwalk.toml"
    extra = f'[[test.instrument]]\nkind = "cachegrind"\n{instrument}'
    text = walk_config(
        tmp_path / "repo", "./bench", test="bench", repetitions=repetitions, extra=extra
    )
    path.write_text(text.replace('steps = ["true"]', 'steps = ["cc -O1 -o bench bench.c"]'))
    return path


def _spread(values: list[float]) -> float:
    """The relative spread of ``values``: (max - min) / min."""
    return (max(values) - min(values)) / min(values)


@pytest.fixture(scope="module")
def doubled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A walk of 8 commits whose work doubles at the fifth: its config and series."""
    path = _project(tmp_path_factory.mktemp("doubled"), [WORK] * 4 + [2 * WORK] * 4)
    result = run_series(load_config(path), RunOptions())
    return path, result.series_id


def test_the_count_is_the_same_at_every_commit_that_kept_the_code(
    doubled: tuple[Path, int],
) -> None:
    path, series_id = doubled
    with Store.open(load_config(path).store.url) as store:
        rows = store.passed_values(series_id)
    metrics = values_by_metric(rows)
    declared = {m.name: m.unit for m in INSTRUMENT_METRICS[CACHEGRIND]}
    assert set(metrics) == {"elapsed", *declared}
    for name, unit in declared.items():
        assert len(metrics[name]) == 8 * 2, name  # every repetition, none twice
        assert {(row[4], row[6]) for row in metrics[name]} == {(unit, "lower")}, name
    counts = metrics["cachegrind.instructions"]
    before = [row[5] for row in counts if row[0] < 4]
    after = [row[5] for row in counts if row[0] >= 4]
    print(f"instructions: {sorted(set(before))} then {sorted(set(after))}")
    print(f"spread: {_spread(before):.2e} before, {_spread(after):.2e} after")
    assert _spread(before) <= 1e-3
    assert _spread(after) <= 1e-3
    # the loop doubled; the start of the shell and of the program did not
    assert 0.9 < statistics.median(after) / statistics.median(before) - 1 < 1.0


def test_a_commit_that_doubles_the_work_is_a_change_of_instructions(
    doubled: tuple[Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _series_id = doubled
    main(["changes", "-c", str(path), "--format", "json"])
    events = json.loads(capsys.readouterr().out)["changes"]
    found = {
        metric["name"]: (event["after"]["idx"], metric)
        for event in events
        for metric in event["metrics"]
        if metric["name"].startswith(f"{CACHEGRIND}.")
    }
    assert set(found) == {"cachegrind.instructions", "cachegrind.cycles"}, events
    for name, (idx, metric) in found.items():
        print(name, idx, metric["relative"], metric["verdict"]["state"])
        assert idx == 4, metric
        assert metric["regression"] is True
        assert metric["suspect"] is None, metric
    assert 0.9 < found["cachegrind.instructions"][1]["relative"] < 1.0
    # the wall time (under valgrind), where its change is found too (this machine's
    # noise decides that), is told with what the counts did across it: the code
    for event in events:
        for metric in event["metrics"]:
            if metric["name"] == "elapsed" and event["after"]["idx"] == 4:
                chain = " ".join(metric["verdict"]["chain"])
                print("elapsed", metric["relative"], chain)
                assert "its instruments: cachegrind.cycles +" in chain
                assert "cachegrind.instructions +" in chain
                assert chain.endswith("→ the code")


# not alone: what it checks is that no load moves the count, and the other tests of the
# run only add to the load it starts
@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")
def test_the_count_stays_put_under_a_cpu_load(tmp_path: Path, hogs: Hogs) -> None:
    checkouts, loaded = 6, range(3, 6)
    path = _project(tmp_path, [WORK] * checkouts, repetitions=3)

    def progress(step: Progress) -> None:
        if step.message.startswith("building") and step.checkout - 1 == loaded.start:
            hogs.start(2)  # as many CPU-bound processes as this machine's 2 cores
            time.sleep(0.5)

    try:
        result = run_series(load_config(path), RunOptions(), progress)
    finally:
        hogs.stop()
    with Store.open(load_config(path).store.url) as store:
        rows = store.passed_values(result.series_id)
    metrics = values_by_metric(rows)

    def values(name: str, under_load: bool) -> list[float]:
        return [row[5] for row in metrics[name] if (row[0] in loaded) is under_load]

    quiet, busy = values("cachegrind.instructions", False), values("cachegrind.instructions", True)
    wall_quiet = statistics.median(values("elapsed", False))
    wall_busy = statistics.median(values("elapsed", True))
    print(
        f"instructions: {statistics.median(quiet):.0f} quiet, {statistics.median(busy):.0f} "
        f"under load (spread {_spread(quiet + busy):.2e}); wall time {wall_quiet:.1f} ms "
        f"quiet, {wall_busy:.1f} ms under load ({wall_busy / wall_quiet - 1:+.0%})"
    )
    assert len(quiet) == len(busy) == 3 * 3
    # valgrind counts the program's own instructions: the load beside it takes turns
    # on the CPUs, it does not add to them
    assert _spread(quiet + busy) <= 1e-3


def test_steps_of_half_a_percent_around_a_level_of_two_checkouts_are_two_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # an exact count shows a step far below the 1 % that [analysis] min_change asks
    # of a wall time, and a level of two checkouts whose repetitions agree: the
    # instrument's count has a smallest change and a shortest level of its own
    works = [WORK] * 3 + [WORK * 1005 // 1000] * 2 + [WORK * 1010 // 1000] * 3
    path = _project(tmp_path, works)
    run_series(load_config(path), RunOptions())
    main(["changes", "-c", str(path), "--format", "json"])
    events = json.loads(capsys.readouterr().out)["changes"]
    moved = [
        (event["after"]["idx"], metric)
        for event in events
        for metric in event["metrics"]
        if metric["name"] == "cachegrind.instructions"
    ]
    print([(idx, metric["relative"]) for idx, metric in moved])
    assert [idx for idx, _metric in moved] == [3, 5]
    for _idx, metric in moved:
        assert 0.003 < metric["relative"] < 0.006, metric
        assert metric["regression"] is True


def test_an_extra_run_per_checkout_counts_the_instructions_and_leaves_the_tests_own_values_native(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _project(
        tmp_path, [WORK] * 3 + [2 * WORK] * 3, repetitions=3, instrument='runs = "extra"\n'
    )
    result = run_series(load_config(path), RunOptions())
    with Store.open(load_config(path).store.url) as store:
        rows = store.passed_values(result.series_id)
        repetitions = [
            (repetition, store.steps(repetition.id))
            for checkout in store.checkouts(result.series_id)
            for repetition in store.repetitions(checkout.id)
        ]
        outputs = [
            store.log(step.stdout_log_id).text()
            for _repetition, steps in repetitions
            for step in steps
            if step.phase == "instrument"
        ]
    metrics = values_by_metric(rows)
    # the test's own value in every repetition, the counts once per checkout
    assert sorted(row[0] for row in metrics["elapsed"]) == sorted(list(range(6)) * 3)
    for name in ("cachegrind.instructions", "cachegrind.cycles"):
        assert sorted(row[0] for row in metrics[name]) == list(range(6)), name
    for repetition, steps in repetitions:
        extra = [step for step in steps if step.phase == "instrument"]
        if repetition.idx == 0:  # the extra run: kept as a step, with its output
            (step,) = extra
            assert step.name == "extra run under cachegrind", step
            assert step.status.name == "PASS", step
        else:
            assert extra == []
    # the counted runs ran natively: valgrind simulates every instruction of the
    # extra ones, many times slower than the processor runs them
    simulated = [float(text.split("VALUE ")[1].split()[0]) for text in outputs]
    native = [row[5] for row in metrics["elapsed"]]
    print(
        f"elapsed: {statistics.median(native)} ms counted, {statistics.median(simulated)} ms extra"
    )
    assert len(simulated) == 6
    assert statistics.median(native) < statistics.median(simulated)
    capsys.readouterr()
    main(["changes", "-c", str(path), "--format", "json"])
    events = json.loads(capsys.readouterr().out)["changes"]
    moved = [
        (event["after"]["idx"], metric["relative"])
        for event in events
        for metric in event["metrics"]
        if metric["name"] == "cachegrind.instructions"
    ]
    print(moved)
    ((idx, relative),) = moved
    assert idx == 3
    assert 0.9 < relative < 1.0
