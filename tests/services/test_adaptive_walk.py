"""An adaptive walk (`perfwalk run --adaptive --budget N`) on a real git repository
with known steps: it finds each step to its exact commit within its budget (its
progress counting the checkouts against the most it may measure), its
series an ordinary walk's (checkouts in first-parent order, each with the commits
since the one before, analysed by `perfwalk changes`); a budget of 2 measures the
ends; a flat history stops soon after the coarse pass; an interrupted one resumes;
bad options are refused naming the option."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from perfwalk.analysis.adaptive_walk import coarse_count
from perfwalk.cli import exits
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.orchestrate.findings.changes import find_changes
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.orchestrate.walk.walk_progress import CHECKOUT_DONE, Progress
from perfwalk.services.inspect import series_status
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.commands import perfwalk
from tests.fixtures.synthetic_repo import numbered_repo
from tests.services.walks import walk_config

COMMITS = 160
#: commit → the factor its level changes by from it on
STEPS = {57: 1.2, 131: 0.85}

#: the known level of the commit in n.txt, with 0.5 % of seeded noise per run
BENCH = r"""#!/bin/sh
n=$(cat n.txt)
runs=$(( $(cat "{counter}" 2>/dev/null || echo 0) + 1 ))
echo "$runs" > "{counter}"
awk -v n="$n" -v runs="$runs" -v flat="{flat}" 'BEGIN {{
  srand(runs * 7919)
  level = 100
  if (!flat && n >= 57) level *= 1.2
  if (!flat && n >= 131) level *= 0.85
  printf "VALUE %.4f ms latency\n", level * (1 + (rand() - 0.5) * 0.01)
}}'
"""


def _project(
    tmp_path: Path, *, flat: bool = False, commits: int = COMMITS
) -> tuple[Path, list[str]]:
    ids = numbered_repo(tmp_path / "repo", commits)
    bench = tmp_path / "bench.sh"
    text = BENCH.format(counter=tmp_path / "runs", flat=int(flat))
    bench.write_text(text, encoding="utf-8")
    path = tmp_path / "perfwalk.toml"
    unloaded = "[analysis]\nsuspect_load = false\n"
    path.write_text(walk_config(tmp_path / "repo", f"sh {bench}", extra=unloaded), "utf-8")
    return path, ids


def test_each_step_is_found_to_its_exact_commit_within_the_budget(tmp_path: Path) -> None:
    path, ids = _project(tmp_path)
    done = perfwalk("run", "-c", str(path), "--adaptive", "--budget", "30", timeout=600)
    assert done.returncode in (exits.OK, exits.FOUND), done.stderr
    assert "adaptive walk: " in done.stdout
    config = load_config(path)
    with Store.open(config.store.url) as store:
        (series,) = store.list_series()
        assert series.step == "adaptive"
        checkouts = store.checkouts(series.id)
        shas = [row.sha for row in checkouts]
        assert len(checkouts) <= 30
        # in first-parent order, the ends measured, each step between two neighbours
        assert [ids.index(sha) for sha in shas] == sorted(ids.index(sha) for sha in shas)
        assert (shas[0], shas[-1]) == (ids[0], ids[-1])
        for step in STEPS:
            assert shas.index(ids[step]) == shas.index(ids[step - 1]) + 1
        # every commit of the line counted once, in the checkout it leads to
        assert sum(row.commit_count for row in checkouts) == COMMITS
        since = [c.id for row in checkouts for c in store.commits_since(row.id)]
        assert since == ids
        events = find_changes(store, config)
    found = {(ids.index(e.before.sha), ids.index(e.after.sha)) for e in events}
    assert found == {(step - 1, step) for step in STEPS}
    # its progress counts the checkouts measured against the most it may measure
    told = re.findall(r"repetitions (\d+)/90, checkout (\d+) of at most 30,", done.stderr)
    counts = [(int(reps), int(number)) for reps, number in told]
    numbers = [number for _reps, number in counts]
    assert numbers == sorted(numbers), done.stderr
    assert set(numbers) == set(range(1, len(checkouts) + 1)), done.stderr
    assert all(3 * (number - 1) <= reps <= 3 * number for reps, number in counts)
    assert (3 * len(checkouts), len(checkouts)) in counts


#: a step of 6 % at commit 57 at 2.5 % of noise per run (each five runs of a commit
#: spread the same way around its level, a little off by commit); the first five runs
#: of commit 57 read 45 % of the way up (between the two levels, nearer the one before)
BETWEEN = r"""#!/bin/sh
n=$(cat n.txt)
runs=$(( $(cat "{counter}.$n" 2>/dev/null || echo 0) + 1 ))
echo "$runs" > "{counter}.$n"
awk -v n="$n" -v runs="$runs" 'BEGIN {{
  split("-1.26 -0.63 0 0.63 1.26", d, " ")
  level = (n >= 57) ? 106 : 100
  if (n == 57 && runs <= 5) level = 102.7
  level *= 1 + 0.003 * ((n * 37) % 7 - 3) / 3
  printf "VALUE %.4f ms latency\n", level * (1 + 0.025 * d[(runs - 1) % 5 + 1])
}}'
"""


def _between_project(tmp_path: Path) -> tuple[Path, list[str]]:
    """A history of 80 commits measured by :data:`BETWEEN`, 5 repetitions each."""
    ids = numbered_repo(tmp_path / "repo", 80)
    bench = tmp_path / "bench.sh"
    bench.write_text(BETWEEN.format(counter=tmp_path / "runs"), encoding="utf-8")
    path = tmp_path / "perfwalk.toml"
    unloaded = "[analysis]\nsuspect_load = false\n"
    text = walk_config(tmp_path / "repo", f"sh {bench}", repetitions=5, extra=unloaded)
    path.write_text(text, "utf-8")
    return path, ids


def _placed(config: Config, ids: list[str]) -> list[tuple[int, int]]:
    """The changes of the store's series, each as its two commits' places."""
    with Store.open(config.store.url) as store:
        events = find_changes(store, config)
    return [(ids.index(e.before.sha), ids.index(e.after.sha)) for e in events]


def test_a_checkout_read_between_two_levels_is_measured_more_and_perfwalk_changes_reads_it(
    tmp_path: Path,
) -> None:
    # with its five planned runs, commit 57 reads nearer the level before the step, and
    # the step is told one commit late (57 → 58); the walk measures it more, as its
    # own repetitions: perfwalk changes reads them and tells the step at its commit
    path, ids = _between_project(tmp_path)
    done = perfwalk("run", "-c", str(path), "--adaptive", "--budget", "30", timeout=600)
    assert done.returncode in (exits.OK, exits.FOUND), done.stderr
    told = perfwalk("changes", "-c", str(path), "--format", "json")
    changes = json.loads(told.stdout)["changes"]
    placed = [(ids.index(c["before"]["commit"]), ids.index(c["after"]["commit"])) for c in changes]
    assert placed == [(56, 57)], (placed, done.stdout)
    assert "more repetitions: the step of" in done.stdout, done.stdout
    config = load_config(path)
    with Store.open(config.store.url) as store:
        (series,) = store.list_series()
        rows = {ids.index(row.sha): row for row in store.checkouts(series.id)}
        counts = Counter(idx for idx, _rep in store.done_repetitions(series.id))
        status = series_status(store, series)
    assert {56, 57, 58} <= set(rows), sorted(rows)
    planned = rows[57].planned_repetitions
    assert planned is not None, done.stdout
    assert planned >= 10, (planned, done.stdout)
    assert counts[rows[57].idx] == planned
    assert all(
        row.planned_repetitions is None for at, row in rows.items() if at not in (56, 57, 58)
    )
    # the walk's own repetitions, none a re-measure; the plan counts them
    assert status.repetitions_again == 0
    assert status.repetitions_done == sum(counts.values())
    more = sum((row.planned_repetitions or 5) - 5 for row in rows.values())
    assert status.repetitions_total == 30 * 5 + more
    # its progress counted the repetitions planned beyond a checkout's in the total
    told = [
        (int(d), int(t)) for d, t in re.findall(r"repetitions (\d+)/(\d+), checkout", done.stderr)
    ]
    assert min(t for _d, t in told) == 150, told
    assert max(t for _d, t in told) == status.repetitions_total, told
    assert all(d <= t for d, t in told), told
    assert told[-1][0] == sum(counts.values()), told  # each repetition counted once


def test_a_budget_of_two_measures_only_the_ends(tmp_path: Path) -> None:
    path, ids = _project(tmp_path, commits=40)
    result = run_series(load_config(path), RunOptions(budget=2))
    assert result.checkouts == 2
    with Store.open(load_config(path).store.url) as store:
        assert [row.sha for row in store.checkouts(result.series_id)] == [ids[0], ids[-1]]


def test_a_flat_history_spends_few_builds_beyond_the_coarse_pass(tmp_path: Path) -> None:
    path, _ids = _project(tmp_path, flat=True, commits=120)
    result = run_series(load_config(path), RunOptions(budget=40))
    assert result.checkouts <= coarse_count(40, 120) + 3


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--adaptive", "--budget", "0"], "argument --budget: expected 2 to"),
        (["--adaptive", "--budget", "1"], "argument --budget: expected 2 to"),
        (["--adaptive"], "--adaptive needs --budget N"),
        (["--budget", "10"], "--budget is the budget of an adaptive walk"),
        (["--adaptive", "--budget", "10", "--step", "commit"], "cannot be given with --step"),
        (["--adaptive", "--budget", "10", "--variants", "x"], "cannot be given with --variants"),
        (["--adaptive", "--budget", "10", "--from", "HEAD"], "--adaptive: the walk from HEAD"),
        (["--adaptive", "--budget", "10", "--dry-run"], "cannot be given with --dry-run"),
    ],
)
def test_bad_options_are_refused_naming_the_option(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    path, _ids = _project(tmp_path, commits=3)
    done = perfwalk("run", "-c", str(path), *argv)
    assert done.returncode == exits.USER, done.stdout + done.stderr
    assert said in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "runs").exists()  # nothing measured


def test_a_branch_of_one_commit_is_refused(tmp_path: Path) -> None:
    path, _ids = _project(tmp_path, commits=1)
    done = perfwalk("run", "-c", str(path), "--adaptive", "--budget", "10")
    assert done.returncode == exits.USER, done.stderr
    assert "--adaptive: the walk from the first commit to " in done.stderr
    assert "has one commit" in done.stderr


def test_an_interrupted_adaptive_walk_resumes_where_it_stopped(tmp_path: Path) -> None:
    path, ids = _project(tmp_path, commits=80)
    config = load_config(path)
    done: list[str] = []

    def stop_after_five(step: Progress) -> None:
        if step.kind == CHECKOUT_DONE:
            done.append(step.commit)
            if len(done) == 5:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_series(config, RunOptions(budget=20), stop_after_five)
    with Store.open(config.store.url) as store:
        (series,) = store.list_series()
        assert series.state == "interrupted"
        assert len(store.checkouts(series.id)) == 5
    result = run_series(config, RunOptions(resume=True))
    assert result.series_id == series.id
    assert result.resumed
    with Store.open(config.store.url) as store:
        shas = [row.sha for row in store.checkouts(series.id)]
        assert store.series(series.id).state == "finished"
        assert store.series(series.id).step == "adaptive"
    assert 5 < len(shas) <= 20
    assert shas[:1] + shas[-1:] == [ids[0], ids[-1]]
    assert shas.index(ids[57]) == shas.index(ids[56]) + 1  # the step, to its commit
    assert sum(1 for sha in shas if sha in done) == 5  # measured once each


def test_an_adaptive_walk_interrupted_in_the_more_repetitions_of_a_checkout_resumes_them(
    tmp_path: Path,
) -> None:
    path, ids = _between_project(tmp_path)
    config = load_config(path)

    def stop_in_the_more(step: Progress) -> None:
        if step.commit == ids[57] and step.message == "repetition 8":
            raise KeyboardInterrupt  # its 8th stored: 5 planned, 3 of those planned beyond

    with pytest.raises(KeyboardInterrupt):
        run_series(config, RunOptions(budget=30), stop_in_the_more)
    with Store.open(config.store.url) as store:
        (series,) = store.list_series()
        (row,) = [r for r in store.checkouts(series.id) if r.sha == ids[57]]
        planned = row.planned_repetitions
        assert planned is not None
        assert planned >= 10
        assert sum(1 for idx, _rep in store.done_repetitions(series.id) if idx == row.idx) == 8
    result = run_series(config, RunOptions(resume=True))
    assert result.resumed
    with Store.open(config.store.url) as store:
        (row,) = [r for r in store.checkouts(series.id) if r.sha == ids[57]]
        reps = sorted(rep for idx, rep in store.done_repetitions(series.id) if idx == row.idx)
        assert store.series(series.id).state == "finished"
    # the repetitions planned before are measured first, numbered on (none twice)
    assert (row.planned_repetitions or 0) >= planned
    assert reps == list(range(row.planned_repetitions or 0))
    assert _placed(config, ids) == [(56, 57)]
