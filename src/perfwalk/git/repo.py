"""A project's git repository, read through the ``git`` command.

Only reads: nothing here changes the repository or its working copy
(checkouts happen in dedicated worktrees, see :mod:`perfwalk.git.worktree`).
Commit messages, author names and file names are untrusted bytes; they are
decoded as UTF-8 with U+FFFD for invalid sequences and never reach a shell.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from perfwalk.errors import GitError
from perfwalk.git.command import git_message, ownership_hint, run_git
from perfwalk.git.history import HistoryEntry, Point
from perfwalk.git.walk_steps import looks_like_date, parse_date
from perfwalk.model import Commit

#: One commit in ``git log -z`` output: a leading empty field marks its start,
#: then id, committer date, author, subject and body, each ended by NUL.
_LOG_FORMAT = "--format=%x00%H%x00%cI%x00%aN <%aE>%x00%s%x00%b%x00"
_LOG_FIELDS = 7
_OBJECT_ID = re.compile(rb"[0-9a-f]{40}(?:[0-9a-f]{24})?")

#: ``git log`` options shared by every commit listing: the files a commit
#: changed relative to its first parent (a merge lists what it brought in, the
#: root commit lists everything), renames as a deletion plus an addition.
_LOG_OPTIONS = (
    "log",
    "-z",
    "--no-relative",
    "--name-only",
    "--no-renames",
    "--root",
    "--diff-merges=first-parent",
    _LOG_FORMAT,
)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class Repo:
    """A git repository on this machine (a work tree's top or a bare repository).

    Raises GitError, with a hint, when ``path`` is missing, is not a git
    repository, or is a subdirectory of one (the top is named).
    """

    def __init__(self, path: Path | str) -> None:
        given = Path(path).expanduser()
        if not given.exists():
            raise GitError(
                f"repository {given} does not exist",
                hint="give the path of a clone of the project (git clone <url> <path>)",
            )
        if not given.is_dir():
            raise GitError(
                f"repository {given} is not a directory",
                hint="give the directory of a clone of the project, not a file in it",
            )
        self.path = given.resolve()
        result = run_git(
            self.path,
            [
                "rev-parse",
                "--is-bare-repository",
                "--is-inside-git-dir",
                "--git-common-dir",
                "--show-prefix",
            ],
        )
        if result.returncode != 0:
            raise GitError(
                f"{self.path} is not a git repository: {git_message(result)}",
                hint=ownership_hint(result, self.path)
                or "give the path of a clone of the project (git clone <url> <path>)",
            )
        lines = result.stdout.decode("utf-8", errors="surrogateescape").split("\n")
        bare, inside_git_dir, common_dir, prefix = (lines + [""] * 4)[:4]
        if bare != "true" and (inside_git_dir == "true" or prefix):
            top = run_git(self.path, ["rev-parse", "--show-toplevel"]).stdout.strip()
            raise GitError(
                f"{self.path} is inside a git repository but is not its top",
                hint=f"give the top of the work tree: {_text(top) or 'its parent directory'}",
            )
        self.bare = bare == "true"
        #: The repository's own git directory, shared by all its worktrees.
        self.git_dir = (self.path / common_dir).resolve()

    @classmethod
    def around(cls, path: Path | str) -> Repo:
        """The repository whose work tree holds ``path`` (a subdirectory of it too);
        GitError when none does."""
        given = Path(path).expanduser()
        result = run_git(given, ["rev-parse", "--show-toplevel"]) if given.is_dir() else None
        if result is None or result.returncode != 0 or not result.stdout.strip():
            raise GitError(
                f"{given} is not in the work tree of a git repository",
                hint="run it in the project's checkout, or give the repository's path",
            )
        return cls(_text(result.stdout.strip()))

    def __repr__(self) -> str:
        return f"Repo({str(self.path)!r})"

    def git(self, *args: str) -> bytes:
        """Run ``git <args>`` in the repository and return stdout; GitError on failure."""
        result = run_git(self.path, args)
        if result.returncode != 0:
            raise self._failure(result, f"git {args[0] if args else ''} failed")
        return result.stdout

    def _failure(self, result: subprocess.CompletedProcess[bytes], what: str) -> GitError:
        return GitError(
            f"{what} in repository {self.path}: {git_message(result)}",
            hint=ownership_hint(result, self.path),
        )

    def resolve(self, commitish: str) -> str:
        """The full id of the commit ``commitish`` names (branch, tag, id, ``HEAD~3``, …).

        Raises GitError naming ``commitish`` and the repository when it names no
        commit (unknown, ambiguous, or a tree or blob).
        """
        if not commitish.strip():
            raise GitError(
                f"empty commit-ish in repository {self.path}",
                hint="name a commit: a branch, a tag, an id or a date (YYYY-MM-DD)",
            )
        result = run_git(
            self.path, ["rev-parse", "--verify", "--end-of-options", f"{commitish}^{{commit}}"]
        )
        found = result.stdout.strip()
        if result.returncode != 0 or not _OBJECT_ID.fullmatch(found):
            if not self._has_commits():
                raise GitError(
                    f"repository {self.path} has no commits (looking for {commitish!r})",
                    hint="commit something first, or give the path of a clone with history",
                )
            raise GitError(
                f"unknown commit-ish {commitish!r} in repository {self.path}",
                hint=(
                    "check the spelling (git log --oneline lists commits, git branch -a the"
                    " branches), fetch it if it is only on a remote, or give a date (YYYY-MM-DD)"
                ),
            )
        return found.decode("ascii")

    def is_ancestor(self, commit: str, descendant: str) -> bool:
        """Whether ``commit`` is in the history of ``descendant`` (itself included)."""
        found = run_git(self.path, ["merge-base", "--is-ancestor", commit, descendant])
        if found.returncode not in (0, 1):
            raise self._failure(found, "git merge-base failed")
        return found.returncode == 0

    def _has_commits(self) -> bool:
        result = run_git(self.path, ["rev-list", "-n", "1", "--all"])
        return result.returncode == 0 and bool(result.stdout.strip())

    def first_parent(self, branch: str = "HEAD") -> list[HistoryEntry]:
        """The first-parent line ending at ``branch``, oldest first: (id, committer date).

        This is the line a walk moves along: merged side branches appear as their
        merge commit only.
        """
        tip = self.resolve(branch)
        data = self.git(
            "log", "-z", "--first-parent", "--reverse", "--format=%H %cI", "--end-of-options", tip
        )
        history: list[HistoryEntry] = []
        for record in data.split(b"\0"):
            if not record.strip():
                continue
            commit, _, date = record.strip().decode("ascii").partition(" ")
            history.append(HistoryEntry(commit, datetime.fromisoformat(date)))
        return history

    def resolve_point(
        self, text: str, history: Sequence[tuple[str, datetime]], *, branch: str = "HEAD"
    ) -> Point:
        """A ``--from``/``--to`` value as a walk end: a date, or a position in ``history``.

        Text shaped like a date (see :func:`perfwalk.git.walk_steps.parse_date`) is a
        date, even if a tag has the same name; anything else is a commit-ish that
        must be on ``history`` (the first-parent line of ``branch``). A commit of a
        merged side branch is refused with the merge that brought it in.
        """
        if looks_like_date(text):
            return parse_date(text)
        commit = self.resolve(text)
        for index, (entry_id, _) in enumerate(history):
            if entry_id == commit:
                return index
        hint = f"give a commit of {branch}'s first-parent line or a date (YYYY-MM-DD)"
        if history:
            merge = self._merge_of(commit, history)
            if merge is not None:
                hint = (
                    f"it came in with the merge {merge[:12]}; give that merge, its parent,"
                    " or a date"
                )
            else:
                hint = f"it is not in the history of {branch}; {hint}"
        raise GitError(
            f"commit {text!r} ({commit[:12]}) is not on the first-parent line of {branch}"
            f" in repository {self.path}",
            hint=hint,
        )

    def _merge_of(self, commit: str, history: Sequence[tuple[str, datetime]]) -> str | None:
        """The first commit of ``history`` that has ``commit`` as an ancestor, if any."""
        result = run_git(
            self.path,
            ["rev-list", "--ancestry-path", "--end-of-options", f"{commit}..{history[-1][0]}"],
        )
        if result.returncode != 0:
            return None
        descendants = set(result.stdout.decode("ascii").split())
        return next((entry_id for entry_id, _ in history if entry_id in descendants), None)

    def commits_between(self, after: str | None, until: str) -> tuple[Commit, ...]:
        """The first-parent commits after ``after`` up to ``until``, oldest first.

        ``after`` is excluded (None: from the root commit), ``until`` included.
        Each commit has its id, committer date, ``author name <email>``, subject,
        body and the files it changed relative to its first parent. One git call.
        """
        revisions = [until] if after is None else [f"{after}..{until}"]
        result = run_git(
            self.path,
            [*_LOG_OPTIONS, "--first-parent", "--reverse", "--end-of-options", *revisions, "--"],
        )
        if result.returncode != 0:
            self._explain_revisions(after, until)
            raise self._failure(result, f"cannot list the commits {' '.join(revisions)}")
        return tuple(self._parse_log(result.stdout))

    def _explain_revisions(self, *commitishes: str | None) -> None:
        for commitish in commitishes:
            if commitish is not None:
                self.resolve(commitish)

    def commit(self, commitish: str) -> Commit:
        """One commit with its message and the files it changed (relative to its first parent)."""
        commit = self.resolve(commitish)
        data = self.git(*_LOG_OPTIONS, "-n", "1", "--end-of-options", commit, "--")
        commits = self._parse_log(data)
        if len(commits) != 1:
            raise GitError(f"cannot read commit {commitish!r} in repository {self.path}")
        return commits[0]

    def _parse_log(self, data: bytes) -> list[Commit]:
        """Commits from ``git log -z --name-only`` with :data:`_LOG_FORMAT`.

        The stream is NUL-separated fields; a record is an empty field, five
        fields, an empty field (git's record end), then the file names (the first
        one after git's newline) up to the next empty field or the end. Neither
        messages nor file names can hold a NUL byte, so any other byte is safe.
        """
        fields = data.split(b"\0")
        commits: list[Commit] = []
        at = 0
        while at < len(fields):
            if fields[at] == b"" and at == len(fields) - 1:
                break
            record = fields[at : at + _LOG_FIELDS]
            if (
                len(record) != _LOG_FIELDS
                or record[0]
                or record[-1]
                or not _OBJECT_ID.fullmatch(record[1])
            ):
                raise GitError(
                    f"unexpected output from git log in repository {self.path}"
                    f" (near byte {sum(len(f) + 1 for f in fields[:at])})",
                    hint="check that 'git log' works in this repository; report a bug if it does",
                )
            _, commit, date, author, subject, body, _ = record
            at += _LOG_FIELDS
            files: list[str] = []
            while at < len(fields) and fields[at]:
                name = fields[at]
                if not files and name.startswith(b"\n"):
                    name = name[1:]
                files.append(_text(name))
                at += 1
            commits.append(
                Commit(
                    id=commit.decode("ascii"),
                    date=datetime.fromisoformat(date.decode("ascii")),
                    author=_text(author),
                    subject=_text(subject),
                    body=_text(body).rstrip("\n"),
                    files=tuple(files),
                )
            )
        return commits
