"""Running git: argv lists (never a shell), a clean environment, errors with a hint.

Every git call of perfwalk goes through :func:`run_git`. It

* runs ``git -C <dir>`` with options that make the output stable and keep git
  from doing anything on its own: no pager, no colour, no signatures, no
  optional locks, the repository's hooks disabled, paths never quoted;
* removes the ``GIT_DIR``-like variables a caller's environment may hold (for
  example when perfwalk runs from a git hook), which would silently point git at
  another repository;
* returns stdout as bytes: commit messages and file names are untrusted bytes,
  decoded by the callers with replacement, never trusted to be UTF-8.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from perfwalk.errors import GitError

#: Variables that change which repository git works on (``git rev-parse --local-env-vars``).
_REPOSITORY_VARIABLES = frozenset(
    "GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_CONFIG GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT"
    " GIT_OBJECT_DIRECTORY GIT_DIR GIT_WORK_TREE GIT_IMPLICIT_WORK_TREE GIT_GRAFT_FILE"
    " GIT_INDEX_FILE GIT_NO_REPLACE_OBJECTS GIT_REPLACE_REF_BASE GIT_PREFIX"
    " GIT_INTERNAL_SUPER_PREFIX GIT_SHALLOW_FILE GIT_COMMON_DIR".split()
)

_OPTIONS = (
    "--no-pager",
    "--no-optional-locks",
    "-c",
    "core.quotePath=false",
    "-c",
    "color.ui=never",
    "-c",
    "log.showSignature=false",
    "-c",
    f"core.hooksPath={os.devnull}",
    "-c",
    "advice.detachedHead=false",
)


def git_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment git runs with: the caller's, minus repository overrides."""
    env = {key: value for key, value in os.environ.items() if key not in _REPOSITORY_VARIABLES}
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "LANGUAGE": "C"})
    if extra:
        env.update(extra)
    return env


def run_git(
    cwd: Path,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git -C cwd <args>`` and return what it did; never raises for a git failure.

    Raises GitError only when git itself cannot be started.
    """
    argv = ["git", "-C", str(cwd), *_OPTIONS, *args]
    try:
        return subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=git_environment(env),
            check=False,
        )
    except FileNotFoundError:
        raise GitError(
            "git is not installed (no 'git' on PATH)",
            hint="install git (e.g. apt-get install git) or add it to PATH",
        ) from None
    except OSError as exc:
        raise GitError(f"cannot run git in {cwd}: {exc}") from None


def git_message(result: subprocess.CompletedProcess[bytes]) -> str:
    """git's own explanation of a failure: its ``fatal:``/``error:`` lines, or its stderr."""
    text = result.stderr.decode("utf-8", errors="replace")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    reasons = [
        line.split(":", 1)[1].strip() for line in lines if line.startswith(("fatal:", "error:"))
    ]
    chosen = reasons or lines[-3:] or [f"exit status {result.returncode}"]
    message = "; ".join(chosen)
    return message if len(message) <= 500 else message[:497] + "..."


def ownership_hint(result: subprocess.CompletedProcess[bytes], path: Path) -> str | None:
    """The fix for git's "dubious ownership" refusal, when that is what happened."""
    if b"dubious ownership" in result.stderr:
        return (
            "git refuses a repository owned by another user:"
            f" git config --global --add safe.directory {path}"
        )
    return None
