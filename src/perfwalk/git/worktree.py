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

A walk's worktrees belong to it alone: :meth:`Worktrees.for_series` puts them in a
directory named for the series *and* the store (two configs in one folder, with
two stores, each have their series 1), :meth:`Worktrees.held` locks that directory
on disk for the walk's life (:mod:`perfwalk.git.worktree_lock`), and
:func:`verify_checkout` tells the walk, before each test, that its worktree is
still there, at the commit it measures.
"""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from pathlib import Path

from perfwalk.errors import BuildError, GitError
from perfwalk.git import worktree_lock
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

    @classmethod
    def for_series(cls, repo: Repo, base: Path, store_id: str, series_id: int) -> Worktrees:
        """The worktrees of series ``series_id`` of the store ``store_id`` (its
        :meth:`~perfwalk.store.Store.store_id`): ``base/series-<id>-<store id>``."""
        if not re.fullmatch(r"[0-9a-f]{12,}", store_id):
            raise ValueError(f"a store id is hexadecimal, not {store_id!r}")
        return cls(repo, Path(base) / f"series-{series_id}-{store_id[:12]}")

    def held(self, purpose: str) -> AbstractContextManager[Path]:
        """Lock these worktrees on disk for a ``with`` block (``purpose`` says who holds
        them, for the error another process gets); GitError naming the holder when
        another process holds them."""
        return worktree_lock.held(self.root, purpose)

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


def verify_checkout(path: Path, commit: str) -> None:
    """GitError unless the worktree ``path`` is still there with ``commit`` checked out.

    A walk asks before each test: if something else moved, removed or checked out
    its worktree, the values would be stored under the wrong commit.
    """
    result = run_git(path, ["rev-parse", "--show-toplevel", "HEAD"])
    lines = result.stdout.decode("utf-8", errors="surrogateescape").splitlines()
    hint = (
        f"make sure nothing else uses {path} (another walk, a script, a person), then"
        " resume the walk: perfwalk run --resume"
    )
    if result.returncode != 0 or len(lines) != 2:
        raise GitError(
            f"the worktree {path} for commit {commit[:12]} is gone or broken"
            f" ({git_message(result)}); nothing was stored for this repetition",
            hint=hint,
        )
    top, head = lines
    if Path(top).resolve() != path.resolve():
        raise GitError(
            f"the worktree {path} for commit {commit[:12]} was moved: {path} is now inside"
            f" {top}; nothing was stored for this repetition",
            hint=hint,
        )
    if head != commit:
        raise GitError(
            f"the worktree {path} is at commit {head[:12]}, not at {commit[:12]} that the walk"
            " is measuring: something else checked it out; nothing was stored for this"
            " repetition",
            hint=hint,
        )


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
