"""The re-measure loop's bounds: a budget of repetitions is never exceeded (a change
it stops is measured on by the next walk, from where it stopped), and a change a
re-measure decided is never measured again, by a walk or a watch cycle.

Real walks of a real repository whose benchmark prints seeded values
(tests/fixtures/noisy_repo.py): the same history is decided the same way on any
machine; the machine's load is not looked at (``confirm_wait = 0``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.orchestrate.confirm.remeasure_targets import AROUND
from perfwalk.store import Store
from tests.fixtures.noisy_repo import CONFIG, add_noisy_commits, noisy_history

HELD, UNDECIDED = "held", "undecided"  # as the store keeps them
STEP = 6  # the commit that makes the benchmark 20 % slower
# the checkouts a re-measure measures: AROUND out from the change's own on each side
BEFORE, AFTER = STEP - 1 - AROUND, STEP + AROUND
NAMED = '\n[[walk]]\nname = "nightly"\nfrom = "{first}"\n'


def _project(tmp_path: Path, run: str = "", extra: str = "") -> Config:
    ids = noisy_history(tmp_path / "repo", commits=12, step_at=STEP, size=20, salt=5)
    text = CONFIG.format(repo=tmp_path / "repo").replace(
        "confirm_wait = 0", f"confirm_wait = 0\n{run}"
    )
    path = tmp_path / "perfwalk.toml"
    path.write_text(text + (NAMED + extra).format(first=ids[0]), encoding="utf-8")
    return load_config(path)


def _again(config: Config) -> dict[int, dict[int, list[int]]]:
    """Per walk and checkout, the repetitions beyond the walk's three: those measured
    again."""
    found: dict[int, dict[int, list[int]]] = {}
    with Store.open(config.store.url) as store:
        for series in store.list_series():
            for checkout in store.checkouts(series.id):
                again = [r.idx for r in store.repetitions(checkout.id) if r.idx >= 3]
                if again and series.kind == "walk":
                    found.setdefault(series.id, {})[checkout.idx] = again
    return found


def test_the_budget_bounds_the_repetitions_and_the_next_walk_measures_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 5 repetitions: two pairs, not the three the first look needs
    config = _project(tmp_path, "confirm = true\nconfirm_repetitions = 5")
    walk = ["run", "--walk", "nightly", "-c", str(config.path)]

    main(walk)

    out = capsys.readouterr().out
    print(out, file=sys.stderr)  # shown when it fails
    assert f"re-measure of 1:{STEP}: undecided yet after 2 + 2 repetitions, interleaved" in out
    assert "the budget ([run] confirm_repetitions = 5, confirm_seconds = 0) is spent" in out
    assert out.splitlines()[-2].endswith(  # the last: what the walk found
        "(the budget is spent: [run] confirm_repetitions = 5, confirm_seconds = 0); "
        "see `perfwalk changes`"
    )
    assert _again(config) == {1: {BEFORE: [3, 4], AFTER: [3, 4]}}  # 4 of 5: never more
    with Store.open(config.store.url) as store:
        (row,) = store.confirmations.of_series(1).values()
    assert (row.outcome, row.final, len(row.rounds)) == (UNDECIDED, False, 4)

    main(walk)  # nothing new: it measures on from where the budget stopped it

    out = capsys.readouterr().out
    print(out, file=sys.stderr)  # shown when it fails
    assert "nothing new" in out
    assert f"re-measure of 1:{STEP}: held after 3 + 3 repetitions, interleaved" in out
    assert _again(config) == {1: {BEFORE: [3, 4, 5], AFTER: [3, 4, 5]}}  # one pair more
    with Store.open(config.store.url) as store:
        (row,) = store.confirmations.of_series(1).values()
    assert (row.outcome, row.final, len(row.rounds)) == (HELD, True, 6)
    sides = ["before", "after", "after", "before", "before", "after"]
    assert [r["side"] for r in row.rounds] == sides


def test_a_watch_cycles_budget_bounds_the_repetitions_of_all_its_walks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # two walks of the same line, one after the other (they share the host), one budget
    second = NAMED.replace("nightly", "second")
    extra = f'{second}\n[watch]\nsite = "site"\ndrill_builds = 0\nconfirm_repetitions = 3\n'
    config = _project(tmp_path, extra=extra)

    main(["watch", "--once", "-c", str(config.path)])

    out = capsys.readouterr().out
    print(out, file=sys.stderr)  # shown when it fails
    assert f"walk nightly: re-measure of 1:{STEP}: undecided yet after 1 + 1 repetitions" in out
    assert "walk second: 1 change(s) left for the next cycle: the re-measures' budget" in out
    # 2 of 3: a pair at a time, the first walk's change; the second's left for later
    assert _again(config) == {1: {BEFORE: [3], AFTER: [3]}}


def test_a_decided_change_is_never_measured_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = '\n[watch]\nsite = "site"\ndrill_builds = 0\n'
    config = _project(tmp_path, "confirm = true", extra)
    watch = ["watch", "--once", "-c", str(config.path)]

    main(watch)  # the walk, then its change measured again by default: decided

    out = capsys.readouterr().out
    print(out, file=sys.stderr)  # shown when it fails
    assert f"walk nightly: re-measure of 1:{STEP}: held after 3 + 3 repetitions" in out
    measured = _again(config)
    assert measured == {1: {BEFORE: [3, 4, 5], AFTER: [3, 4, 5]}}

    # more commits at the new level; then nothing new at all
    add_noisy_commits(tmp_path / "repo", 12, lambda _i: 120, count=3, slower_at=-1)
    for _cycle in range(2):
        main(watch)
        out = capsys.readouterr().out
        print(out, file=sys.stderr)  # shown when it fails
        assert "re-measure of" not in out
        assert _again(config) == measured
    with Store.open(config.store.url) as store:
        (row,) = store.confirmations.of_series(1).values()
    assert (row.outcome, row.final, len(row.rounds)) == (HELD, True, 6)
    assert main(["run", "--walk", "nightly", "-c", str(config.path)]) == 0
    assert "re-measure of" not in capsys.readouterr().out
    assert _again(config) == measured


def _too_noisy(tmp_path: Path, size: float) -> Path:
    """A walk of 8 checkouts × 3 repetitions too noisy to judge (sd 1 around 10 ms,
    seeded): its metric is undecided, its most likely step between checkouts 3 and 4
    (where the step of ``size`` ms is, when there is one)."""
    ids = noisy_history(tmp_path / "repo", commits=8, step_at=4, size=size, salt=2, base=10)
    path = tmp_path / "perfwalk.toml"
    text = CONFIG.format(repo=tmp_path / "repo") + NAMED.format(first=ids[0])
    path.write_text(text, encoding="utf-8")
    return path


def _confirm(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("confirm_wait = 0", "confirm_wait = 0\nconfirm = true"))


def test_a_metric_too_noisy_to_judge_has_its_most_likely_step_measured_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _too_noisy(tmp_path, size=3)  # +30 %
    walk = ["run", "--walk", "nightly", "-c", str(path)]
    main(walk)
    assert main(["changes", "-c", str(path)]) == 4  # undecided: the walk could not see it
    out = capsys.readouterr().out
    print(out, file=sys.stderr)  # shown when it fails
    assert "undecided: too noisy to see changes below" in out
    assert "most likely step: between checkout 3 and 4, +31.9 %" in out

    _confirm(path)
    main(walk)  # nothing new: the re-measure alone

    out = capsys.readouterr().out
    print(out, file=sys.stderr)  # shown when it fails
    assert (
        "re-measure of 1:4 (the most likely step of latency.latency, +31.9 %, below the "
        "walk's bar): held after 8 + 8 repetitions"
    ) in out
    # nothing else says it is there: decided at 99.9 %, not at [try] confidence (95 %)
    assert "at 99.9 % after 8 + 8 repetitions" in out
    assert main(["changes", "-c", str(path)]) == 1  # a regression, confirmed
    out = capsys.readouterr().out
    print(out, file=sys.stderr)  # shown when it fails
    assert "REGRESSION 1:4 (confirmed)" in out
    assert (
        "confirmed: not detected in walk 1: its most likely step below the bar (61% of a "
        "change it could see there)"
    ) in out
    assert "confirmed by a re-measure (+25.1 %, 8 + 8 repetitions): it held" in out
    assert "undecided" not in out
    main(walk)  # decided: never measured again
    assert "re-measure of" not in capsys.readouterr().out


def test_a_most_likely_step_that_does_not_hold_leaves_its_metric_undecided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _too_noisy(tmp_path, size=0)  # no step at all
    _confirm(path)
    main(["run", "--walk", "nightly", "-c", str(path)])

    out = capsys.readouterr().out
    print(out, file=sys.stderr)  # shown when it fails
    assert "re-measure of 1:3 (the most likely step of latency.latency" in out
    assert out.splitlines()[-2] == (  # the last: what the walk found
        "confirm: 1 most likely step below the bar measured again, no change held there "
        "(undecided metrics stay undecided)"
    )
    assert main(["changes", "-c", str(path)]) == 4  # never "no changes found"
    out = capsys.readouterr().out
    print(out, file=sys.stderr)  # shown when it fails
    assert "its most likely step measured again: undecided after 10 + 10 repetitions" in out
    assert "no changes" not in out
    assert main(["changes", "--format", "json", "-c", str(path)]) == 4
    (floor,) = json.loads(capsys.readouterr().out)["floors"]
    assert floor["likely_step_again"] == "undecided after 10 + 10 repetitions"
    assert floor["likely_step"]["after"] == 3
