"""Repo: reading a real repository (the known-values fixture) through git."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.errors import GitError, UsageError
from perfwalk.git.repo import Repo
from tests.fixtures.synthetic_repo import (
    HOSTILE_AUTHOR,
    HOSTILE_FILE,
    HOSTILE_SUBJECT,
    KNOWN_BROKEN_AT,
    KNOWN_COMMITS,
    KNOWN_MERGE_AT,
    KNOWN_START,
    CommitSpec,
    KnownHistory,
    git,
    make_repo,
)


@pytest.fixture
def repo(known_values_repo: KnownHistory) -> Repo:
    return Repo(known_values_repo.path)


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="does not exist") as caught:
        Repo(tmp_path / "nowhere")
    assert str(tmp_path / "nowhere") in str(caught.value)
    assert caught.value.hint


def test_a_file_is_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(GitError, match="not a directory"):
        Repo(tmp_path / "file")


def test_not_a_git_repository(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="is not a git repository") as caught:
        Repo(tmp_path)
    assert str(tmp_path) in str(caught.value)
    assert caught.value.hint is not None
    assert "clone" in caught.value.hint


def test_a_subdirectory_names_the_top(known_values_repo: KnownHistory) -> None:
    with pytest.raises(GitError, match="not its top") as caught:
        Repo(known_values_repo.path / "notes")
    assert str(known_values_repo.path) in (caught.value.hint or "")


def test_bare_repository(known_values_repo: KnownHistory, tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(known_values_repo.path), str(bare))
    repo = Repo(bare)
    assert repo.bare
    assert [c for c, _ in repo.first_parent("main")] == list(known_values_repo.first_parent)


def test_empty_repository(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    repo = Repo(tmp_path)
    with pytest.raises(GitError, match="has no commits"):
        repo.first_parent()


def test_first_parent_skips_the_side_branch(repo: Repo, known_values_repo: KnownHistory) -> None:
    history = repo.first_parent()
    assert len(history) == KNOWN_COMMITS
    assert [commit for commit, _ in history] == list(known_values_repo.first_parent)
    assert [date for _, date in history] == list(known_values_repo.dates)
    assert not set(known_values_repo.side) & {commit for commit, _ in history}
    assert history[0].date == KNOWN_START
    assert history[0].date.tzinfo is not None


def test_first_parent_of_another_branch(repo: Repo, known_values_repo: KnownHistory) -> None:
    history = repo.first_parent("side")
    assert [c for c, _ in history][-2:] == list(known_values_repo.side)
    assert len(history) == 28 + 2


def test_resolve(repo: Repo, known_values_repo: KnownHistory) -> None:
    tip = known_values_repo.first_parent[-1]
    assert repo.resolve("HEAD") == tip
    assert repo.resolve("main") == tip
    assert repo.resolve(tip[:10]) == tip
    assert repo.resolve("HEAD~1") == known_values_repo.first_parent[-2]
    assert repo.resolve("side") == known_values_repo.side[-1]


@pytest.mark.parametrize(
    "commitish", ["no-such-branch", "deadbeef", "--all", "HEAD^{tree}", "HEAD:value.txt"]
)
def test_resolve_errors_name_the_commitish(repo: Repo, commitish: str) -> None:
    with pytest.raises(GitError) as caught:
        repo.resolve(commitish)
    assert repr(commitish) in str(caught.value)
    assert str(repo.path) in str(caught.value)
    assert caught.value.hint


def test_resolve_empty_text(repo: Repo) -> None:
    with pytest.raises(GitError, match="empty commit-ish"):
        repo.resolve("  ")


def test_resolve_point(repo: Repo, known_values_repo: KnownHistory) -> None:
    history = repo.first_parent()
    assert repo.resolve_point("2024-01-02", history) == datetime(2024, 1, 2, tzinfo=UTC)
    assert repo.resolve_point("HEAD~2", history) == KNOWN_COMMITS - 3
    assert repo.resolve_point(known_values_repo.merge[:12], history) == KNOWN_MERGE_AT
    with pytest.raises(UsageError, match="2024-02-30"):
        repo.resolve_point("2024-02-30", history)


def test_a_side_branch_commit_is_refused_with_its_merge(
    repo: Repo, known_values_repo: KnownHistory
) -> None:
    history = repo.first_parent()
    side = known_values_repo.side[0]
    with pytest.raises(GitError, match="not on the first-parent line of HEAD") as caught:
        repo.resolve_point(side[:9], history)
    assert side[:9] in str(caught.value)
    assert known_values_repo.merge[:12] in (caught.value.hint or "")


def test_a_commit_outside_the_branch(repo: Repo, known_values_repo: KnownHistory) -> None:
    history = repo.first_parent("HEAD~20")
    with pytest.raises(GitError, match="not on the first-parent line of HEAD~20") as caught:
        repo.resolve_point("HEAD", history, branch="HEAD~20")
    assert "not in the history of HEAD~20" in (caught.value.hint or "")


def test_commits_between(repo: Repo, known_values_repo: KnownHistory) -> None:
    line = known_values_repo.first_parent
    commits = repo.commits_between(line[9], line[KNOWN_BROKEN_AT + 1])
    assert [c.id for c in commits] == list(line[10 : KNOWN_BROKEN_AT + 2])
    assert [c.subject for c in commits] == [
        "Commit 10: value 100",
        "Commit 11: value 100",
        "Break the build",
        "Fix the build",
    ]
    assert commits[2].files == ("build.sh", "commit.txt")
    assert commits[0].author == "Ada Lovelace <ada@example.org>"
    assert commits[0].date == known_values_repo.dates[10]
    assert commits[0].body == ""


def test_commits_from_the_root(repo: Repo, known_values_repo: KnownHistory) -> None:
    commits = repo.commits_between(None, known_values_repo.first_parent[1])
    assert [c.id for c in commits] == list(known_values_repo.first_parent[:2])
    first = commits[0]
    assert first.subject == "Initial commit: value 100"
    assert first.body == "bench.sh prints the value of value.txt."
    assert set(first.files) == {
        ".gitignore",
        "README",
        "bench.sh",
        "build.sh",
        "commit.txt",
        "value.txt",
    }


def test_a_merge_lists_what_it_brought_in(repo: Repo, known_values_repo: KnownHistory) -> None:
    line = known_values_repo.first_parent
    commits = repo.commits_between(line[KNOWN_MERGE_AT - 1], line[KNOWN_MERGE_AT])
    assert [c.id for c in commits] == [known_values_repo.merge]
    assert set(commits[0].files) == {"commit.txt", "side.txt"}


def test_an_empty_range(repo: Repo, known_values_repo: KnownHistory) -> None:
    tip = known_values_repo.first_parent[-1]
    assert repo.commits_between(tip, tip) == ()


def test_commits_between_unknown_commit(repo: Repo) -> None:
    with pytest.raises(GitError, match="'nope'"):
        repo.commits_between("nope", "HEAD")


def test_hostile_text_is_kept_intact(repo: Repo, known_values_repo: KnownHistory) -> None:
    commit = repo.commit(known_values_repo.hostile)
    assert commit.subject == HOSTILE_SUBJECT
    assert "\x1b[31mred\x1b[0m" in commit.body
    assert "\x1b]0;title\x07" in commit.body
    assert "invalid UTF-8 \ufffd\ufffd\ufffd( here" in commit.body
    assert "<b>bold</b> &amp; </td></tr>." in commit.body
    assert commit.author == HOSTILE_AUTHOR
    assert HOSTILE_FILE in commit.files
    index = known_values_repo.index(known_values_repo.hostile)
    line = known_values_repo.first_parent
    listed = repo.commits_between(line[index - 2], line[index + 1])
    assert listed[1] == commit
    assert [c.subject for c in listed] == [
        "Commit 32: value 130",
        HOSTILE_SUBJECT,
        "Commit 34: value 130",
    ]


def test_commit_matches_commits_between(repo: Repo, known_values_repo: KnownHistory) -> None:
    line = known_values_repo.first_parent
    listed = repo.commits_between(line[0], line[-1])
    assert len(listed) == KNOWN_COMMITS - 1
    for commit in listed[::7]:
        assert repo.commit(commit.id) == commit


def test_commit_of_a_merge_shows_its_first_parent_diff(
    repo: Repo, known_values_repo: KnownHistory
) -> None:
    merge = repo.commit(known_values_repo.merge)
    assert merge.subject == "Merge branch 'side'"
    assert set(merge.files) == {"commit.txt", "side.txt"}


def test_odd_file_names_and_messages(tmp_path: Path) -> None:
    odd = ["\nleading newline.txt", "tab\there.txt", "naïve ☃.txt", "a\\b", "-dash"]
    ids = make_repo(
        tmp_path,
        [
            CommitSpec(
                date=KNOWN_START,
                message="first",
                files={"one": "1"},
            ),
            CommitSpec(
                date=KNOWN_START.replace(hour=1),
                message="subject line\ncontinued\n\n\x1e\x1f record separators",
                files=dict.fromkeys(odd, "x"),
            ),
            CommitSpec(date=KNOWN_START.replace(hour=2), message="empty commit"),
        ],
    )
    commits = Repo(tmp_path).commits_between(ids[0], ids[2])
    assert [c.id for c in commits] == ids[1:]
    assert sorted(commits[0].files) == sorted(odd)
    assert commits[0].subject == "subject line continued"
    assert "\x1e\x1f record separators" in commits[0].body
    assert commits[1].files == ()
    assert commits[1].subject == "empty commit"


def test_git_environment_variables_do_not_redirect(
    repo: Repo, known_values_repo: KnownHistory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"
    make_repo(other, [CommitSpec(date=KNOWN_START, message="other")])
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    assert [c for c, _ in repo.first_parent()] == list(known_values_repo.first_parent)


def test_repr_and_git_dir(repo: Repo, known_values_repo: KnownHistory) -> None:
    assert str(known_values_repo.path) in repr(repo)
    assert repo.git_dir == known_values_repo.path.resolve() / ".git"
    assert not repo.bare


def test_git_failure_message(repo: Repo) -> None:
    with pytest.raises(GitError, match="git cat-file failed in repository") as caught:
        repo.git("cat-file", "-p", "0" * 40)
    assert str(repo.path) in str(caught.value)


def test_reading_does_not_touch_the_working_copy(known_values_repo: KnownHistory) -> None:
    def state() -> str:
        return subprocess.run(
            ["git", "-C", str(known_values_repo.path), "status", "--porcelain", "--branch"],
            capture_output=True,
            check=True,
            text=True,
        ).stdout

    before = state()
    repo = Repo(known_values_repo.path)
    repo.commits_between(None, "HEAD")
    repo.first_parent()
    assert state() == before == "## main\n"
