"""A walk on a machine that the test makes busy for part of the walk: the repetitions
measured while the load ran are marked loaded, the step the load produced is suspect
of being the machine's load (its verdict, until something measures it again), and
the walk warns of them. A walk on two hosts records the state of both: a loaded sink
marks the repetition loaded, naming the sink.

The load is real: two CPU-bound processes started by the test (outside the walk's
process tree, as another job's would be), each kept by its PID and stopped by it.
The benchmark's value follows the load (a slower level while it runs) without
depending on how fast this machine is: what is checked is what perfwalk guarantees
(what it recorded and how it judged), never a speed.
"""

from __future__ import annotations

import dataclasses
import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.analysis.machine import repetition_loaded, why_repetition_loaded
from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.git.worktree import Worktrees
from perfwalk.hosts import FakeHost, LocalHost, Rule
from perfwalk.hosts.machine_state import snapshot_command
from perfwalk.orchestrate.hosts.topology import Member, Topology
from perfwalk.orchestrate.walk.plan import RunOptions, plan_walk
from perfwalk.orchestrate.walk.provenance import walk_series
from perfwalk.orchestrate.walk.walk import Walk
from perfwalk.orchestrate.walk.walk_progress import Progress
from perfwalk.report.summaries import series_table
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.hogs import Hogs
from tests.fixtures.synthetic_repo import numbered_repo
from tests.services.walks import walk_config

CHECKOUTS = 15
LOADED = range(5, 10)  # the checkouts measured while the load runs


def _project(
    tmp_path: Path, run: str = "", checkouts: int = CHECKOUTS, extra: str = ""
) -> tuple[Path, Path]:
    numbered_repo(tmp_path / "repo", checkouts)
    level = tmp_path / "level"
    level.write_text("100\n")
    path = tmp_path / "perfwalk.toml"
    command = f"sleep 0.3; echo VALUE $(cat {level}) ms latency"
    text = walk_config(
        tmp_path / "repo", command, test="bench", repetitions=2, run=run, timeout=None, extra=extra
    )
    path.write_text(text, "utf-8")
    return path, level


@pytest.mark.alone  # the load is the test's own: no other test loads the machine beside it
@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")
def test_a_load_for_part_of_the_walk_is_marked_and_its_step_is_suspect(
    tmp_path: Path, hogs: Hogs, capsys: pytest.CaptureFixture[str]
) -> None:
    path, level = _project(tmp_path)
    config = load_config(path)

    def progress(step: Progress) -> None:
        index = step.checkout - 1
        if not step.message.startswith("building"):
            return
        if index == LOADED.start:
            hogs.start(2)
            level.write_text("150\n")  # the test under load: 50 % slower
            time.sleep(0.5)  # the load is on before the checkout's first repetition
        elif index == LOADED.stop:
            hogs.stop()
            level.write_text("100\n")

    result = run_series(config, RunOptions(), progress)
    assert result.watched == CHECKOUTS * 2  # every repetition has its machine's state
    with Store.open(config.store.url) as store:
        states = store.machine_states(result.series_id)
    assert len(states) == CHECKOUTS * 2
    under_load = {key: state for key, state in states.items() if key[0] in LOADED}
    assert len(under_load) == len(LOADED) * 2
    for key, state in under_load.items():
        assert repetition_loaded(state), (key, state)
    assert result.loaded >= len(under_load)

    code = main(["changes", "-c", str(path), "--format", "json"])
    events = json.loads(capsys.readouterr().out)["changes"]
    # what the load explains is suspect until measured again: undecided (exit 4), never
    # passed as if nothing changed
    assert code == exits.UNDECIDED, events
    # the start of the loaded stretch looks like a regression, its end like an
    # improvement: both are the machine's doing
    found = {e["after"]["idx"]: e["metrics"] for e in events}
    assert sorted(found) == [LOADED.start, LOADED.stop], events
    assert [m["regression"] for m in found[LOADED.start]] == [True]
    assert [m["regression"] for m in found[LOADED.stop]] == [False]
    for metrics in found.values():
        assert metrics[0]["suspect"].startswith("machine load: "), metrics
        assert metrics[0]["verdict"]["state"] == "suspect", metrics
        assert metrics[0]["verdict"]["chain"][-1].startswith("suspect: machine load: ")
    assert main(["changes", "-c", str(path)]) == exits.UNDECIDED
    text = capsys.readouterr().out
    assert f"REGRESSION {result.series_id}:{LOADED.start} (suspect)" in text
    assert "\n  suspect: detected in walk " in text  # its chain, the suspicion last

    # a benchmark known not to feel the load: judged on its values alone
    path.write_text(path.read_text("utf-8") + "\n[analysis]\nsuspect_load = false\n", "utf-8")
    code = main(["changes", "-c", str(path), "--format", "json"])
    events = json.loads(capsys.readouterr().out)["changes"]
    assert code == 1, events
    assert [[m["suspect"] for m in e["metrics"]] for e in events] == [[None], [None]]


@pytest.mark.alone
@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")
def test_the_walk_warns_on_its_last_line_and_exclude_loaded_leaves_them_out(
    tmp_path: Path, hogs: Hogs, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _level = _project(tmp_path, run="exclude_loaded = true", checkouts=2)
    hogs.start(2)
    time.sleep(0.5)
    code = main(["run", "-c", str(path)])
    hogs.stop()
    out = capsys.readouterr().out
    assert code == 0
    last = out.splitlines()[-2]  # the last: what the walk found
    assert last.startswith("warning: ")
    assert "repetitions were measured on a loaded machine" in last
    loaded = int(last.split()[1])
    assert loaded == 4  # 2 checkouts × 2 repetitions, all under the load
    excluding = load_config(path)
    counting = dataclasses.replace(
        excluding, run=dataclasses.replace(excluding.run, exclude_loaded=False)
    )
    with Store.open(excluding.store.url) as store:
        (series,) = store.list_series()
        assert len(series_table(store, counting, series).cells) == 2
        assert series_table(store, excluding, series).cells == {}  # every one was loaded


SINK = """
[test.roles.sink]
startup = ["echo sink ready"]

[hosts.sink]
target = "local"
roles = ["sink"]
"""
#: what the snapshot script prints on a sink that runs more than it has CPUs for
SINK_SNAPSHOT = "@uptime\n1000.0 0\n@loadavg\n3.10 2.50 2.00 4/300 999\n@cores\n2\n@end\n"


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")
def test_a_loaded_sink_marks_the_repetition_loaded_and_is_named(tmp_path: Path) -> None:
    path, _level = _project(tmp_path, checkouts=2, extra=SINK)
    config = load_config(path)
    sink = FakeHost(
        [
            Rule(
                lambda argv: list(argv) == snapshot_command(argv[-1]),
                stdout=SINK_SNAPSHOT,
            ),
            Rule("mktemp -d", stdout="/tmp/perfwalk.sink\n"),
            Rule(lambda _argv: True),  # its role's commands, the fingerprint: answered
        ],
        name="sink",
    )
    topology = Topology(
        {
            "local": Member("local", LocalHost("local"), local=True),
            "sink": Member("sink", sink, local=False, roles=("sink",)),
        },
        "local",
    )
    try:
        with Store.open(config.store.url) as store:
            plan = plan_walk(store, config, topology, RunOptions())
            series_id = store.create_series(walk_series(config, topology, plan, datetime.now(UTC)))
            worktrees = Worktrees.for_series(
                plan.repo, config.store.worktrees, store.store_id(), series_id
            )
            walk = Walk(series_id, config, store, worktrees, topology, plan.quirks, plan.between)
            with worktrees.held("a walk on two hosts"):
                walk.run(plan)
            states = store.machine_states(series_id)
            packs = store.site.packs(series_id, 0, 1)
    finally:
        topology.close()
    assert sorted(states) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for key, found in states.items():
        assert sorted(found) == ["local", "sink"], key  # the [run] host's and the sink's
        assert (found["sink"].load1, found["sink"].cores) == (3.1, 2)
        assert repetition_loaded(found), key
        assert "sink: load 3.10 > 2 cores" in why_repetition_loaded(found), key
    # each repetition read the sink before its role's commands there and after them
    kinds = ["state" if "perfwalk-machine" in argv else argv[-1] for argv in sink.commands]
    run = [kind for kind in kinds if kind in ("state", "echo sink ready")]
    assert run == ["state", "echo sink ready", "state"] * 4
    for pack in packs:
        assert json.loads(pack.head)["loaded"] == [0, 1]
        for rep in json.loads(pack.detail)["reps"]:
            assert "sink: load 3.10 > 2 cores" in rep[4]["loaded"]
            assert [h["host"] for h in rep[4]["hosts"]] == ["local", "sink"]
