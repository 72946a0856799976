"""Confirm before telling (`[run] confirm = true`): at the end of a walk each change it
found is measured again at both of its checkouts, interleaved (before, after, after,
before, …), until the sequential test decides. A change made by time (the values
moved with the machine, not with a commit) is then shown "not confirmed by a
re-measure" and passes; a real step in the repository's values is confirmed and
fails as ever. A walk stopped during its re-measures and resumed measures them
again."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.orchestrate.findings.changes import find_changes
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.publish import detected_changes
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import CommitSpec, make_repo
from tests.services.walks import walk_config

#: each run appends "CHECKOUT REPETITION" to {order}, then prints a value with a seeded
#: noise of ±0.2 around its level: the machine's (100, from the 16th run on 110) for
#: LEVEL=time, else the checkout's own (value.txt); run STOP_AT sends SIGTERM to the
#: process whose PID is in the file {stop}, when there is one
BENCH = r"""#!/bin/sh
n=$(( $(cat "{counter}" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "{counter}"
echo "$PERFWALK_CHECKOUT $PERFWALK_REPETITION" >> "{order}"
if [ "$n" = "{stop_at}" ] && [ -f "{stop}" ]; then kill -TERM "$(cat "{stop}")"; sleep 30; fi
if [ "{level}" = time ]; then level=time; else level=$(cat value.txt); fi
awk -v n="$n" -v level="$level" 'BEGIN {{
  srand(n * 7919)
  if (level == "time") level = (n > 15) ? 110 : 100
  printf "VALUE %.4f ms latency\n", level + (rand() - 0.5) * 0.4
}}'
"""


#: the run the walk of the last test is stopped in: its first re-measure (8 checkouts × 3)
STOP_AT = 25


def _project(tmp_path: Path, levels: list[int], level: str = "repo") -> Path:
    """A repository of one commit per level (value.txt), its bench and configuration."""
    start = datetime(2025, 3, 1, tzinfo=UTC)
    make_repo(
        tmp_path / "repo",
        [
            CommitSpec(start + i * timedelta(hours=1), f"Commit {i}", {"value.txt": f"{v}\n"})
            for i, v in enumerate(levels)
        ],
    )
    bench = tmp_path / "bench.sh"
    bench.write_text(
        BENCH.format(
            counter=tmp_path / "runs",
            order=tmp_path / "order",
            level=level,
            stop=tmp_path / "stop.pid",
            stop_at=STOP_AT,
        ),
        encoding="utf-8",
    )
    path = tmp_path / "perfwalk.toml"
    # the machine's load is another test's subject: measured without waiting for it, and
    # never making a change suspect (which would measure it again first)
    text = walk_config(
        tmp_path / "repo",
        f"sh {bench}",
        run="confirm = true\nconfirm_wait = 0",
        extra="\n[analysis]\nsuspect_load = false\n",
    )
    path.write_text(text, encoding="utf-8")
    return path


def _forget_the_load(tmp_path: Path) -> None:
    """Leave out the machine's state of every repetition: whether the load of the machine
    running this test made a change suspect is another test's subject."""
    with sqlite3.connect(tmp_path / "perfwalk.db") as db:
        db.execute("DELETE FROM machine_state")


def _order(tmp_path: Path) -> list[str]:
    """The checkouts and repetitions in the order they ran."""
    return (tmp_path / "order").read_text(encoding="utf-8").splitlines()


def test_a_change_made_by_time_is_not_confirmed_and_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_path = _project(tmp_path, [100] * 10, level="time")

    assert main(["run", "-c", str(config_path)]) == 0

    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "no change found"  # the walk's last word: what it found
    assert out[-2] == (
        "confirm: 0 of 1 change confirmed by a re-measure, 1 not confirmed; see `perfwalk changes`"
    )
    assert out[-3].startswith("re-measure of 1:5: not held after 3 + 3 repetitions, interleaved")
    # before, after, after, before, before, after: decided at the first look; two
    # checkouts out from the change's own (4 and 5) on each side, within its levels
    assert _order(tmp_path)[30:] == ["2 3", "7 3", "7 4", "2 4", "2 5", "7 5"]
    _forget_the_load(tmp_path)
    config = load_config(config_path)
    with Store.open(config.store.url) as store:
        (event,) = find_changes(store, config)
        assert (event.before.idx, event.after.idx, event.regression) == (4, 5, True)
        assert event.confirmed is False
        assert not event.to_act_on
        (metric,) = event.metrics
        again = metric.remeasured
        assert again is not None
        assert again.before is not None
        assert again.after is not None
        assert not again.held
        assert abs(again.after - again.before) < 1  # side by side, the same machine
        (mark,) = detected_changes(store, config)
    refuted = "refuted by a re-measure (0.0 %, 3 + 3 repetitions): it did not hold"
    assert mark.unconfirmed == refuted
    assert mark.describe().endswith(f"; {refuted})")
    assert main(["changes", "-c", str(config_path), "--all"]) == 0  # not to act on
    text = capsys.readouterr().out
    ruled_out = text.split("ruled out (measured again, the change was not there):")[1]
    assert "REGRESSION 1:5 (refuted)" in ruled_out
    assert (
        "refuted by a re-measure: checkouts 2 and 7 (around its 4 and 5) measured again "
        "side by side, 3 + 3 repetitions interleaved (" in text
    )
    assert "equivalent within ±1 %: +0.0 % [" in text  # within its min_change
    assert "did not hold (the change: +10.0 %)" in text
    assert main(["changes", "-c", str(config_path), "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["changes"] == []  # refuted: apart
    (listed,) = found["ruled_out"]
    assert listed["verdict"]["state"] == "refuted"
    assert listed["verdict"]["chain"][-1] == refuted
    assert listed["confirmed_by_remeasure"] is False
    assert listed["metrics"][0]["remeasured"]["held"] is False


def test_a_re_measure_is_numbered_after_the_repetitions_a_checkout_could_have(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Adaptive repetitions (3 to 6) that stop at 3: the re-measure of a change made by
    time is numbered from 6 on, beyond what the walk could have measured there, so that
    `perfwalk changes` does not read it as the walk's own and the change is still seen,
    then refuted."""
    config_path = _project(tmp_path, [100] * 10, level="time")
    text = config_path.read_text(encoding="utf-8")
    config_path.write_text(
        text.replace("confirm = true", "confirm = true\nrepetitions_max = 6\nrse_target = 10"),
        encoding="utf-8",
    )

    assert main(["run", "-c", str(config_path)]) == 0

    out = capsys.readouterr().out.splitlines()
    assert out[-3].startswith("re-measure of 1:5: not held after 3 + 3 repetitions, interleaved")
    assert _order(tmp_path)[30:] == ["2 6", "7 6", "7 7", "2 7", "2 8", "7 8"]
    _forget_the_load(tmp_path)
    config = load_config(config_path)
    with Store.open(config.store.url) as store:
        (event,) = find_changes(store, config)  # the walk's own values: the step at 5
        assert (event.before.idx, event.after.idx, event.confirmed) == (4, 5, False)


def test_real_steps_are_confirmed_by_a_re_measure_interleaved_and_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_path = _project(tmp_path, [100] * 5 + [140] * 6 + [120] * 5)
    config = load_config(config_path)

    result = run_series(config, RunOptions())

    confirmed = result.confirmed
    assert confirmed is not None
    assert (confirmed.confirmed, confirmed.not_confirmed, confirmed.undecided) == (2, 0, 0)
    assert [(c.id, c.outcome, c.counts) for c in confirmed.remeasured] == [
        ("1:5", "held", (3, 3)),
        ("1:11", "held", (3, 3)),
    ]
    # each change's checkouts in turns, before, after, after, before…, the larger first,
    # two out from its own on each side (4 and 5; 10 and 11) within its levels
    assert _order(tmp_path)[48:] == [
        *("2 3", "7 3", "7 4", "2 4", "2 5", "7 5"),
        *("8 3", "13 3", "13 4", "8 4", "8 5", "13 5"),
    ]
    _forget_the_load(tmp_path)
    with Store.open(config.store.url) as store:
        events = find_changes(store, config)
        assert [(e.before.idx, e.after.idx, e.confirmed) for e in events] == [
            (4, 5, True),
            (10, 11, True),
        ]
        assert events[0].to_act_on  # 100 -> 140 ms: a regression, confirmed
        marks = detected_changes(store, config)
        (row,) = [c for c in store.checkouts(result.series_id) if c.idx == 2]
        assert [r.idx for r in store.repetitions(row.id)] == [0, 1, 2, 3, 4, 5]  # real ones
    assert [(m.confirmed, m.unconfirmed) for m in marks] == [(True, ""), (True, "")]
    assert marks[0].describe().endswith(": it held)")
    assert marks[0].size_text().endswith(" (re-measure)")  # what measured it last
    assert main(["changes", "-c", str(config_path), "--all"]) == 1
    text = capsys.readouterr().out
    assert "REGRESSION 1:5 (confirmed)" in text
    assert "IMPROVEMENT 1:11 (confirmed)" in text
    assert text.count("; confirmed by a re-measure (") == 2
    assert text.count(", held (the change: ") == 2
    assert main(["status", "-c", str(config_path)]) == 0
    assert "  repetitions 48 of 48 (+12 re-measures of changes)" in capsys.readouterr().out


def _walk(config: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "perfwalk", "run", "-c", str(config), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_walk_stopped_in_its_re_measures_measures_them_again_when_resumed(
    tmp_path: Path,
) -> None:
    config_path = _project(tmp_path, [100] * 4 + [130] * 4)
    walk = _walk(config_path)
    (tmp_path / "stop.pid").write_text(f"{walk.pid}\n", encoding="utf-8")
    _out, err = walk.communicate(timeout=120)  # stopped in its first re-measure
    assert walk.returncode == 143, err  # SIGTERM
    config = load_config(config_path)
    with Store.open(config.store.url) as store:
        (series,) = store.list_series()
        assert series.state == "interrupted"
        assert store.confirmations.of_series(series.id) == {}  # no verdict on half of it

    resumed = _walk(config_path, "--resume")
    out, err = resumed.communicate(timeout=120)

    assert resumed.returncode == exits.FOUND, err  # a confirmed regression (with confirm)
    lines = out.splitlines()
    assert lines[0].startswith(f"series {series.id} resumed and finished")
    assert lines[-2].startswith("confirm: 1 of 1 change confirmed by a re-measure, 0 not")
    assert lines[-1].startswith("1 regression: ")  # the walk's last word: what it found
    # the repetition in flight when it stopped is lost; then before, after, after…
    # (checkouts 1 and 6: two out from the change's 3 and 4)
    assert _order(tmp_path)[24:] == ["1 3", "1 3", "6 3", "6 4", "1 4", "1 5", "6 5"]
    with Store.open(config.store.url) as store:
        (row,) = store.confirmations.of_series(series.id).values()
        assert (row.before_idx, row.after_idx, row.before_rep, row.after_rep) == (3, 4, 3, 3)
        assert row.held
