"""The POSIX sh scripts perfwalk runs on a remote host, and how to call them.

They are passed as ``sh -c SCRIPT NAME ARGS…`` with every word shell-quoted, so
the remote login shell only ever sees quoted words (it must be a POSIX shell:
sh, bash, ksh, zsh, dash).

:data:`RUN_SCRIPT` runs one command for :class:`~perfwalk.hosts.ssh.SshHost`.
sshd starts each session in a process group of its own; the script, exec'd by
the login shell, leads it, and everything the command starts stays in it:

- a watcher reads the session's stdin, which the controller keeps open; at its
  end of file (the controller's timeout, or the controller or its connection gone)
  the watcher sends SIGTERM to the whole group and SIGKILL after the grace time;
- when the command exits, what it left in the group gets SIGTERM (the script
  itself survives through its trap and exits with the command's status).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

#: The prefix of the script's own error messages (exit status :data:`SCRIPT_FAILED`).
SCRIPT_MARK = "perfwalk-ssh: "
SCRIPT_FAILED = 125

RUN_SCRIPT = r"""g=$1 d=$2
shift 2
while [ "$1" != -- ]; do export "$1" || exit 125; shift; done
shift
if [ -n "$d" ] && ! cd "$d" 2>/dev/null; then
  printf 'perfwalk-ssh: cannot run %s in directory %s: no such directory\n' "$1" "$d" >&2
  exit 125
fi
if ! command -v "$1" >/dev/null 2>&1; then
  printf 'perfwalk-ssh: cannot run %s: command not found\n' "$1" >&2
  exit 125
fi
trap 'pw_t=1' TERM
exec 3<&0
(
  trap : TERM
  while read -r pw_l <&3; do :; done
  kill -TERM 0
  sleep "$g"
  kill -KILL 0
) >/dev/null 2>&1 </dev/null &
pw_w=$!
exec 3<&-
"$@" </dev/null
pw_rc=$?
kill -KILL "$pw_w" 2>/dev/null
kill -TERM 0 2>/dev/null
exit "$pw_rc"
"""


def remote_command(
    argv: Sequence[str], *, grace: float, cwd: str | None, env: Mapping[str, str] | None
) -> str:
    """The one string ssh sends: RUN_SCRIPT with ``argv``, every word quoted."""
    words = [
        "sh",
        "-c",
        RUN_SCRIPT,
        "perfwalk-ssh",
        f"{grace:g}",
        cwd or "",
        *(f"{name}={value}" for name, value in (env or {}).items()),
        "--",
        *argv,
    ]
    return "exec " + " ".join(shlex.quote(word) for word in words)


def script_error(returncode: int | None, stderr: str) -> str | None:
    """The script's own complaint (command not found, no such directory), if any."""
    if returncode == SCRIPT_FAILED and stderr.startswith(SCRIPT_MARK):
        return stderr[len(SCRIPT_MARK) :].strip()
    return None


def quoted(argv: Sequence[str]) -> str:
    """``argv`` as one shell command line."""
    return " ".join(shlex.quote(word) for word in argv)
