"""A commit undone on another commit: the patch that reverts it (what ``git revert
--no-edit`` would commit: its diff against its first parent, reversed) and whether that
patch applies to a later tip, checked in a temporary index (no work tree is touched)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from perfwalk.git.command import git_message, run_git
from perfwalk.git.repo import Repo


def revert_patch(repo: Repo, commit: str) -> str:
    """The patch that undoes ``commit`` (a merge: against its first parent), binary
    changes included; empty when the commit changed nothing."""
    sha = repo.resolve(commit)
    parents = repo.git("rev-list", "--parents", "-n", "1", sha).decode().split()[1:]
    if not parents:  # a root commit: undoing it removes everything it added
        empty = repo.git("hash-object", "-t", "tree", "/dev/null").decode().strip()
        return repo.git("diff", "--binary", sha, empty).decode("utf-8", "surrogateescape")
    return repo.git("diff", "--binary", sha, parents[0]).decode("utf-8", "surrogateescape")


def conflict_on(repo: Repo, patch: str, tip: str) -> str | None:
    """Why ``patch`` does not apply to the tree of ``tip`` (git apply's own words, the
    files it names), or None when it applies cleanly."""
    sha = repo.resolve(tip)
    with tempfile.TemporaryDirectory(prefix="perfwalk-revert.") as folder:
        index, patch_file = Path(folder) / "index", Path(folder) / "revert.diff"
        patch_file.write_text(patch, encoding="utf-8", errors="surrogateescape")
        env = {"GIT_INDEX_FILE": str(index)}
        read = run_git(repo.path, ["read-tree", sha], env=env)
        if read.returncode != 0:
            return f"the tree of {sha[:12]} could not be read: {git_message(read)}"
        check = run_git(repo.path, ["apply", "--cached", "--check", str(patch_file)], env=env)
        if check.returncode == 0:
            return None
        return git_message(check).replace(str(patch_file), "the revert")
