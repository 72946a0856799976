"""create_project(): a deterministic history whose known events are where it says."""

from __future__ import annotations

import itertools
import json
import subprocess
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.config.load import load_config
from perfwalk.demo import DemoError, DemoProject, create_project, story
from perfwalk.demo.project import add_night, commit_date
from perfwalk.demo.story import CHANGES
from perfwalk.errors import UsageError
from perfwalk.parsers import value
from perfwalk.report.releases import resolve_releases
from tests.demo.conftest import export, git


def history(demo: DemoProject) -> list[tuple[str, datetime]]:
    """(id, committer date) of every commit, oldest first."""
    lines = git(demo, "log", "--reverse", "--format=%H %cI", "main").splitlines()
    return [(c, datetime.fromisoformat(d)) for c, d in (line.split() for line in lines)]


def head_at(line: list[tuple[str, datetime]], when: datetime) -> str | None:
    """The last commit at or before ``when`` (what a date walk checks out)."""
    heads = [commit for commit, date in line if date <= when]
    return heads[-1] if heads else None


def test_the_same_commits_on_every_run(demo: DemoProject, tmp_path: Path) -> None:
    again = create_project(tmp_path / "again")

    assert again.commits == demo.commits
    for name in ("perfwalk.toml", "known-changes.json", "quirks/old-build.patch"):
        assert (again.root / name).read_bytes() == (demo.root / name).read_bytes()


def test_a_long_history_by_several_people(demo: DemoProject) -> None:
    line = history(demo)
    authors = set(git(demo, "log", "--format=%an <%ae>", "main").splitlines())

    assert len(demo.commits) >= 120
    assert [commit for commit, _ in line] == list(demo.commits)
    assert all(a[1] < b[1] for a, b in itertools.pairwise(line))
    assert line[-1][1] - line[0][1] >= timedelta(weeks=5)
    assert len(authors) >= 3
    assert git(demo, "status", "--porcelain") == ""


def test_every_commit_changes_files_and_says_why(demo: DemoProject) -> None:
    for commit in demo.commits:
        files = git(demo, "show", "--format=", "--name-only", commit).split()
        assert files, f"{commit} changes nothing"
    bodies = [change.body for change in CHANGES if change.body]
    assert len(bodies) >= len(CHANGES) // 3


def test_one_message_is_hostile(demo: DemoProject) -> None:
    messages = git(demo, "log", "--format=%B", "main")

    for text in ("<script>alert(1)</script>", "$(touch /tmp/x)", '"', "'"):
        assert text in messages


def test_messages_name_the_commits_they_refer_to(demo: DemoProject) -> None:
    fix = demo.event("broken-build")
    assert fix.fixed_by is not None

    message = git(demo, "log", "-1", "--format=%B", fix.fixed_by)

    assert f"Fixes: {fix.commit[:12]}" in message


def test_events_lie_on_separate_days_inside_the_history(demo: DemoProject) -> None:
    first_day = commit_date(CHANGES[0]).date()
    last_day = commit_date(CHANGES[-1]).date()
    dates = dict(history(demo))
    quirk_fixed = dates[demo.quirk.until]
    days = [quirk_fixed.date()]
    for event in demo.events:
        assert dates[event.commit] == event.date
        days.append(event.date.date())
        if event.fixed_by is not None:
            days.append(dates[event.fixed_by].date())

    assert first_day < min(days)
    assert max(days) < last_day
    # The broken build and its fix are one pair: a day apart at most.
    events = sorted(set(days))
    pairs = [(a, b) for a, b in itertools.pairwise(events) if (b - a).days < 3]
    broken = demo.event("broken-build")
    assert broken.fixed_by is not None
    assert pairs == [(broken.date.date(), dates[broken.fixed_by].date())]
    assert 7 <= (quirk_fixed.date() - first_day).days < 14  # week 2


def test_known_changes_json_lists_the_events(demo: DemoProject) -> None:
    entries = json.loads(demo.known_changes.read_text(encoding="utf-8"))

    assert [e["direction"] for e in entries] == ["slower", "broken-build", "faster"]
    assert [e["commit"] for e in entries] == [event.commit for event in demo.events]
    for entry, event in zip(entries, demo.events, strict=True):
        assert entry["commit"] in demo.commits
        assert entry["size"] == event.size
        assert entry["test"] == event.test
        assert entry["metric"] == event.metric
    slower, broken, faster = entries
    assert slower["size"] >= 0.2
    assert faster["size"] <= -0.2
    assert slower["test"] == "checksum"
    assert slower["metric"] == "checksum"
    assert broken["fixed_by"] in demo.commits
    assert broken["broken"][0] == broken["commit"]
    start, end = demo.commits.index(broken["commit"]), demo.commits.index(broken["fixed_by"])
    assert broken["broken"] == list(demo.commits[start:end])


def test_the_config_loads_and_walks_the_whole_history(demo: DemoProject) -> None:
    config = load_config(demo.config)
    raw = tomllib.loads(demo.config.read_text(encoding="utf-8"))

    assert config.project.repo == demo.repo
    assert config.run.step == "1day"
    assert config.run.repetitions == 5
    assert config.build.steps == ("make -s",)
    assert [test.name for test in config.tests] == ["checksum"]
    assert set(config.tests[0].metrics) == {"checksum", "throughput"}
    (quirk,) = config.quirks
    assert (quirk.at, quirk.until) == (demo.quirk.first, demo.quirk.until)
    assert quirk.patch == demo.quirk.patch
    assert raw["run"]["from"] == "2026-01-06"


def test_the_releases_resolve_in_the_demos_repository(demo: DemoProject) -> None:
    config = load_config(demo.config)
    found = resolve_releases(config)
    assert found.warnings == ()
    assert [r.name for r in found.found] == ["1.0-rc", "1.0"]
    release = next(c for c in CHANGES if c.label == "release")
    assert found.found[1].commit == demo.commits[CHANGES.index(release)]  # its tag's
    assert found.found[0].at < found.found[1].at


def test_a_daily_walk_has_30_checkouts_and_one_broken(demo: DemoProject) -> None:
    raw = tomllib.loads(demo.config.read_text(encoding="utf-8"))
    line = history(demo)
    start = datetime.fromisoformat(raw["run"]["from"]).replace(tzinfo=UTC)
    end = datetime.fromisoformat(raw["run"]["to"]).replace(tzinfo=UTC)
    dates = [start + timedelta(days=k) for k in range((end - start).days + 1)]
    walk = list(dict.fromkeys(head for head in (head_at(line, d) for d in dates) if head))
    broken = set(demo.event("broken-build").broken)

    assert len(walk) >= 30
    assert walk[-1] == demo.commits[-1]
    assert sum(commit in broken for commit in walk) == 1
    assert sum(commit in demo.quirk.commits for commit in walk) >= 3
    for direction in ("slower", "faster"):
        changed = demo.commits.index(demo.event(direction).commit)
        assert any(demo.commits.index(c) < changed for c in walk)
        assert any(demo.commits.index(c) >= changed for c in walk)


def test_the_quirk_covers_the_first_commits(demo: DemoProject) -> None:
    quirk = demo.quirk
    makefiles = {git(demo, "rev-parse", f"{commit}:Makefile") for commit in quirk.commits}

    assert quirk.first == demo.commits[0]
    assert quirk.commits == demo.commits[: demo.commits.index(quirk.until)]
    assert len(makefiles) == 1  # so the patch applies to each of them
    assert quirk.patch == demo.root / "quirks" / "old-build.patch"
    assert "-Werror" in quirk.patch.read_text(encoding="utf-8")


def test_an_existing_project_is_not_overwritten(demo: DemoProject) -> None:
    with pytest.raises(UsageError, match="already exists"):
        create_project(demo.root)


def test_an_unknown_event_is_a_key_error(demo: DemoProject) -> None:
    with pytest.raises(KeyError):
        demo.event("sideways")  # type: ignore[arg-type]


def test_a_story_that_does_not_apply_stops_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = story.Change(1, "10:00", "ada", "edit", "", (story.Edit("README.md", "nowhere", "x"),))
    monkeypatch.setattr(story, "CHANGES", (*CHANGES[:1], wrong))

    with pytest.raises(ValueError, match=r"README\.md: expected one 'nowhere', found 0"):
        create_project(tmp_path)


def test_a_failing_git_is_a_demo_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("perfwalk.demo.project.BRANCH", "bad..name")

    with pytest.raises(DemoError, match="git"):
        create_project(tmp_path)


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoProject, DemoProject]:
    """A demo project before and after its extra night."""
    before = create_project(tmp_path_factory.mktemp("night"))
    after, _event = add_night(before)
    return before, after


def test_the_night_lands_on_the_history_with_its_slowdown_known(
    night: tuple[DemoProject, DemoProject], tmp_path: Path
) -> None:
    before, after = night
    new = after.commits[len(before.commits) :]
    assert after.commits[: len(before.commits)] == before.commits
    assert len(new) == len(story.NIGHT)
    assert [c for c, _ in history(after)] == list(after.commits)  # one line, on the old tip
    assert git(after, "rev-parse", "HEAD").strip() == after.commits[-1]  # checked out
    event = after.events[-1]
    assert (event.direction, event.commit) == ("slower", new[1])
    assert git(after, "log", "-1", "--format=%s", event.commit).strip() == (
        "cksum: count every byte value"
    )
    assert min(commit_date(c) for c in story.NIGHT) > max(commit_date(c) for c in CHANGES)
    entries = json.loads(after.known_changes.read_text(encoding="utf-8"))
    assert [e["commit"] for e in entries] == [e.commit for e in after.events]
    again, _ = add_night(create_project(tmp_path / "again"))
    assert again.commits == after.commits  # the same ids on every run


@pytest.mark.slow
def test_the_night_makes_the_benchmark_slower(
    night: tuple[DemoProject, DemoProject], tmp_path: Path
) -> None:
    """Best of 5 runs on each side, in turns, as for the six weeks' known changes."""
    _before, after = night
    event = after.events[-1]
    sides = (after.commits[after.commits.index(event.commit) - 1], event.commit)
    folders = {}
    for commit in sides:
        folders[commit] = tmp_path / commit[:12]
        export(after, commit, folders[commit])
        made = subprocess.run(
            ["make", "-s"], cwd=folders[commit], capture_output=True, text=True, check=False
        )
        assert made.returncode == 0, made.stderr
    times: dict[str, list[float]] = {commit: [] for commit in sides}
    for _ in range(5):
        for commit in sides:
            run = subprocess.run(
                ["./bench"], cwd=folders[commit], capture_output=True, text=True, check=True
            )
            found = {v.name: v.value for v in value.parse(run.stdout)}
            times[commit].append(found["checksum"])
    ratio = min(times[sides[1]]) / min(times[sides[0]])
    assert 1.15 < ratio < 2.0, times
