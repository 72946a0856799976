"""A drill's verdict reaches the change it drilled: a change that the machine made
(its values moved with time, not with a commit) is ruled out by the drill at
once, and `perfwalk changes` and the site then show it refuted, apart from the
changes (never counted), exit 0."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.drill import Verdict
from perfwalk.orchestrate.findings.changes import find_changes
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.drill import change_targets, run_drill
from perfwalk.services.publish import detected_changes
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.commands import perfwalk
from tests.fixtures.synthetic_repo import CommitSpec, make_repo
from tests.services.walks import walk_config

#: the machine, not the commit: the 16th run and every later one is 10 % slower
TIMED_BENCH = r"""#!/bin/sh
n=$(( $(cat "{counter}" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "{counter}"
awk -v n="$n" 'BEGIN {{
  srand(n * 7919)
  level = (n > 15) ? 110 : 100
  printf "VALUE %.4f ms latency\n", level + (rand() - 0.5) * 0.4
}}'
"""


@pytest.fixture
def walked(tmp_path: Path) -> Path:
    """A walk of 10 commits (3 repetitions each) whose values moved at checkout 5
    because the machine did."""
    start = datetime(2025, 3, 1, tzinfo=UTC)
    make_repo(
        tmp_path / "repo",
        [
            CommitSpec(start + i * timedelta(hours=1), f"Commit {i}", {"n.txt": f"{i}\n"})
            for i in range(10)
        ],
    )
    bench = tmp_path / "timed.sh"
    bench.write_text(TIMED_BENCH.format(counter=tmp_path / "runs"), encoding="utf-8")
    path = tmp_path / "perfwalk.toml"
    # the machine's other processes must not make the change suspect: the drill's
    # verdict is what is tested here (what load does: test_machine_load.py)
    unloaded = "[analysis]\nsuspect_load = false\n"
    path.write_text(walk_config(tmp_path / "repo", f"sh {bench}", extra=unloaded), "utf-8")
    run_series(load_config(path), RunOptions())
    return path


def test_a_change_the_drill_rules_out_is_refuted_shown_apart_and_passes(
    walked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = load_config(walked)
    with Store.open(config.store.url) as store:
        (event,) = find_changes(store, config)
        assert (event.before.idx, event.after.idx, event.regression) == (4, 5, True)
        assert event.to_act_on
        (target,) = change_targets(store, config)
    assert main(["changes", "-c", str(walked)]) == 1  # before the drill: a regression
    capsys.readouterr()

    result = run_drill(config, target)

    done = result.done
    assert done.verdict is Verdict.NO_CHANGE
    assert "rule out the change reported (+10.0 %)" in done.reason
    # stopped by the sequential test within a few batches at the ends (the walk's own 3
    # values at 100 ms weigh on the first end at first), not after 60 + 60 - 3 - 3
    assert done.repetitions < 40
    assert main(["changes", "-c", str(walked)]) == 0
    out = capsys.readouterr().out
    assert out == "no changes found\n\nnot shown: 1 ruled out (perfwalk changes --all lists them)\n"
    assert main(["changes", "-c", str(walked), "--all"]) == 0
    out = capsys.readouterr().out
    # refuted: not listed as a change, shown apart
    listed, ruled_out = out.split("ruled out (measured again, the change was not there):")
    assert listed.startswith("no changes found\n")
    assert "REGRESSION 1:5 (refuted)" in ruled_out
    refuted = f"refuted by drill {result.series_id} (NO-CHANGE: "
    assert f"; {refuted}" in ruled_out
    assert main(["changes", "-c", str(walked), "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["changes"] == []
    (listed_json,) = found["ruled_out"]
    assert listed_json["not_confirmed_by"] == result.series_id
    assert listed_json["verdict"]["state"] == "refuted"
    assert listed_json["verdict"]["chain"][-1].startswith(refuted)
    with Store.open(config.store.url) as store:
        (mark,) = detected_changes(store, config)
    assert mark.unconfirmed.startswith(refuted)
    assert mark.state == "refuted"
    assert mark.describe().endswith(f"{done.reason}))")

    # the same from a real `perfwalk` process, and the site counts no change
    shown = perfwalk("changes", "-c", str(walked))
    assert shown.returncode == exits.OK, shown.stderr
    assert shown.stdout.startswith("no changes found\n"), shown.stdout
    site = walked.parent / "site"
    published = perfwalk("report", "-c", str(walked), "--out", str(site))
    assert published.returncode == exits.OK, published.stderr
    index = (site / "index.html").read_text(encoding="utf-8")
    changes = index[index.index("<h2>Changes</h2>") : index.index('<h3 id="ruled-out">')]
    assert '<p class="no-changes">no changes found</p>' in changes
    ruled_out = index[index.index('<h3 id="ruled-out">') :]
    assert '<td class="state refuted" title="detected in walk 1 at ' in ruled_out
    assert "regression" not in index[index.index("<h2>Walks</h2>") :].split("</table>")[0]
