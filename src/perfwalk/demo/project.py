"""Create the demo project: a git history with known performance events.

:func:`create_project` writes, under a folder ``root``:

* ``project/``: the git repository of ``checksum`` (see :mod:`perfwalk.demo.story`),
  its working tree checked out at the last commit;
* ``quirks/old-build.patch``: the Makefile fix that builds the checkouts before
  it was made upstream (``git diff`` of the fixing commit, so it applies to
  every earlier commit: the Makefile does not change before it);
* ``perfwalk.toml``: the walk of the whole history, one checkout a day, five
  repetitions of ``./bench``;
* ``known-changes.json``: the events a walk must find, with their commits.

The result is the same on every machine and every run: the same files, the
same commit ids. Commits are written by one ``git fast-import`` process, with
no git configuration read (no user identity needed).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import IO, Literal

from perfwalk.demo import story
from perfwalk.errors import PerfwalkError, UsageError

#: The test and metrics of the demo's benchmark, as perfwalk.toml names them.
TEST = "checksum"
TIME_METRIC = "checksum"  # microseconds per 64 KiB, lower is better
RATE_METRIC = "throughput"  # bytes/sec, higher is better

#: Relative change of the time metric, as measured on a 2-core x86-64 machine
#: with GCC 12 (+34 % and -24 %; sets of five runs vary by 1 to 4 %, relative
#: standard deviation, depending on the machine's load).
SLOWER_SIZE = 0.33
FASTER_SIZE = -0.25
#: the slowdown of the demo's extra night (:func:`add_night`): +39 % on that machine
NIGHT_SLOWER_SIZE = 0.4

PATCH = Path("quirks") / "old-build.patch"
#: The tag of the "Release 1.0" commit, a [[release]] of the demo's configuration.
RELEASE_TAG = "v1.0"
CONFIG = "perfwalk.toml"
KNOWN_CHANGES = "known-changes.json"
BRANCH = "main"

EventDirection = Literal["slower", "faster", "broken-build"]


@dataclass(frozen=True)
class KnownEvent:
    """A change that a walk of the demo history must find.

    ``commit`` is the commit that made it (for ``broken-build``: the first
    commit that does not build; ``fixed_by`` the first that builds again and
    ``broken`` every commit in between, both ends as listed). ``size`` is the
    relative change of ``metric`` the code was written to make (+0.33: a third
    more time); what a machine measures depends on its compiler and processor.
    """

    direction: EventDirection
    commit: str
    date: datetime
    subject: str
    description: str
    test: str | None = None
    metric: str | None = None
    size: float | None = None
    fixed_by: str | None = None
    broken: tuple[str, ...] = ()


@dataclass(frozen=True)
class QuirkRange:
    """The checkouts that need ``patch`` to build: ``first`` up to, not including, ``until``."""

    first: str
    until: str
    commits: tuple[str, ...]
    patch: Path
    comment: str


@dataclass(frozen=True)
class DemoProject:
    """What :func:`create_project` made: paths, commit ids (oldest first) and known events."""

    root: Path
    repo: Path
    config: Path
    known_changes: Path
    commits: tuple[str, ...]
    events: tuple[KnownEvent, ...]
    quirk: QuirkRange

    def event(self, direction: EventDirection) -> KnownEvent:
        """The known event of that direction (there is one of each)."""
        for event in self.events:
            if event.direction == direction:
                return event
        raise KeyError(direction)


class DemoError(PerfwalkError):
    """The demo project could not be written: git is missing or failed."""


def create_project(root: Path) -> DemoProject:
    """Write the demo project under ``root`` (created if missing) and describe it.

    Refuses a ``root/project`` that exists and is not empty; the other files
    are rewritten.
    """
    root = Path(root).absolute()
    repo = root / "project"
    if repo.exists() and any(repo.iterdir()):
        raise UsageError(
            f"{repo} already exists and is not empty",
            hint="remove it, or give the demo another folder",
        )
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q", f"--initial-branch={BRANCH}")
    commits = _import_history(repo)
    _git(repo, "reset", "-q", "--hard", BRANCH)
    labels = {change.label: commits[i] for i, change in enumerate(story.CHANGES) if change.label}
    _git(repo, "tag", RELEASE_TAG, labels["release"])  # [[release]] at = "v1.0"

    quirk = _write_patch(root, repo, commits, labels)
    events = _events(commits, labels)
    config = root / CONFIG
    config.write_text(_config_text(quirk), encoding="utf-8")
    known = root / KNOWN_CHANGES
    known.write_text(_known_changes_text(events), encoding="utf-8")
    return DemoProject(
        root=root,
        repo=repo,
        config=config,
        known_changes=known,
        commits=tuple(commits),
        events=events,
        quirk=quirk,
    )


def add_night(project: DemoProject) -> tuple[DemoProject, KnownEvent]:
    """Commit the story's :data:`~perfwalk.demo.story.NIGHT` on the project's branch
    (its working tree follows) and add its slowdown to ``known-changes.json``: the
    project as it is now, and that event."""
    tree: dict[str, str] = {}
    for change in story.CHANGES:
        for op in change.ops:
            _apply(tree, op)
    labels = {c.label: project.commits[i] for i, c in enumerate(story.CHANGES) if c.label}
    night = _import(project.repo, story.NIGHT, tree, parent=project.commits[-1], labels=labels)
    _git(project.repo, "reset", "-q", "--hard", BRANCH)
    at = next(i for i, change in enumerate(story.NIGHT) if change.label == "night-slower")
    change = story.NIGHT[at]
    event = KnownEvent(
        direction="slower",
        commit=night[at],
        date=commit_date(change),
        subject=change.subject,
        description=(
            "cksum_update() counts every byte value in a second pass over each block:"
            f" bench takes about {NIGHT_SLOWER_SIZE:.0%} more time"
        ),
        test=TEST,
        metric=TIME_METRIC,
        size=NIGHT_SLOWER_SIZE,
    )
    events = (*project.events, event)
    project.known_changes.write_text(_known_changes_text(events), encoding="utf-8")
    grown = dataclasses.replace(project, commits=(*project.commits, *night), events=events)
    return grown, event


# The history.


def _import_history(repo: Path) -> list[str]:
    """Commit every change of the story with one fast-import; the ids, oldest first."""
    return _import(repo, story.CHANGES, {}, parent=None, labels={})


def _import(
    repo: Path,
    changes: Sequence[story.Change],
    tree: dict[str, str],
    *,
    parent: str | None,
    labels: Mapping[str, str],
) -> list[str]:
    """Commit ``changes`` on :data:`BRANCH` with one fast-import, the first on
    ``parent`` whose files are ``tree`` (None: a new history); the ids, oldest first.
    ``labels`` are the commits earlier changes may name in their messages."""
    argv = ["git", "-C", str(repo), "fast-import", "--quiet", "--done", "--date-format=raw"]
    with tempfile.TemporaryFile() as stderr:
        with subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=_env()
        ) as process:
            assert process.stdin is not None
            assert process.stdout is not None
            try:
                commits = _feed(
                    process.stdin, process.stdout, changes, tree, parent=parent, known=labels
                )
                process.stdin.write(b"done\n")
                process.stdin.close()
            except (BrokenPipeError, _Stopped):
                commits = []
            status = process.wait()
        stderr.seek(0)
        message = stderr.read().decode("utf-8", errors="replace").strip()
    if status != 0 or len(commits) != len(changes):
        raise DemoError(f"git fast-import failed in {repo}: {message or f'exit status {status}'}")
    return commits


class _Stopped(Exception):
    """git fast-import stopped answering (it wrote why on its standard error)."""


def _feed(
    stdin: IO[bytes],
    stdout: IO[bytes],
    changes: Sequence[story.Change],
    tree: dict[str, str],
    *,
    parent: str | None,
    known: Mapping[str, str],
) -> list[str]:
    commits: list[str] = []
    labels = dict(known)
    last = datetime.min.replace(tzinfo=UTC)
    for mark, change in enumerate(changes, start=1):
        before = dict(tree)
        for op in change.ops:
            _apply(tree, op)
        when = commit_date(change)
        if when <= last:
            raise ValueError(f"change {mark} ({change.subject!r}) is not after the one before")
        last = when
        author = story.AUTHORS[change.author]
        ident = f"{author.name} <{author.email}> {int(when.timestamp())} {author.tz}"
        out = [f"commit refs/heads/{BRANCH}\nmark :{mark}\n".encode()]
        out.append(f"author {ident}\ncommitter {ident}\n".encode())
        out.append(_data(_message(change, labels)))
        if mark == 1 and parent is not None:
            out.append(f"from {parent}\n".encode())
        for path in sorted(tree):
            if before.get(path) != tree[path]:
                mode = "100755" if path.endswith(".sh") else "100644"
                out.append(f"M {mode} inline {path}\n".encode())
                out.append(_data(tree[path]))
        out.append(f"\nget-mark :{mark}\n".encode())
        stdin.write(b"".join(out))
        stdin.flush()
        commit = stdout.readline().decode().strip()
        if not re.fullmatch(r"[0-9a-f]{40}", commit):
            raise _Stopped(commit)
        commits.append(commit)
        if change.label:
            labels[change.label] = commit
    return commits


def commit_date(change: story.Change) -> datetime:
    """The author and committer date of a change (UTC)."""
    hours, minutes = (int(part) for part in change.time.split(":"))
    start = datetime.fromisoformat(story.START).replace(tzinfo=UTC)
    return start + timedelta(days=change.day, hours=hours, minutes=minutes)


def _message(change: story.Change, labels: Mapping[str, str]) -> str:
    def commit_id(match: re.Match[str]) -> str:
        return labels[match.group(1)][: int(match.group(2) or 12)]

    body = re.sub(r"\{\{([\w-]+)(?::(\d+))?\}\}", commit_id, change.body)
    return f"{change.subject}\n\n{body}\n" if body else f"{change.subject}\n"


def _data(text: str) -> bytes:
    raw = text.encode("utf-8")
    return b"data %d\n%s\n" % (len(raw), raw)


def _apply(tree: dict[str, str], op: story.Op) -> None:
    match op:
        case story.Put(path, text):
            tree[path] = text
        case story.Source(path, name):
            tree[path] = source_file(name)
        case story.Edit(path, old, new):
            text = tree[path]
            if text.count(old) != 1:
                raise ValueError(f"{path}: expected one {old!r}, found {text.count(old)}")
            tree[path] = text.replace(old, new)
        case story.Vector(text):
            data = text.encode("utf-8")
            tree["tests/vectors.txt"] += f"{story.crc(data)} {len(data)} {text}".rstrip() + "\n"
        case story.Note(text):
            log = tree["CHANGELOG.md"]
            start = log.index("## Unreleased\n\n") + len("## Unreleased\n\n")
            end = log.find("\n\n", start)
            end = len(log) - 1 if end < 0 else end
            tree["CHANGELOG.md"] = f"{log[: end + 1]}- {text}\n{log[end + 1 :]}"


def source_file(name: str) -> str:
    """The text of the package data file ``files/<name>`` (a C source version)."""
    return resources.files("perfwalk.demo").joinpath("files", name).read_text(encoding="utf-8")


# The quirk, the events, the files that describe them.


def _write_patch(
    root: Path, repo: Path, commits: list[str], labels: Mapping[str, str]
) -> QuirkRange:
    until = labels["old-build-fixed"]
    first = labels["first"]
    diff = _git(repo, "diff", "--full-index", "--no-color", "--no-ext-diff", f"{until}^", until)
    path = root / PATCH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(diff)
    end = commits.index(until)
    return QuirkRange(
        first=first,
        until=until,
        commits=tuple(commits[commits.index(first) : end]),
        patch=path,
        comment=(
            "the first checkouts do not build with GCC 12 (-Werror and a -Waddress"
            " warning in main.c); the patch drops -Werror, as the fix did"
        ),
    )


def _events(commits: list[str], labels: Mapping[str, str]) -> tuple[KnownEvent, ...]:
    by_label = {change.label: change for change in story.CHANGES if change.label}

    def about(label: str) -> tuple[str, datetime, str]:
        change = by_label[label]
        return labels[label], commit_date(change), change.subject

    slower, slower_date, slower_subject = about("slower")
    broken, broken_date, broken_subject = about("broken")
    faster, faster_date, faster_subject = about("faster")
    fixed = labels["broken-fixed"]
    return (
        KnownEvent(
            direction="slower",
            commit=slower,
            date=slower_date,
            subject=slower_subject,
            description=(
                "-l counts the newlines in a second pass over every block:"
                f" bench takes about {SLOWER_SIZE:.0%} more time"
            ),
            test=TEST,
            metric=TIME_METRIC,
            size=SLOWER_SIZE,
        ),
        KnownEvent(
            direction="broken-build",
            commit=broken,
            date=broken_date,
            subject=broken_subject,
            description=(
                "checksum.h includes cksum.h, which was not added until the fix:"
                " no checkout in between builds"
            ),
            fixed_by=fixed,
            broken=tuple(commits[commits.index(broken) : commits.index(fixed)]),
        ),
        KnownEvent(
            direction="faster",
            commit=faster,
            date=faster_date,
            subject=faster_subject,
            description=(
                "the newline count moves into the CRC loop: one pass again,"
                f" bench takes about {-FASTER_SIZE:.0%} less time"
            ),
            test=TEST,
            metric=TIME_METRIC,
            size=FASTER_SIZE,
        ),
    )


def _known_changes_text(events: tuple[KnownEvent, ...]) -> str:
    entries: list[dict[str, object]] = []
    for event in events:
        entry: dict[str, object] = {
            "commit": event.commit,
            "date": event.date.isoformat(),
            "subject": event.subject,
            "test": event.test,
            "metric": event.metric,
            "direction": event.direction,
            "size": event.size,
            "description": event.description,
        }
        if event.size is not None:
            entry["sizes"] = {
                TIME_METRIC: event.size,
                RATE_METRIC: round(1 / (1 + event.size) - 1, 2),
            }
        if event.fixed_by is not None:
            entry["fixed_by"] = event.fixed_by
            entry["broken"] = list(event.broken)
        entries.append(entry)
    return json.dumps(entries, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _config_text(quirk: QuirkRange) -> str:
    def q(text: str) -> str:
        return json.dumps(text, ensure_ascii=False, allow_nan=False)

    return f"""\
# perfwalk's demo: the history of "checksum", a small C tool with its own
# benchmark, written by perfwalk.demo. known-changes.json lists what a walk
# must find: a slowdown, a speed-up and a broken build.

[project]
name = "checksum"
repo = "project"
branch = {q(BRANCH)}
commit_url = "https://git.example.org/checksum/commit/{{commit}}"

[build]
steps = ["make -s"]
timeout = 120

[run]
from = "2026-01-06"
to = "2026-02-16"
step = "1day"
repetitions = 5
between = "keep"

[[test]]
name = {q(TEST)}
command = "./bench"
parser = "value"
timeout = 30

[test.metrics.{TIME_METRIC}]
direction = "lower"
summary = "median"

[test.metrics.{RATE_METRIC}]
direction = "higher"
summary = "median"

# The walk that `perfwalk watch --once` continues every night with what landed,
# then drills the new changes, publishes the site and notifies.
[[walk]]
name = "nightly"
from = "2026-01-06"
to = "HEAD"
step = "1day"

[watch]
site = "site"

# `perfwalk serve --out site` serves the site there: notifications link to it
[report]
base_url = "http://127.0.0.1:8000"

# Releases: lines on every plot, and windows above them ("1.0 → now").
[[release]]
name = "1.0-rc"
at = "2026-01-26"
comment = "the first release candidate, given by its date"

[[release]]
name = "1.0"
at = {q(RELEASE_TAG)}
comment = "given by its tag"

[[quirk]]
at = {q(quirk.first)}
until = {q(quirk.until)}
comment = {q(quirk.comment)}
patch = {q(PATCH.as_posix())}
"""


# git.


def _env() -> dict[str, str]:
    """The caller's environment without git's variables and configuration files."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
    )
    return env


def _git(repo: Path, *args: str) -> bytes:
    argv = ["git", "-C", str(repo), "-c", f"core.hooksPath={os.devnull}", *args]
    try:
        result = subprocess.run(
            argv, capture_output=True, env=_env(), check=False, stdin=subprocess.DEVNULL
        )
    except FileNotFoundError:
        raise DemoError(
            "git is not installed (no 'git' on PATH)", hint="install git (apt-get install git)"
        ) from None
    if result.returncode != 0:
        reason = result.stderr.decode("utf-8", errors="replace").strip()
        raise DemoError(f"git {args[0]} failed in {repo}: {reason}")
    return result.stdout
