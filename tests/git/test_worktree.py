"""Worktrees: checkouts built away from the user's working copy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perfwalk.errors import BuildError, GitError
from perfwalk.git import worktree_lock
from perfwalk.git.repo import Repo
from perfwalk.git.worktree import Worktrees, apply_patch, current_commit, verify_checkout
from tests.fixtures.synthetic_repo import (
    KNOWN_AFTER,
    KNOWN_BEFORE,
    KNOWN_BROKEN_AT,
    KNOWN_STEP_AT,
    KnownHistory,
    git,
)

PATCH = """\
--- a/value.txt
+++ b/value.txt
@@ -1 +1 @@
-130
+131
"""


@pytest.fixture
def project(known_values_repo_copy: KnownHistory) -> KnownHistory:
    return known_values_repo_copy


@pytest.fixture
def worktrees(project: KnownHistory, tmp_path: Path) -> Worktrees:
    return Worktrees(Repo(project.path), tmp_path / "worktrees")


def run(path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=path, capture_output=True, text=True, check=False)


def user_state(path: Path) -> tuple[str, str, str, str, str]:
    return (
        git(path, "status", "--porcelain", "--branch", "--untracked-files=all"),
        git(path, "rev-parse", "HEAD"),
        git(path, "stash", "list"),
        (path / "value.txt").read_text(),
        (path / "mine.txt").read_text(),
    )


def test_the_users_working_copy_is_never_touched(
    project: KnownHistory, worktrees: Worktrees
) -> None:
    (project.path / "value.txt").write_text("dirty, do not lose me\n")
    (project.path / "mine.txt").write_text("untracked, mine\n")
    git(project.path, "add", "mine.txt")
    (project.path / "mine.txt").write_text("untracked, mine, edited after add\n")
    before = user_state(project.path)
    patch = worktrees.root.parent / "value.patch"
    patch.write_text(PATCH)
    for commit in (project.first_parent[3], project.step_change, project.broken_build):
        path = worktrees.checkout(commit)
        run(path, "./build.sh")
    apply_patch(worktrees.checkout(project.step_change), patch)
    worktrees.remove()
    after = user_state(project.path)
    assert after == before
    assert "M  mine.txt" in after[0] or "AM mine.txt" in after[0]
    assert after[3] == "dirty, do not lose me\n"


def test_checkout_puts_the_commit_in_a_worktree(
    project: KnownHistory, worktrees: Worktrees
) -> None:
    path = worktrees.checkout(project.first_parent[5])
    assert path == worktrees.root / "build"
    assert current_commit(path) == project.first_parent[5]
    assert (path / "commit.txt").read_text() == "5\n"
    assert run(path, "./bench.sh").stdout == f"VALUE {KNOWN_BEFORE} ms latency\n"
    assert git(path, "status", "--porcelain") == ""
    assert run(path, "git", "symbolic-ref", "-q", "HEAD").returncode != 0  # detached


def test_the_slot_is_reused_and_cleaned(project: KnownHistory, worktrees: Worktrees) -> None:
    first = worktrees.checkout(project.first_parent[1])
    assert run(first, "./build.sh").returncode == 0
    assert (first / "out" / "build.stamp").read_text() == "1\n"
    (first / "value.txt").write_text("edited\n")
    (first / "stray.o").write_text("object\n")

    second = worktrees.checkout(project.step_change)
    assert second == first
    assert current_commit(second) == project.step_change
    assert not (second / "out").exists()
    assert not (second / "stray.o").exists()
    assert (second / "value.txt").read_text() == f"{KNOWN_AFTER}\n"
    assert run(second, "./bench.sh").stdout == f"VALUE {KNOWN_AFTER} ms latency\n"
    assert len(worktrees.registered()) == 1


def test_incremental_state_is_kept_only_when_asked(
    project: KnownHistory, worktrees: Worktrees
) -> None:
    path = worktrees.checkout(project.first_parent[1])
    run(path, "./build.sh")
    (path / "value.txt").write_text("edited\n")
    path = worktrees.checkout(project.first_parent[2], clean=False)
    assert (path / "out" / "build.stamp").read_text() == "1\n"
    assert (path / "value.txt").read_text() == f"{KNOWN_BEFORE}\n"  # tracked files reset
    assert (path / "commit.txt").read_text() == "2\n"


def test_the_broken_build(project: KnownHistory, worktrees: Worktrees) -> None:
    path = worktrees.checkout(project.broken_build)
    assert project.index(project.broken_build) == KNOWN_BROKEN_AT
    failed = run(path, "./build.sh")
    assert failed.returncode == 1
    assert "error:" in failed.stderr
    path = worktrees.checkout(project.first_parent[KNOWN_BROKEN_AT + 1])
    assert run(path, "./build.sh").returncode == 0


def test_slots_are_separate(project: KnownHistory, worktrees: Worktrees) -> None:
    one = worktrees.checkout(project.first_parent[KNOWN_STEP_AT - 1])
    two = worktrees.checkout(project.step_change, slot="variant")
    assert one != two
    assert (one / "value.txt").read_text() == f"{KNOWN_BEFORE}\n"
    assert (two / "value.txt").read_text() == f"{KNOWN_AFTER}\n"
    assert sorted(worktrees.registered()) == sorted([one, two])
    worktrees.remove()
    assert not one.exists()
    assert not two.exists()
    assert not worktrees.root.exists()
    assert worktrees.registered() == []
    listed = git(project.path, "worktree", "list", "--porcelain")
    assert listed.count("worktree ") == 1


@pytest.mark.parametrize("slot", ["", "../escape", "a/b", ".hidden", "-x"])
def test_bad_slot_names(worktrees: Worktrees, slot: str) -> None:
    with pytest.raises(ValueError, match="invalid worktree slot"):
        worktrees.path(slot)


def test_a_deleted_worktree_is_recreated(project: KnownHistory, worktrees: Worktrees) -> None:
    path = worktrees.checkout(project.first_parent[1])
    subprocess.run(["rm", "-rf", str(path)], check=True)
    again = worktrees.checkout(project.first_parent[2])
    assert again == path
    assert (again / "commit.txt").read_text() == "2\n"


def test_a_foreign_directory_is_not_overwritten(
    project: KnownHistory, worktrees: Worktrees
) -> None:
    foreign = worktrees.path("build")
    foreign.mkdir(parents=True)
    (foreign / "precious").write_text("keep")
    with pytest.raises(GitError, match="is not a worktree") as caught:
        worktrees.checkout(project.first_parent[1])
    assert str(foreign) in str(caught.value)
    assert (foreign / "precious").read_text() == "keep"


def test_an_unknown_commit(worktrees: Worktrees) -> None:
    with pytest.raises(GitError, match="'no-such-commit'"):
        worktrees.checkout("no-such-commit")


def test_apply_patch_and_undo(project: KnownHistory, worktrees: Worktrees, tmp_path: Path) -> None:
    patch = tmp_path / "value.patch"
    patch.write_text(PATCH)
    path = worktrees.checkout(project.step_change)
    worktrees.apply_patch(path, patch)
    assert (path / "value.txt").read_text() == "131\n"
    path = worktrees.checkout(project.first_parent[KNOWN_STEP_AT + 1])
    assert (path / "value.txt").read_text() == f"{KNOWN_AFTER}\n"


def test_a_patch_that_does_not_apply(
    project: KnownHistory, worktrees: Worktrees, tmp_path: Path
) -> None:
    patch = tmp_path / "value.patch"
    patch.write_text(PATCH)
    path = worktrees.checkout(project.first_parent[0])  # value 100, the patch expects 130
    with pytest.raises(BuildError, match="does not apply") as caught:
        apply_patch(path, patch)
    assert str(patch) in str(caught.value)
    assert project.first_parent[0][:12] in str(caught.value)
    assert caught.value.hint
    assert (path / "value.txt").read_text() == f"{KNOWN_BEFORE}\n"


def test_a_missing_patch(project: KnownHistory, worktrees: Worktrees, tmp_path: Path) -> None:
    path = worktrees.checkout(project.first_parent[0])
    with pytest.raises(BuildError, match="does not exist") as caught:
        apply_patch(path, tmp_path / "gone.patch")
    assert "gone.patch" in str(caught.value)
    assert project.first_parent[0][:12] in str(caught.value)


def test_remove_without_worktrees(worktrees: Worktrees) -> None:
    worktrees.remove()
    assert not worktrees.root.exists()
    assert "Worktrees(" in repr(worktrees)


# -- one walk's own worktrees: named for the store and the series, locked, verified ------


def test_series_of_two_stores_get_two_directories(project: KnownHistory, tmp_path: Path) -> None:
    repo = Repo(project.path)
    first = Worktrees.for_series(repo, tmp_path, "a" * 32, 1)
    second = Worktrees.for_series(repo, tmp_path, "b" * 32, 1)
    assert first.root != second.root
    assert first.root.parent == second.root.parent == tmp_path.resolve()
    assert first.root != Worktrees.for_series(repo, tmp_path, "a" * 32, 2).root
    with pytest.raises(ValueError, match="hexadecimal"):
        Worktrees.for_series(repo, tmp_path, "../../elsewhere", 1)


HOLD = """
import sys, time
from pathlib import Path
from perfwalk.git.worktree_lock import held
with held(Path(sys.argv[1]), "a walk of the other config"):
    print("holding", flush=True)
    time.sleep(60)
"""


def test_worktrees_held_by_another_process_are_refused_naming_it(
    worktrees: Worktrees, tmp_path: Path
) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(worktrees.root)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "holding\n"
        with (
            pytest.raises(GitError, match=f"in use by another process: pid {holder.pid} on") as err,
            worktrees.held("this walk"),
        ):
            pass
        assert "a walk of the other config" in str(err.value)
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    with worktrees.held("this walk") as lock:  # a dead holder holds nothing
        assert "this walk" in lock.read_text()
        with pytest.raises(GitError, match="in use by another process: pid"):  # nor twice
            worktree_lock.held(worktrees.root, "again").__enter__()
    assert not lock.exists()


def test_a_worktree_changed_under_the_walk_is_detected(
    project: KnownHistory, worktrees: Worktrees, tmp_path: Path
) -> None:
    commit = project.first_parent[5]
    path = worktrees.checkout(commit)
    verify_checkout(path, commit)
    git(path, "checkout", "-q", "--detach", project.first_parent[6])
    with pytest.raises(GitError, match=f"at commit {project.first_parent[6][:12]}, not at"):
        verify_checkout(path, commit)
    git(path, "checkout", "-q", "--detach", commit)
    path.rename(tmp_path / "moved")
    with pytest.raises(GitError, match=f"the worktree {path} for commit {commit[:12]} is gone"):
        verify_checkout(path, commit)
    path.mkdir()  # an empty directory where the worktree was, inside another repository
    git(tmp_path, "init", "-q")
    author = {"GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.org"}
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "elsewhere", env=author)
    with pytest.raises(GitError, match=f"was moved: {path} is now inside {tmp_path}"):
        verify_checkout(path, commit)
