"""Named walks: `perfwalk run --walk NAME` continues one series with what landed on its
branch since its last checkout, and measures nothing when nothing did."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.errors import UsageError
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory, git, git_date
from tests.services.conftest import MakeConfig

#: The walk every day of the known-values history from its commit 24 (2024-01-07).
NIGHTLY = """
[[walk]]
name = "nightly"
from = "2024-01-07"
step = "1day"
repetitions = 2
branch = "main"
"""


def _add_commits(repo: Path, count: int, value: int) -> list[str]:
    """``count`` more commits on main at noon of the days after its last, each
    printing ``value``; their ids."""
    last = datetime.fromisoformat(git(repo, "log", "-1", "--format=%cI", "main"))
    noon = datetime.combine(last.date(), time(12), tzinfo=UTC)
    ids = []
    for n in range(count):
        when = git_date(noon + timedelta(days=n + 1))
        (repo / "value.txt").write_text(f"{value}\n", encoding="utf-8")
        (repo / "commit.txt").write_text(f"new {n}\n", encoding="utf-8")
        git(repo, "add", "-A")
        env = {
            "GIT_AUTHOR_NAME": "Ada Lovelace",
            "GIT_AUTHOR_EMAIL": "ada@example.org",
            "GIT_AUTHOR_DATE": when,
            "GIT_COMMITTER_DATE": when,
        }
        git(repo, "commit", "-q", "-m", f"New commit {n}", env=env)
        ids.append(git(repo, "rev-parse", "HEAD"))
    return ids


def _measured(store: Store, series_id: int) -> list[tuple[int, str, int]]:
    """(checkout index, commit, repetition) of every stored repetition."""
    return sorted(
        (checkout.idx, checkout.sha, repetition.idx)
        for checkout in store.checkouts(series_id)
        for repetition in store.repetitions(checkout.id)
    )


@pytest.mark.slow
def test_a_walk_continues_with_what_landed_and_then_measures_nothing(
    make_config: MakeConfig,
    known_values_repo_copy: KnownHistory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = make_config(extra=NIGHTLY)
    history = known_values_repo_copy
    args = ["run", "-c", str(config.path), "--walk", "nightly"]

    assert main(args) == 0
    out = capsys.readouterr().out
    assert "walk nightly: series 1 finished: 5 checkouts × 2 repetitions" in out
    with Store.open(config.store.url) as store:
        (series,) = store.list_series()
        assert (series.walk, series.from_spec) == ("nightly", "2024-01-07")
        first = _measured(store, series.id)
    # 2024-01-07 00:00 (commit 24), a day apart, then the tip (commit 39, 01-10 18:00)
    day = [history.first_parent[i] for i in (24, 28, 32, 36, 39)]
    assert first == [(idx, sha, rep) for idx, sha in enumerate(day) for rep in (0, 1)]

    new = _add_commits(history.path, 3, 130)  # 01-11, 01-12 and 01-13 at noon
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "walk nightly: series 1 continued with 3 new checkouts × 2 repetitions" in out
    with Store.open(config.store.url) as store:
        (series,) = store.list_series()  # the same series, no other
        second = _measured(store, series.id)
        assert (series.planned_checkouts, series.to_spec) == (8, new[-1])
        assert series.state == "finished"
        since = store.checkouts(series.id)[5]
    assert second[: len(first)] == first  # nothing measured again
    assert second[len(first) :] == [
        (idx, sha, rep) for idx, sha in enumerate(new, start=5) for rep in (0, 1)
    ]
    assert since.commit_count == 1  # the commits after the walk's last checkout (39)

    assert main(args) == 0
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert lines == [
        f"walk nightly: nothing new on main since {new[-1][:12]} (2024-01-13 12:00); "
        "series 1 is unchanged"
    ]
    with Store.open(config.store.url) as store:
        assert _measured(store, 1) == second


@pytest.mark.slow
def test_a_walk_that_never_ran_starts_at_its_from(
    make_config: MakeConfig, known_values_repo_copy: KnownHistory
) -> None:
    walks = NIGHTLY.replace('from = "2024-01-07"', 'from = "2024-01-09"') + (
        '\n[[walk]]\nname = "weekly"\nstep = "1week"\n'
    )
    config = make_config(extra=walks)
    result = run_series(config, RunOptions(walk="nightly"))
    assert (result.named is not None, result.checkouts, result.nothing_new) == (True, 3, False)
    with Store.open(config.store.url) as store:
        (series,) = store.list_series()
        commits = [c.sha for c in store.checkouts(series.id)]
        assert (series.walk, series.from_spec, series.repetitions) == ("nightly", "2024-01-09", 2)
    history = known_values_repo_copy
    assert commits == [history.first_parent[i] for i in (32, 36, 39)]
    # another walk of the same config has a series of its own, from [run] from
    other = run_series(config, RunOptions(walk="weekly"))
    assert other.series_id != series.id
    with Store.open(config.store.url) as store:
        assert store.series(other.series_id).walk == "weekly"
        assert store.checkouts(other.series_id)[0].sha == history.first_parent[0]


def test_an_unknown_walk_is_a_usage_error_listing_the_walks(make_config: MakeConfig) -> None:
    config = make_config(extra=NIGHTLY + '\n[[walk]]\nname = "weekly"\nstep = "1week"\n')
    with pytest.raises(UsageError) as raised:
        run_series(config, RunOptions(walk="nigthly"))
    assert "--walk nigthly: no walk of that name" in raised.value.message
    assert "nightly, weekly" in (raised.value.hint or "")
    bare = make_config()
    with pytest.raises(UsageError, match="it has no \\[\\[walk\\]\\]"):
        run_series(bare, RunOptions(walk="nightly"))


@pytest.mark.parametrize(
    ("options", "flag"),
    [
        (RunOptions(walk="nightly", from_="2024-01-01"), "--from"),
        (RunOptions(walk="nightly", to="HEAD"), "--to"),
        (RunOptions(walk="nightly", step="commit"), "--step"),
        (RunOptions(walk="nightly", resume=True), "--resume"),
    ],
)
def test_a_walk_refuses_explicit_ends(
    make_config: MakeConfig, options: RunOptions, flag: str
) -> None:
    config = make_config(extra=NIGHTLY)
    with pytest.raises(UsageError) as raised:
        run_series(config, options)
    assert f"{flag} cannot be given with it" in raised.value.message
    assert "walk[0]" in (raised.value.hint or "")
    with Store.open(config.store.url) as store:
        assert store.list_series() == []


def test_cli_walk_usage_error_exits_2(
    make_config: MakeConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_config(extra=NIGHTLY)
    code = main(["run", "-c", str(config.path), "--walk", "nightly", "--step", "commit"])
    assert code == 2
    err = capsys.readouterr().err
    assert "--step cannot be given with it" in err


def test_config_with_walks_loads(tmp_path: Path, make_config: MakeConfig) -> None:
    config = make_config(extra=NIGHTLY)
    (walk,) = config.walks
    assert (walk.name, walk.from_, walk.to, walk.step, walk.repetitions, walk.branch) == (
        "nightly",
        "2024-01-07",
        None,
        "1day",
        2,
        "main",
    )
    assert load_config(config.path).walks == config.walks


@pytest.mark.slow
def test_resume_of_an_interrupted_named_walk_continues_the_walk(
    make_config: MakeConfig, known_values_repo_copy: KnownHistory
) -> None:
    walks = NIGHTLY.replace('from = "2024-01-07"', 'from = "2024-01-10"')
    config = make_config(extra=walks)
    first = run_series(config, RunOptions(walk="nightly"))
    with Store.open(config.store.url) as store:
        store.set_series_state(first.series_id, "interrupted")
        before = _measured(store, first.series_id)
    new = _add_commits(known_values_repo_copy.path, 1, 100)
    resumed = run_series(config, RunOptions(resume=True))
    assert (resumed.series_id, resumed.new_checkouts, resumed.nothing_new) == (
        first.series_id,
        1,
        False,
    )
    with Store.open(config.store.url) as store:
        after = _measured(store, first.series_id)
        assert store.series(first.series_id).state == "finished"
    assert after == [*before, (len(before) // 2, new[0], 0), (len(before) // 2, new[0], 1)]
