"""Profiles with the real perf: a walk of a C project under ``perf record`` keeps one
uncounted profiled run per checkout, and a drill's differential profile names the
function a commit made slower first. Skipped where perf cannot sample. The program
times its CPU time, not the wall's: its drills and tries decide the same beside other
tests of the run (tests/fixtures/profiled_repo.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.profiled_repo import (
    BUILD,
    COMMITS,
    HOT,
    SLOWER_AT,
    perf_can_record,
    profiled_history,
)
from tests.services.walks import finished

WHY_NOT = perf_can_record()
needs_perf = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")

CONFIG = """\
[project]
repo = {repo}

[build]
steps = [{build}]

[run]
step = "commit"
repetitions = 2

[[test]]
name = "crc"
command = "./prog"
parser = "value"
timeout = 60

[test.profile]
{profile}
"""


#: samples enough to rank the functions of a run of a few hundredths of a second
FAST = "frequency = 20000"


def _config(tmp_path: Path, repo: Path, profile: str = f'tool = "perf"\n{FAST}') -> Config:
    path = tmp_path / "perfwalk.toml"
    text = CONFIG.format(repo=json.dumps(str(repo)), build=json.dumps(BUILD), profile=profile)
    path.write_text(text, encoding="utf-8")
    return load_config(path)


@pytest.fixture(scope="module")
def profiled_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    path = tmp_path_factory.mktemp("profiled") / "repo"
    return path, profiled_history(path)


@needs_perf
def test_a_walk_keeps_one_uncounted_profile_per_checkout(
    tmp_path: Path, profiled_repo: tuple[Path, list[str]]
) -> None:
    repo, _ids = profiled_repo
    config = _config(tmp_path, repo)
    result = run_series(config, RunOptions())
    assert result.worst is Status.PASS
    with Store.open(config.store.url) as store:
        profiles = store.profiles.in_series(result.series_id)
        assert [p.checkout_idx for p in profiles] == list(range(COMMITS))
        assert all(p.extra and p.status is Status.PASS for p in profiles)
        assert all(p.host == "local" and p.event == "cpu-clock" for p in profiles)
        for profile in profiles:
            assert profile.values[0][0] == "cpu"  # the extra run's value, kept here
            hot = sum(n for stack, n in profile.stacks.items() if stack.endswith(f";{HOT}"))
            assert hot > 0, profile.stacks
        # the counted repetitions only: 2 per checkout, no third
        assert sorted(store.done_repetitions(result.series_id)) == [
            (index, rep) for index in range(COMMITS) for rep in range(2)
        ]
        values = store.values(result.series_id)
        assert len(values) == 2 * COMMITS


def test_a_missing_profiler_keeps_the_values(
    tmp_path: Path, profiled_repo: tuple[Path, list[str]]
) -> None:
    repo, _ids = profiled_repo
    profile = 'tool = "command"\ncommand = "no-such-profiler-here -o {profile} --"'
    config = _config(tmp_path, repo, profile)
    result = run_series(config, RunOptions(to=_ids_at(profiled_repo, 1)))
    assert result.worst is Status.PASS
    with Store.open(config.store.url) as store:
        profiles = store.profiles.in_series(result.series_id)
        assert profiles
        for profile in profiles:
            assert profile.status is Status.XFAIL
            assert "no-such-profiler-here" in profile.message
            assert "host local" in profile.message
            assert profile.values[0][0] == "cpu"  # the run went on without it
        assert len(store.values(result.series_id)) == 2 * len(profiles)


def store_profiles(config: Config) -> list[object]:
    with Store.open(config.store.url) as store:
        return [p for s in store.list_series() for p in store.profiles.in_series(s.id)]


def _ids_at(repo: tuple[Path, list[str]], position: int) -> str:
    return repo[1][position]


@pytest.mark.slow
@needs_perf
def test_a_drill_shows_the_slower_function_first(
    tmp_path: Path, profiled_repo: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    """The walk measures both ends only; the drill finds the culprit, profiles it and
    its parent (the test has [test.profile]), and its table starts with the function
    the culprit made slower."""
    repo, ids = profiled_repo
    config = _config(tmp_path, repo)
    run_series(config, RunOptions(step=f"commit/{COMMITS - 1}"))
    args = ["--between", ids[0], ids[-1], "--test", "crc", "--value", "cpu"]
    code = main(["drill", *args, "-c", str(config.path), "--format", "json"])
    assert code == 0
    (answer,) = json.loads(capsys.readouterr().out)["drills"]
    assert (answer["verdict"], answer["commit"]) == ("culprit", ids[SLOWER_AT])
    profile = answer["profile"]
    first = profile["functions"][0]
    assert first["name"] == HOT, profile["functions"][:4]
    assert first["self_delta"] > 0
    assert len(profile["functions"]) <= 20
    with Store.open(config.store.url) as store:
        before = store.profiles.get(profile["before"]["profile"])
        after = store.profiles.get(profile["after"]["profile"])
        assert before is not None
        assert after is not None
        shas = {c.idx: c.sha for c in store.checkouts(after.series_id)}
        assert shas[after.checkout_idx] == ids[SLOWER_AT]
        assert shas[before.checkout_idx] == ids[SLOWER_AT - 1]
        # the drill's own repetitions never include the profiled runs
        drill_values = store.values(answer["series"])
        assert all(v.name == "cpu" for v in drill_values)


@pytest.mark.slow
@needs_perf
def test_the_drill_table_in_text(
    tmp_path: Path, profiled_repo: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    """A walk without profiles, every commit between the culprit's parent and the culprit
    measured; ``drill --profile`` profiles the culprit and its parent and prints the
    table."""
    repo, ids = profiled_repo
    config = _config(tmp_path, repo, profile=FAST)  # no tool: the walk profiles nothing
    low, high = ids[SLOWER_AT - 1], ids[SLOWER_AT]
    run_series(config, RunOptions(from_=low, to=high))
    assert not store_profiles(config)
    args = ["--between", low, high, "--test", "crc", "--value", "cpu", "--profile"]
    code = main(["drill", *args, "-c", str(config.path)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert f"CULPRIT {high[:12]}" in out
    assert "differential profile of crc" in out
    table = out[out.index("self before") :].splitlines()
    assert table[1].rstrip().endswith(HOT), out


@needs_perf
def test_every_repetition_profiled(tmp_path: Path, profiled_repo: tuple[Path, list[str]]) -> None:
    repo, ids = profiled_repo
    config = _config(tmp_path, repo, 'tool = "perf"\nrepetitions = "all"\nfrequency = 1999')
    result = run_series(config, RunOptions(from_=ids[0], to=ids[0]))
    assert result.worst is Status.PASS
    with Store.open(config.store.url) as store:
        profiles = store.profiles.in_series(result.series_id)
        assert [p.repetition for p in profiles] == [0, 1]
        assert all(p.status is Status.PASS and p.stacks for p in profiles)
        assert all(p.values == () for p in profiles)  # counted: their values are the test's
        assert len(store.values(result.series_id)) == 2


@needs_perf
def test_a_try_with_profile_draws_b_against_a(
    tmp_path: Path, profiled_repo: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    """``perfwalk try --profile`` of the slower commit against its parent (a test without
    [test.profile]): once decided, one profiled run a side; the try's page shows B's
    profile against A's, the slower function first, and the differential's data."""
    repo, ids = profiled_repo
    config = _config(tmp_path, repo, profile=FAST)
    base, head = ids[SLOWER_AT - 1], ids[SLOWER_AT]
    argv = ["try", base, head, "--profile", "--max-repetitions", "6", "-c", str(config.path)]
    assert main(argv) == 1  # worse
    assert "profiling A: crc" in capsys.readouterr().out
    site = tmp_path / "site"
    assert main(["report", "-c", str(config.path), "--out", str(site)]) == 0
    with Store.open(config.store.url) as store:
        [series] = store.list_series()
        sides = {row.idx: row for row in store.checkouts(series.id)}
        profiles = {p.checkout_idx: p for p in store.profiles.in_series(series.id)}
    assert sorted(profiles) == [0, 1]
    assert all(p.extra and p.status is Status.PASS for p in profiles.values())
    assert sides[1].sha == head
    page = (site / f"series-{series.id}.html").read_text(encoding="utf-8")
    assert "<h2>Profile</h2>" in page
    first = page.split('<table class="profile-changes">', 1)[1]
    assert f"<code>{HOT}</code>" in first.split("</tr>", 2)[1]
    assert list((site / f"series-{series.id}" / "data").glob("profile-d*.js"))


@pytest.mark.slow
@needs_perf
def test_drill_profile_of_a_change_drilled_before_profiles_its_culprit(
    tmp_path: Path, profiled_repo: tuple[Path, list[str]]
) -> None:
    """A change drilled without --profile, then ``drill --profile`` of it: not drilled
    again, its culprit and parent profiled, the profile kept in the drill's answer; a
    drill without a culprit says why it has no profile and what to run."""
    repo, ids = profiled_repo
    config = _config(tmp_path, repo, profile=FAST)  # no tool: nothing profiled by itself
    run_series(config, RunOptions())
    cfg = str(config.path)
    low, high = ids[SLOWER_AT - 1], ids[SLOWER_AT]
    between = ["--between", low, high, "--test", "crc", "--value", "cpu"]
    code, out, err = finished("drill", *between, "-c", cfg)
    assert code == 0, out + err
    assert f"CULPRIT {high[:12]}" in out
    assert "differential profile" not in out
    assert not store_profiles(config)

    code, out, err = finished("drill", *between, "--profile", "-c", cfg)
    assert code == 0, out + err
    assert "drilled before, series" in out
    assert f"{high[:12]}: a profiled run (perf)" in out
    assert f"{low[:12]}: a profiled run (perf)" in out
    assert "differential profile of crc" in out
    table = out[out.index("self before") :].splitlines()
    assert table[1].rstrip().endswith(HOT), out
    assert len(store_profiles(config)) == 2
    # kept: shown again without profiling anything
    code, out, err = finished("drill", *between, "--profile", "-c", cfg)
    assert code == 0, out + err
    assert "a profiled run" not in out
    assert out[out.index("self before") :].splitlines()[1].rstrip().endswith(HOT)
    assert len(store_profiles(config)) == 2

    same = ["--between", ids[0], ids[1], "--test", "crc", "--value", "cpu"]
    # no change there: a drill that would rule one out takes 60 values a side; one
    # stopped by its budget (undecided) names no culprit as well
    finished("drill", *same, "--max-repetitions", "6", "-c", cfg)
    code, out, err = finished("drill", *same, "--profile", "-c", cfg)
    assert "drilled before, series" in out, out + err
    assert "no differential profile: drill " in out
    assert "named no culprit (" in out
    again = f"--between {ids[0][:12]} {ids[1][:12]} --test crc --value cpu --again --profile"
    assert f"`perfwalk drill {again}` drills it again" in out


@pytest.mark.slow
@needs_perf
def test_drill_profile_of_a_drilled_change_compares_its_stored_profiles_with_their_noise(
    tmp_path: Path, profiled_repo: tuple[Path, list[str]]
) -> None:
    """A walk that profiled every checkout, a drill of its change, then ``drill
    --profile`` of that change: not drilled again, nothing profiled again, the stored
    profiles compared with the noise of their counts said and a warning that a side
    has fewer samples than min_samples, naming the setting that gives more."""
    repo, ids = profiled_repo
    config = _config(tmp_path, repo, 'tool = "perf"\nfrequency = 999\nmin_samples = 10000')
    run_series(config, RunOptions())
    cfg = str(config.path)
    profiled = len(store_profiles(config))
    assert profiled == COMMITS
    between = ["--between", ids[SLOWER_AT - 1], ids[SLOWER_AT], "--test", "crc"]
    code, out, err = finished("drill", *between, "--value", "cpu", "-c", cfg)
    assert code == 0, out + err
    assert f"CULPRIT {ids[SLOWER_AT][:12]}" in out

    code, out, err = finished("drill", *between, "--value", "cpu", "--profile", "-c", cfg)
    assert code == 0, out + err
    assert "drilled before, series" in out
    assert "a profiled run" not in out
    assert "differential profile of crc" in out
    warning = next(line for line in out.splitlines() if "warning:" in line)
    assert "few samples:" in warning
    assert "fewer than the 10000 of [test.profile] min_samples" in warning
    assert "raise [test.profile] frequency" in warning
    assert re.search(r"\n  \d+ vs \d+ samples: ±1 sample = \d+\.\d pp", out), out
    assert len(store_profiles(config)) == profiled
    with Store.open(config.store.url) as store:
        assert [s.kind for s in store.list_series()].count("drill") == 1
