"""Dedicated worktrees: where checkouts are built, so the user's working copy is never touched.

A walk never runs ``git checkout`` in the user's clone. It builds in linked
worktrees (``git worktree``) under a root directory of its own, one per *slot*
(``root/build``, ``root/variant-b``, …). A slot is created once and reused from
checkout to checkout: ``git checkout --detach --force`` then ``git clean -ffdx``,
so neither edits nor build products of the previous checkout leak into the next
one — unless the caller asks to keep untracked files (``clean=False``) for an
incremental build. The user's branch, index, working files and stash stay as
they were; the repository only gains the worktree's administrative files under
``.git/worktrees/``, removed again by :meth:`Worktrees.remove`.

Put ``root`` outside the user's work tree (or in an ignored directory), or the
worktrees show up as untracked files in their ``git status``. Submodules are not
checked out; a build that needs them runs ``git submodule update --init``.
"""

from __future__ import annotations

import re
from pathlib import Path

from perfwalk.errors import BuildError, GitError
from perfwalk.git.command import git_message, run_git
from perfwalk.git.repo import Repo

_SLOT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class Worktrees:
    """The worktrees of one walk: ``root/<slot>``, detached at the commit being built."""

    def __init__(self, repo: Repo, root: Path | str) -> None:
        self.repo = repo
        self.root = Path(root).expanduser().resolve()

    def __repr__(self) -> str:
        return f"Worktrees({self.repo!r}, {str(self.root)!r})"

    def path(self, slot: str = "build") -> Path:
        """Where ``slot``'s worktree lives; ValueError for a slot name that is not a plain name."""
        if not _SLOT.fullmatch(slot):
            raise ValueError(f"invalid worktree slot {slot!r}: use letters, digits, . _ -")
        return self.root / slot

    def registered(self) -> list[Path]:
        """The worktrees of the repository that live under :attr:`root`."""
        data = self.repo.git("worktree", "list", "--porcelain", "-z")
        found: list[Path] = []
        for field in data.split(b"\0"):
            if field.startswith(b"worktree "):
                path = Path(field[len(b"worktree ") :].decode("utf-8", errors="surrogateescape"))
                if path.resolve().is_relative_to(self.root) and path.resolve() != self.root:
                    found.append(path.resolve())
        return found

    def checkout(self, commit: str, *, slot: str = "build", clean: bool = True) -> Path:
        """Put ``slot``'s worktree at ``commit`` (detached) and return its path.

        Creates the worktree the first time; afterwards moves it with a forced
        checkout, which drops edits to tracked files (an applied patch), and with
        ``clean`` (the default) removes every untracked and ignored file too.
        Raises GitError naming the commit and the path when git refuses.
        """
        target = self.repo.resolve(commit)
        path = self.path(slot)
        if path in self.registered() and (path / ".git").exists():
            self._git(path, target, "checkout", "--detach", "--force", target)
            if clean:
                self._git(path, target, "clean", "-ffdxq")
            return path
        self.repo.git("worktree", "prune")
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise GitError(
                f"cannot create the worktree {path} for commit {target[:12]}: it exists and is"
                f" not a worktree of {self.repo.path}",
                hint=f"remove {path} or choose another worktree directory",
            )
        self.root.mkdir(parents=True, exist_ok=True)
        self._git(
            self.repo.path, target, "worktree", "add", "--detach", "--force", str(path), target
        )
        return path

    def _git(self, where: Path, commit: str, *args: str) -> None:
        result = run_git(where, args)
        if result.returncode != 0:
            raise GitError(
                f"git {' '.join(args[:2])} failed for commit {commit[:12]} in {where}:"
                f" {git_message(result)}",
                hint=f"remove {self.root} and run again; perfwalk recreates its worktrees",
            )

    def apply_patch(self, path: Path, patch_file: Path | str) -> None:
        """Apply a patch to a worktree of this walk; see :func:`apply_patch`."""
        apply_patch(path, patch_file)

    def remove(self) -> None:
        """Remove every worktree under :attr:`root` and forget them in the repository."""
        for path in self.registered():
            result = run_git(
                self.repo.path, ["worktree", "remove", "--force", "--force", str(path)]
            )
            if result.returncode != 0 and path.exists():
                raise GitError(
                    f"cannot remove the worktree {path}: {git_message(result)}",
                    hint=f"remove {path} by hand, then run: git -C {self.repo.path} worktree prune",
                )
        self.repo.git("worktree", "prune")
        if self.root.is_dir() and not any(self.root.iterdir()):
            self.root.rmdir()


def current_commit(path: Path) -> str:
    """The id of the commit checked out in the worktree at ``path``."""
    result = run_git(path, ["rev-parse", "--verify", "HEAD"])
    if result.returncode != 0:
        raise GitError(f"{path} has no checked-out commit: {git_message(result)}")
    return result.stdout.decode("ascii").strip()


def apply_patch(path: Path, patch_file: Path | str) -> None:
    """Apply ``patch_file`` (``git apply``, all or nothing) to the worktree at ``path``.

    Raises BuildError naming the patch and the commit when the file is missing
    or the patch does not apply. The next :meth:`Worktrees.checkout` undoes it.
    """
    patch = Path(patch_file).expanduser().resolve()
    commit = current_commit(path)
    if not patch.is_file():
        raise BuildError(
            f"patch {patch_file} does not exist (for commit {commit[:12]})",
            hint="fix the patch path in the configuration (relative to the configuration file)",
        )
    result = run_git(path, ["apply", "--whitespace=nowarn", str(patch)])
    if result.returncode != 0:
        raise BuildError(
            f"patch {patch_file} does not apply to commit {commit[:12]}: {git_message(result)}",
            hint="refresh the patch for this commit, or limit the quirk or variant to the"
            " commits it applies to",
        )
