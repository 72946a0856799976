"""Sweeps, derived metrics and test groups in real walks of real repositories: a sweep
of 3 × 2 walks six tests whose values differ by parameter; a derived metric is stored
per repetition, left out with its reason where it cannot be computed, found changing
and drilled to its commit like a measured value; ``--tests`` walks, resumes, shows,
lists and publishes one group only."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.drill import Verdict
from perfwalk.model import Status
from perfwalk.orchestrate.findings.changes import find_changes
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.drill import change_targets, run_drill
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import CommitSpec, make_repo
from tests.services.walks import kill_walk_once_stored, stored_repetitions, walk

START = datetime(2025, 3, 1, tzinfo=UTC)

SWEEP = """\
[project]
repo = "{repo}"

[build]
steps = ["true"]

[run]
step = "commit"
repetitions = 2

[[test]]
name = "udp"
group = "net"
description = "UDP throughput at each size and number of streams"
command = "printf 'VALUE %s bits/sec receiver\\\\n' $(( {{sweep.size}} * {{sweep.streams}} * 8 ))"
parser = "value"
[test.sweep]
size = [64, 512, 1500]
streams = [1, 10]
[[test.derived]]
name = "pps"
expression = "receiver / 8 / sweep.size"
unit = "packets/s"
[[test.derived]]
name = "per_extra_stream"
expression = "receiver / (sweep.streams - 1)"
unit = "bits/sec"
"""


def _repo(path: Path, commits: int) -> Path:
    make_repo(
        path,
        [
            CommitSpec(START + i * timedelta(hours=1), f"Commit {i}", {"n.txt": f"{i}\n"})
            for i in range(commits)
        ],
    )
    return path


def test_a_sweep_of_3_by_2_walks_six_tests_whose_values_differ_by_parameter(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path / "repo", 2)
    path = tmp_path / "perfwalk.toml"
    path.write_text(SWEEP.format(repo=repo), encoding="utf-8")
    config = load_config(path)
    result = run_series(config, RunOptions())
    assert result.worst is Status.PASS  # a derived value left out fails nothing

    with Store.open(config.store.url) as store:
        series = store.series(result.series_id)
        checkouts = store.checkouts(result.series_id)
        found: dict[str, list[tuple[str, float, str, str]]] = {}
        messages: dict[str, set[str]] = {}
        commands: dict[str, set[str]] = {}
        for checkout in checkouts:
            for rep in store.repetitions(checkout.id):
                for stored in rep.results:
                    assert stored.status is Status.PASS
                    values = [(v.name, v.value, v.unit, v.direction) for v in stored.values]
                    found.setdefault(stored.test, []).extend(values)
                    messages.setdefault(stored.test, set()).add(stored.message)
                    commands.setdefault(stored.test, set()).add(stored.command)
    print(json.dumps({k: sorted(set(v)) for k, v in found.items()}, indent=1))
    assert len(checkouts) == 2
    assert sorted(found) == sorted(
        f"udp[size={size},streams={streams}]" for size in (64, 512, 1500) for streams in (1, 10)
    )
    for test, values in found.items():
        size, streams = map(int, re.findall(r"\d+", test))
        assert len(values) == (2 * 2) * (2 if streams == 1 else 3)  # 2 checkouts × 2 reps
        by_name: dict[str, set[tuple[float, str, str]]] = {}
        for name, value, unit, direction in values:
            by_name.setdefault(name, set()).add((value, unit, direction))
        assert by_name["receiver"] == {(size * streams * 8, "bits/sec", "higher")}
        assert by_name["pps"] == {(streams, "packets/s", "higher")}
        assert commands[test] == {
            f"printf 'VALUE %s bits/sec receiver\\n' $(( {size} * {streams} * 8 ))"
        }
        if streams == 1:  # receiver / 0: left out, with the reason, at every repetition
            assert "per_extra_stream" not in by_name
            reason = "derived per_extra_stream left out: division by zero (sweep.streams - 1 is 0)"
            assert all(said.endswith(reason) for said in messages[test]), messages[test]
        else:
            assert by_name["per_extra_stream"] == {(size * 8 * streams / 9, "bits/sec", "higher")}
            assert all("left out" not in said for said in messages[test])
    recorded = series.commands["tests"]["udp[size=512,streams=10]"]
    assert recorded["family"] == "udp"
    assert recorded["sweep"] == {"size": 512, "streams": 10}
    assert recorded["group"] == "net"
    assert recorded["description"] == "UDP throughput at each size and number of streams"
    assert recorded["derived"] == {
        "pps": "receiver / 8 / sweep.size",
        "per_extra_stream": "receiver / (sweep.streams - 1)",
    }


#: the latency of a commit: 100 ms before commit 7, 130 ms from it on, with a little
#: deterministic noise of each run (the values of the change are known, not measured)
BENCH = r"""#!/bin/sh
n=$(( $(cat "{counter}" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "{counter}"
awk -v i="$(cat n.txt)" -v n="$n" 'BEGIN {{
  srand(n * 7919)
  level = (i >= 7) ? 130 : 100
  printf "VALUE %.4f ms latency\n", level + (rand() - 0.5) * 0.4
}}'
"""

CHANGING = """\
[project]
repo = "{repo}"

[build]
steps = ["true"]

[run]
step = "commit/2"
repetitions = 3

[analysis]
suspect_load = false  # the values are known: the machine's load must not make them suspect

[[test]]
name = "bench"
group = "speed"
description = "latency of one request"
command = "sh {bench}"
parser = "value"
[[test.derived]]
name = "rate"
expression = "1000 / latency"
unit = "requests/s"

[[test]]
name = "steady"
group = "other"
command = "echo VALUE 5 s steady"
parser = "value"
"""


@pytest.fixture
def changing(tmp_path: Path) -> Path:
    """A walk of 14 commits (every 2nd, 3 repetitions) whose latency rises by 30 % at
    commit 7, with a derived rate, and a steady test of another group."""
    repo = _repo(tmp_path / "repo", 14)
    bench = tmp_path / "bench.sh"
    bench.write_text(BENCH.format(counter=tmp_path / "runs"), encoding="utf-8")
    path = tmp_path / "perfwalk.toml"
    path.write_text(CHANGING.format(repo=repo, bench=bench), encoding="utf-8")
    run_series(load_config(path), RunOptions())
    return path


def test_a_derived_metric_changes_and_is_drilled_like_a_measured_one(changing: Path) -> None:
    config = load_config(changing)
    with Store.open(config.store.url) as store:
        (event,) = find_changes(store, config)
        metrics = {m.name: m for m in event.metrics}
        print(event.before.idx, event.after.idx, {n: round(m.size, 3) for n, m in metrics.items()})
        assert set(metrics) == {"latency", "rate"}
        assert all(m.test == "bench" for m in metrics.values())
        assert metrics["latency"].size == pytest.approx(0.3, abs=0.01)
        assert metrics["rate"].size == pytest.approx(100 / 130 - 1, abs=0.01)
        assert metrics["rate"].regression  # requests/s: higher is better, and it fell
        assert metrics["latency"].regression
        (target,) = change_targets(store, config, test="bench", name="rate")
        line = [r.sha for r in store.checkouts(event.series_id)]
    assert target.metric == "bench.rate"

    drilled = run_drill(config, target)

    assert drilled.done.verdict is Verdict.CULPRIT, drilled.done.reason
    assert drilled.culprit is not None
    assert drilled.culprit.subject == "Commit 7"
    assert drilled.culprit.id not in line  # a commit the walk stepped over
    with Store.open(config.store.url) as store:
        rates = [v for v in store.values(drilled.series_id) if v.name == "rate"]
    assert rates, "the drill measured the derived metric"
    assert {(v.unit, v.direction) for v in rates} == {("requests/s", "higher")}


def test_changes_show_and_report_take_the_tests_of_a_group(
    changing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = ["-c", str(changing)]
    assert main(["changes", *config, "--tests", "other"]) == 0
    assert capsys.readouterr().out.startswith("no changes found\n")
    assert main(["changes", *config, "--tests", "speed", "--format", "json"]) == 1
    (listed,) = json.loads(capsys.readouterr().out)["changes"]
    assert {(m["test"], m["name"]) for m in listed["metrics"]} == {
        ("bench", "latency"),
        ("bench", "rate"),
    }

    assert main(["show", *config, "--tests", "other"]) == 0
    shown = capsys.readouterr().out
    header = next(line for line in shown.splitlines() if line.startswith("#"))
    assert "steady.steady [s]" in header
    assert "bench" not in shown

    site = tmp_path / "site"
    assert main(["report", *config, "--tests", "speed", "--out", str(site)]) == 0
    capsys.readouterr()
    data = site / "series-1" / "data"
    meta = (data / "meta.js").read_text(encoding="utf-8")
    keys = json.loads(meta[meta.index(",") + 1 : meta.rindex(")")])["keys"]
    assert {k["test"] for k in keys.values()} == {"bench"}
    assert {k["description"] for k in keys.values()} == {"latency of one request"}
    assert {k["group"] for k in keys.values()} == {"speed"}
    pages = "".join(p.read_text(encoding="utf-8") for p in data.glob("checkouts-*.js"))
    assert '"bench"' in pages
    assert "steady" not in pages  # neither its values nor its results

    assert main(["report", *config, "--tests", "other", "--out", str(site)]) == 0
    capsys.readouterr()
    meta = (data / "meta.js").read_text(encoding="utf-8")
    keys = json.loads(meta[meta.index(",") + 1 : meta.rindex(")")])["keys"]
    assert {k["test"] for k in keys.values()} == {"steady"}
    assert "bench" not in "".join(p.read_text(encoding="utf-8") for p in data.glob("checkouts-*"))

    assert main(["show", *config, "--tests", "nothing"]) == 2
    error = capsys.readouterr().err
    assert "--tests nothing: no group, test or sweep of that name" in error
    assert "its groups: other, speed; its tests: bench, steady" in error


GROUPS = """\
[project]
repo = "{repo}"

[build]
steps = ["true"]

[run]
step = "commit"
repetitions = 2

[[test]]
name = "udp"
group = "net"
command = "sleep 0.1; echo VALUE {{sweep.size}} B size"
parser = "value"
[test.sweep]
size = [64, 1500]

[[test]]
name = "fsmark"
group = "fs"
command = "echo VALUE 1 s files"
parser = "value"
"""


def test_a_walk_of_one_group_runs_only_it_and_resumes_with_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", 4)
    path = tmp_path / "perfwalk.toml"
    path.write_text(GROUPS.format(repo=repo), encoding="utf-8")
    db = tmp_path / "perfwalk.db"

    started = walk(path, "--tests", "net", "--resume")
    out, err = started.communicate(timeout=120)
    assert started.returncode == 2
    assert b"--tests cannot be given with --resume" in err

    # killed within its walk, resumed without --tests: it measures what it started with
    kill_walk_once_stored(path, db, 3, args=("--tests", "net"))
    resumed = walk(path, "--resume")
    out, err = resumed.communicate(timeout=120)
    print(out.decode(), err.decode())
    assert resumed.returncode == 0, err
    assert b"series 1 resumed and finished: 4 checkouts" in out
    config = load_config(path)
    with Store.open(config.store.url) as store:
        tests = [r.test for r in store.results(1)]
        assert sorted(set(tests)) == ["udp[size=1500]", "udp[size=64]"]
        assert len(tests) == 4 * 2 * 2  # checkouts × repetitions × members: nothing twice
        assert sorted(store.series(1).commands["tests"]) == ["udp[size=1500]", "udp[size=64]"]
        assert store.series(1).config_hash == config.hash  # the file's: a walk of it

    fs = walk(path, "--tests", "fs")
    out, err = fs.communicate(timeout=120)
    assert fs.returncode == 0, err
    with Store.open(config.store.url) as store:
        assert {r.test for r in store.results(2)} == {"fsmark"}
    assert stored_repetitions(db) == 2 * (4 * 2)  # two walks of 4 checkouts × 2 repetitions
