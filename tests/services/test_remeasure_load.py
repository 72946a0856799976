"""The loop closes by itself on a loaded machine: a change whose two sides were measured
under different loads (a real CPU load the test starts for the second half of the walk)
is suspect, and is measured again without anyone asking, at the end of the walk with
`[run] confirm` and in a `perfwalk watch` cycle by default; its re-measure is stored
with its outcome, its rounds and its wait for a quiet machine.

The benchmark's values come from a seed (tests/fixtures/noisy_repo.py), not from the
machine: the load makes the change suspect, never moves a value, so what the re-measure
decides is the same on any machine. What depends on the machine (how long a wait took,
whether the machine got quiet, which repetition was loaded) is never asserted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.orchestrate.findings.changes import find_changes
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.orchestrate.walk.walk_progress import Progress
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.hogs import Hogs
from tests.fixtures.noisy_repo import CONFIG, noisy_history

COMMITS = 8
HELD = "held"  # as the store keeps it
STEP = 4  # the commit that makes the benchmark 20 % slower; loaded from here on
#: CPU-bound processes: more than the cores, for the machine may be busy already (the
#: sides then differ by how many processes run or wait for a CPU)
HOGS = 4
#: the named walk a watch cycle continues; the cycle drills nothing (the re-measure is
#: the subject here, and it comes before the drills)
NAMED = (
    '\n[[walk]]\nname = "nightly"\nfrom = "{first}"\n\n[watch]\nsite = "site"\ndrill_builds = 0\n'
)


def _project(tmp_path: Path, run: str) -> Config:
    ids = noisy_history(tmp_path / "repo", commits=COMMITS, step_at=STEP, size=20, salt=11)
    text = (
        CONFIG.format(repo=tmp_path / "repo")
        .replace("suspect_load = false", "suspect_load = true")  # the subject here
        .replace('command = "sh bench.sh"', 'command = "sleep 0.3; sh bench.sh"')
        .replace("confirm_wait = 0", f"confirm_wait = 10\n{run}")
    )
    path = tmp_path / "perfwalk.toml"
    path.write_text(text + NAMED.format(first=ids[0]), encoding="utf-8")
    return load_config(path)


def _loading(hogs: Hogs) -> Callable[[Progress], None]:
    """A progress that starts the load when the walk builds the changed commit, and
    stops it when a re-measure waits for a quiet machine."""

    def progress(step: Progress) -> None:
        if step.message.startswith("building") and step.checkout - 1 == STEP and not hogs.pids:
            hogs.start(HOGS)
        elif step.message.startswith("waiting for a quiet machine"):
            hogs.stop()

    return progress


@pytest.mark.alone  # the load is the test's own
@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")
def test_a_suspect_change_is_measured_again_at_the_end_of_the_walk_by_itself(
    tmp_path: Path, hogs: Hogs
) -> None:
    config = _project(tmp_path, "confirm = true")

    result = run_series(config, RunOptions(), _loading(hogs))
    hogs.stop()

    confirmed = result.confirmed
    assert confirmed is not None
    (again,) = confirmed.remeasured
    print(again.said(), file=sys.stderr)
    assert (again.id, again.outcome, again.final) == (f"1:{STEP}", HELD, True)
    assert min(again.counts) >= 3  # the first look: 3 per side
    with Store.open(config.store.url) as store:
        (event,) = find_changes(store, config, [result.series_id])
        rows = store.confirmations.of_series(result.series_id)
    assert event.id == f"1:{STEP}"
    print([m.suspect for m in event.metrics], file=sys.stderr)
    assert event.suspect  # its sides were measured under different loads
    row = rows[(STEP - 1, STEP)]
    assert (row.outcome, row.final, row.held) == (HELD, True, True)
    # both sides, in turns: before, after, after, before, …
    sides = [r["side"] for r in row.rounds]
    assert sides[:4] == ["before", "after", "after", "before"]
    assert (sides.count("before"), sides.count("after")) == again.counts
    assert all(set(r["hosts"]) == {"local"} for r in row.rounds)
    # it waited for a quiet machine: the load was on at its first reading
    (waited,) = row.waits
    print(waited, file=sys.stderr)
    assert waited["readings"] >= 2
    assert waited["why"]
    (metric,) = row.metrics
    assert metric["outcome"] == HELD
    assert len(metric["values_before"]) == again.counts[0]
    assert event.confirmed is True


@pytest.mark.alone
@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")
def test_a_watch_cycle_measures_a_suspect_change_again_by_default(
    tmp_path: Path, hogs: Hogs, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _project(tmp_path, "")  # [run] confirm off: only the watch's default
    result = run_series(config, RunOptions(walk="nightly"), _loading(hogs))
    hogs.stop()
    assert result.confirmed is None
    with Store.open(config.store.url) as store:
        (event,) = find_changes(store, config, [result.series_id])
    print([m.suspect for m in event.metrics], file=sys.stderr)
    assert event.suspect
    assert event.confirmed is None

    main(["watch", "--once", "-c", str(config.path)])  # nothing new landed

    out = capsys.readouterr().out
    print(out, file=sys.stderr)
    assert f"walk nightly: re-measure of 1:{STEP}: held after " in out
    with Store.open(config.store.url) as store:
        row = store.confirmations.of_series(result.series_id)[(STEP - 1, STEP)]
        (event,) = find_changes(store, config, [result.series_id])
    assert (row.outcome, row.final) == (HELD, True)
    assert len(row.rounds) >= 6
    assert len(row.waits) == 1
    assert event.confirmed is True
