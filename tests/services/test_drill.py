"""Drills of real repositories with real builds and real, seeded noise.

The noisy histories print a value drawn by awk from a seed made of the commit's
position and the repetition: the same drill sees the same values every time.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.composites.demo import DemoResult
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.drill import Budget, Verdict
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.report.context import zoom_links
from perfwalk.services.drill import between_target, run_drill
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.noisy_repo import CONFIG, noisy_history
from tests.fixtures.synthetic_repo import KnownHistory
from tests.services.conftest import MakeConfig


def _config(tmp_path: Path, repo: Path) -> Config:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG.format(repo=repo), encoding="utf-8")
    return load_config(path)


def _drill(
    config: Config, ids: list[str], budget: Budget | None = None
) -> tuple[Verdict, int, int]:
    with Store.open(config.store.url) as store:
        target = between_target(store, config, (ids[0], ids[-1]), test="latency", name="latency")
    result = run_drill(config, target, budget)
    done = result.done
    return done.verdict, done.lo, done.hi


def test_an_unbuildable_commit_at_the_change_gives_the_smallest_honest_range(
    tmp_path: Path,
) -> None:
    ids = noisy_history(
        tmp_path / "repo", commits=24, step_at=12, size=5, salt=1, broken=frozenset({12})
    )
    config = _config(tmp_path, tmp_path / "repo")
    verdict, lo, hi = _drill(config, ids)
    assert (verdict, lo, hi) == (Verdict.RANGE, 11, 13)
    with Store.open(config.store.url) as store:
        (row,) = store.drills.all()
        assert row.verdict == "range"
        assert row.answer is not None
        assert (row.answer["lo"], row.answer["hi"]) == (ids[11], ids[13])
        assert "could not be placed" in row.answer["reason"]
        skipped = [s for s in row.steps if s["skipped"]]
        assert [s["commit"] for s in skipped] == [ids[12]]
        assert skipped[0]["skipped"] == "does not build"
        build = {c.sha: c.build_status for c in store.checkouts(row.series_id)}
        assert build[ids[12]] is not None
        assert build[ids[12]].name == "NOEXIST"
        series = store.series(row.series_id)
        assert (series.kind, series.parent_id, series.step) == ("drill", None, "drill")


@pytest.mark.slow
@pytest.mark.parametrize("salt", [11, 12, 13])
def test_a_bimodal_noisy_metric_gives_the_right_commit_or_says_undecided(
    tmp_path: Path, salt: int
) -> None:
    ids = noisy_history(
        tmp_path / "repo", commits=32, step_at=19, size=2.5, salt=salt, shape="bimodal"
    )
    config = _config(tmp_path, tmp_path / "repo")
    budget = Budget(max_builds=12, max_repetitions=300)
    verdict, lo, hi = _drill(config, ids, budget)
    assert verdict in (Verdict.CULPRIT, Verdict.UNDECIDED)
    if verdict is Verdict.CULPRIT:
        assert (lo, hi) == (18, 19)
    with Store.open(config.store.url) as store:
        (row,) = store.drills.all()
        assert row.answer is not None
        assert row.answer["builds"] <= budget.max_builds
        assert row.answer["repetitions"] <= budget.max_repetitions


def test_the_demo_drills_each_known_change_to_its_exact_commit(demo_result: DemoResult) -> None:
    result = demo_result
    speed = [e for e in result.project.events if e.direction != "broken-build"]
    assert len(speed) == 3  # the six weeks' two, and the extra night's
    assert (result.found, result.known) == (4, 4), [f.detail for f in result.findings]
    # the night: one watch cycle told one message, about the night's slowdown only
    night = result.night
    assert night is not None
    assert night.event == speed[-1]
    told = [(c.id, c.metric, c.note) for c in night.cycle.new]
    assert told, "the night's slowdown was not found"
    drilled = speed
    if all(c.note.startswith("suspect: machine load") for c in night.cycle.new):
        # a machine busy while the night was measured (its state recorded with each
        # repetition): the change is shown, suspect, and neither drilled nor told, as
        # docs/analysis.md says; the watch tests tell a change on a seeded machine
        assert night.messages == (), told
        assert night.cycle.alarms == []
        assert result.drills[-1].detail == "no drill across it"
        drilled = speed[:-1]
    else:
        assert len(night.messages) == 1, (told, night.messages)
        (message,) = night.messages
        assert night.event.commit in message["message"]
        assert "cksum: count every byte value" in message["message"]
        # the alarms are the new changes to act on (no note: not suspect, not a known
        # cause); another new change the machine's state explains is shown, not told
        acted = [c for c in night.cycle.new if not c.note]
        assert {c.after_sha for c in night.cycle.alarms} == {c.after_sha for c in acted}
        assert all(c.culprit is not None for c in acted)
        assert {c.culprit.sha for c in acted if c.culprit} == {night.event.commit}
    assert [d.event for d in result.drills] == speed  # one answer per known change
    exact = [d for d in result.drills if d.event in drilled]
    assert all(d.exact for d in exact), [d.detail for d in result.drills]
    config = load_config(result.project.config)
    with Store.open(config.store.url) as store:
        drills = store.drills.all()
        # every change the walk found was drilled; those across no known event (a real
        # code-layout effect on some machines) are reported, not hidden; the build
        # broken overnight is a change of its own, drilled to the commit that broke it
        breaks = [row for row in drills if row.change.get("broke")]
        (broken,) = [e for e in result.project.events if e.direction == "broken-build"]
        assert [row.answer["culprit"] for row in breaks if row.answer] == [broken.commit]
        assert not [o for o in result.others if o.target.change.get("broke")]
        assert len(drills) == len(drilled) + len(result.others) + len(breaks)
        culprits = {row.answer["culprit"] for row in drills if row.answer}
        assert {e.commit for e in drilled} <= culprits
        for row in drills:
            assert store.series(row.series_id).parent_id == result.series_id
            assert row.steps
            assert row.answer is not None
            assert row.answer["builds"] <= Budget().max_builds
    pages = {p.name for p in result.site.rglob("*.html")}
    assert pages  # published after the drills


def test_drill_json_names_each_culprit_and_a_second_drill_reuses_the_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = noisy_history(tmp_path / "repo", commits=28, step_at=13, size=6, salt=5)
    config = _config(tmp_path, tmp_path / "repo")
    assert run_series(config, RunOptions(step="commit/4", repetitions=3)).worst.name == "PASS"
    code = main(["changes", "-c", str(config.path), "--format", "json"])
    changes = json.loads(capsys.readouterr().out)["changes"]
    assert code == 1
    (change,) = changes
    assert change["id"] == f"1:{change['after']['idx']}"
    code = main(["drill", "-c", str(config.path), "--format", "json"])
    assert code == 0
    (drill,) = json.loads(capsys.readouterr().out)["drills"]
    assert drill["commit"] == ids[13]
    assert drill["subject"] == "Make it slower"
    assert (drill["test"], drill["value"], drill["verdict"]) == ("latency", "latency", "culprit")
    assert drill["before"] == pytest.approx(100, abs=1)
    assert drill["after"] == pytest.approx(106, abs=1)
    assert drill["confidence"] > 0.99
    assert drill["builds"] >= 1
    assert drill["repetitions"] >= 1
    assert drill["reused"] == 6  # the 3 repetitions of each end, from the walk
    assert drill["change"] == change["id"]
    assert drill["parent"] == 1
    code = main(["drill", change["id"], "-c", str(config.path)])
    out = capsys.readouterr().out
    assert code == 0
    assert f"drilled before, series {drill['series']}" in out
    assert f"CULPRIT {ids[13][:12]} 'Make it slower'" in out


def test_drill_errors_name_what_to_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ids = noisy_history(tmp_path / "repo", commits=4, step_at=2, size=6, salt=5)
    config = _config(tmp_path, tmp_path / "repo")
    path = str(config.path)
    assert main(["drill", "9:9", "-c", path]) == 2
    assert "no change '9:9'" in capsys.readouterr().err
    assert main(["drill", "--between", ids[0], ids[3], "-c", path]) == 2
    assert "--test TEST --value VALUE" in capsys.readouterr().err
    argv = ["drill", "--between", ids[3], ids[0], "--test", "latency", "--value", "latency"]
    assert main([*argv, "-c", path]) == 2
    assert "give the earlier commit first" in capsys.readouterr().err
    argv = ["drill", "--between", ids[0], ids[3], "--test", "nope", "--value", "x"]
    assert main([*argv, "-c", path]) == 2
    assert "test 'nope' is not in" in capsys.readouterr().err
    argv = ["drill", "--between", ids[0], ids[3], "--test", "latency", "--value", "latency"]
    with pytest.raises(SystemExit) as refused:  # the option's type refuses it (exit 2)
        main([*argv, "--max-builds", "0", "-c", path])
    assert refused.value.code == 2
    assert "argument --max-builds: expected 1 to 10000, got 0" in capsys.readouterr().err


def test_a_finer_walk_inside_two_checkouts_is_a_zoom_of_that_series(
    make_config: MakeConfig, known_values_repo_copy: KnownHistory
) -> None:
    known = known_values_repo_copy
    config = make_config()
    coarse = run_series(config, RunOptions())
    with Store.open(config.store.url) as store:
        rows = store.checkouts(coarse.series_id)
    before, after = rows[4], rows[5]
    fine = run_series(config, RunOptions(from_=before.sha, to=after.sha, step="1hour"))
    assert fine.parent == coarse.series_id
    with Store.open(config.store.url) as store:
        series = store.list_series()
        assert store.series(fine.series_id).parent_id == coarse.series_id
        links = zoom_links(series, {s.id: store.checkouts(s.id) for s in series})
    assert [z.series_id for z in links[coarse.series_id][after.idx]] == [fine.series_id]
    assert known.index(after.sha) - known.index(before.sha) + 1 == fine.checkouts
    # a walk as coarse as the first is no zoom
    again = run_series(config, RunOptions())
    assert again.parent is None
