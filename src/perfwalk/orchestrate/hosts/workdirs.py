"""A run's work directory on a host, and those that runs killed on this machine left.

Each host of a run gets ``${TMPDIR:-/tmp}/perfwalk.XXXXXX`` (``mktemp -d``), removed
when the run ends. A run killed outright (``kill -9``, the OOM killer, a power cut of
this machine) cannot remove it. So each directory holds ``.owner``: the run that made
it, as this machine's boot id, the run's process id and that process's start time
(``/proc``). When a run makes its directory on a host, the same command lists the
others there with their owners; one whose owner was started on this machine since its
last boot and no longer runs (no such process, or another one that took its id) is
left over, and is removed. A directory of another machine's run, or of a run of before
this machine's last boot, is left alone: nothing here can tell whether it still runs.
The private directory of a run's ssh control sockets on this machine
(``pw-ssh-…``) is owned and removed the same way (:func:`owned_here`).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: makes the run's directory, writes its owner ($1) and prints its path, then each
#: other directory's owner: ``OWNER <path> <owner>``
MAKE_WORKDIR = (
    'd=$(mktemp -d "${TMPDIR:-/tmp}/perfwalk.XXXXXX") || exit 1; '
    '[ -z "$1" ] || printf "%s\\n" "$1" > "$d/.owner"; echo "$d"; '
    'for o in "${TMPDIR:-/tmp}"/perfwalk.*/.owner; do '
    '[ -f "$o" ] && [ "${o%/.owner}" != "$d" ] && '
    'printf "OWNER %s %s\\n" "${o%/.owner}" "$(head -c 200 "$o" | head -n 1)"; done; exit 0'
)

#: the paths this module ever removes on a host
WORKDIR = re.compile(r"/(?:[^\s/]+/)*perfwalk\.[A-Za-z0-9]{6}")
#: the file in a directory that names its owner
OWNER_FILE = ".owner"


@dataclass(frozen=True)
class Owner:
    """A run on this machine: since which boot, which process, started when (clock
    ticks since the boot)."""

    boot: str
    pid: int
    started: int

    def text(self) -> str:
        return f"{self.boot} {self.pid} {self.started}"

    @classmethod
    def parse(cls, text: str) -> Owner | None:
        parts = text.split()
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            return None
        return cls(parts[0], int(parts[1]), int(parts[2]))


def this_run(proc: Path = Path("/proc")) -> Owner | None:
    """This process as an owner; None where ``/proc`` does not tell (not Linux)."""
    return process(proc, os.getpid(), boot(proc))


def boot(proc: Path = Path("/proc")) -> str | None:
    """This machine's boot id (a new one at each boot)."""
    try:
        return (proc / "sys/kernel/random/boot_id").read_text(encoding="ascii").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def process(proc: Path, pid: int, since: str | None) -> Owner | None:
    """Process ``pid`` as an owner of boot ``since``; None when it does not run (or
    ``/proc`` does not tell)."""
    if since is None:
        return None
    try:
        stat = (proc / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # the command's name is in parentheses and may hold spaces: the fields after it
    fields = stat[stat.rfind(")") + 2 :].split()
    if len(fields) < 20 or not fields[19].isdigit():
        return None
    return Owner(since, pid, int(fields[19]))


def made(output: str) -> tuple[str, list[tuple[str, str]]]:
    """The path :data:`MAKE_WORKDIR` printed, and the other directories with the text
    of their owners."""
    lines = output.splitlines()
    path = lines[0].strip() if lines else ""
    others = []
    for line in lines[1:]:
        words = line.split(" ", 2)
        if len(words) == 3 and words[0] == "OWNER":
            others.append((words[1], words[2]))
    return path, others


def left_over(
    others: Sequence[tuple[str, str]],
    me: Owner,
    proc: Path = Path("/proc"),
    *,
    pattern: re.Pattern[str] = WORKDIR,
) -> list[str]:
    """The directories of ``others`` (each a path matching ``pattern``) whose owner ran
    on this machine since its boot and runs no more."""
    out = []
    for path, text in others:
        owner = Owner.parse(text)
        if owner is None or owner.boot != me.boot or not pattern.fullmatch(path):
            continue
        if owner == me or process(proc, owner.pid, me.boot) == owner:
            continue  # it still runs
        out.append(path)
    return out


def owned_here(path: Path, prefix: str) -> None:
    """Write this run's owner into ``path`` (a directory ``tempfile.mkdtemp(prefix=…)``
    made on this machine) and remove the others of that ``prefix`` whose runs are gone
    (best effort)."""
    me = this_run()
    if me is None:
        return
    (path / OWNER_FILE).write_text(me.text() + "\n", encoding="ascii")
    others = []
    for other in Path(tempfile.gettempdir()).glob(f"{prefix}*/{OWNER_FILE}"):
        try:
            others.append((str(other.parent), other.read_text(encoding="ascii")[:200]))
        except (OSError, UnicodeDecodeError):
            continue
    pattern = re.compile(re.escape(tempfile.gettempdir()) + "/" + re.escape(prefix) + r"[\w]+")
    for gone in left_over(others, me, pattern=pattern):
        shutil.rmtree(gone, ignore_errors=True)
