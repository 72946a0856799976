"""Profile a test's command where it runs: under ``perf record`` or the configured
profiler (``[test.profile]``), then read its stacks back as folded stacks.

- ``tool = "perf"``: the command runs as ``perf record -q -g -F <frequency> [-e <event>]
  -o <file> -- sh -c <command>``; afterwards ``perf script -i <file>`` on the same host
  gives the text :mod:`perfwalk.parsers.perf_script` folds; the file is removed.
- ``tool = "command"``: the command runs as ``sh -c '<profiler> "$@"' … sh -c <command>``,
  the profiler's ``{profile}`` replaced by the file (shell-quoted); the file holds folded
  text (:func:`perfwalk.folded.parse_folded`), read with ``cat`` and removed.

Before the first profiled run on a host, :class:`Profiler` checks once that the
profiler can record there (``perf record … -- true``; ``command -v`` of the profiler's
first word): when it cannot, the test runs without it and keeps its values, and the
profile is recorded XFAIL with the reason, the host and the remedy. A profile that
gives no sample is XFAIL too.
"""

from __future__ import annotations

import shlex
import threading
from dataclasses import dataclass, field

from perfwalk.config.model import ProfileConfig
from perfwalk.folded import MOST_PROFILE_BYTES, FoldedStacks, parse_folded
from perfwalk.model import Status
from perfwalk.orchestrate.hosts.topology import Member
from perfwalk.orchestrate.steps.placeholders import substitute
from perfwalk.parsers import perf_script

#: seconds allowed to check a profiler, to read a profile back, to remove its file
PROBE_TIMEOUT = 60.0
READ_TIMEOUT = 600.0

PERF_HINT = (
    "install perf on that host (Debian: apt-get install linux-perf) and let it sample: "
    "run as root or set sysctl kernel.perf_event_paranoid=1; on a virtual machine without "
    'hardware counters keep event = "cpu-clock"'
)


@dataclass(frozen=True)
class ProfileRequest:
    """Profile the run of ``role`` ("" = the test's command) into ``path`` on its host."""

    config: ProfileConfig
    role: str
    path: str


@dataclass(frozen=True)
class CapturedProfile:
    """What one profiled run gave: its stacks, or (XFAIL) why it has none."""

    role: str
    host: str
    tool: str
    event: str
    status: Status
    message: str
    stacks: FoldedStacks = field(default_factory=dict)


def event_of(config: ProfileConfig) -> str:
    """The event as stored: perf's, or the profiler command's first word."""
    if config.tool == "perf":
        return config.event or "default"
    return config.command.split(maxsplit=1)[0] if config.command.strip() else ""


def failed(config: ProfileConfig, role: str, member: Member, message: str) -> CapturedProfile:
    return CapturedProfile(
        role, member.name, config.tool, event_of(config), Status.XFAIL, message, {}
    )


def _perf_record(config: ProfileConfig, path: str) -> tuple[str, ...]:
    event = ("-e", config.event) if config.event else ()
    return ("perf", "record", "-q", "-g", "-F", str(config.frequency), *event, "-o", path, "--")


def wrapper(config: ProfileConfig, path: str) -> tuple[str, ...]:
    """The argv placed before ``sh -c <command>`` to profile it into ``path``."""
    if config.tool == "perf":
        return _perf_record(config, path)
    profiler = substitute(config.command, {"profile": path}, key="test.profile.command")
    return ("sh", "-c", f'{profiler} "$@"', "profiler")


class Profiler:
    """Checks each profiler once per host (the answer kept for the walk), and reads
    profiles back."""

    def __init__(self) -> None:
        self._checked: dict[tuple[str, str, str, int], str | None] = {}
        self._lock = threading.Lock()

    def unavailable(self, member: Member, config: ProfileConfig) -> str | None:
        """Why ``config``'s profiler cannot record on ``member`` (None: it can)."""
        key = (member.name, config.tool, config.event + config.command, config.frequency)
        with self._lock:
            if key in self._checked:
                return self._checked[key]
        problem = self._check(member, config)
        with self._lock:
            self._checked[key] = problem
        return problem

    def _check(self, member: Member, config: ProfileConfig) -> str | None:
        if config.tool == "perf":
            argv = (*_perf_record(config, "/dev/null"), "true")
            hint = PERF_HINT
        else:
            first = config.command.split(maxsplit=1)[0]
            argv = ("sh", "-c", f"command -v {shlex.quote(first)}")
            hint = f"install {first} on that host, or fix [test.profile] command"
        done = member.host.run(argv, timeout=PROBE_TIMEOUT, output_limit=1 << 16)
        if done.returncode == 0:
            return None
        said = (done.stderr.text() + "\n" + done.stdout.text()).strip().splitlines()
        reason = done.error or (said[-1] if said else f"exit status {done.returncode}")
        what = "perf" if config.tool == "perf" else config.command.split(maxsplit=1)[0]
        return f"{what} cannot profile on host {member.name}: {reason}; {hint}"

    def read(self, member: Member, request: ProfileRequest) -> CapturedProfile:
        """The stacks written to ``request.path`` on ``member``; the file removed."""
        config = request.config
        if config.tool == "perf":
            argv: tuple[str, ...] = ("perf", "script", "-i", request.path)
        else:
            argv = ("cat", request.path)
        try:
            done = member.host.run(argv, timeout=READ_TIMEOUT, output_limit=MOST_PROFILE_BYTES // 2)
        finally:
            member.host.run(("rm", "-f", request.path), timeout=PROBE_TIMEOUT)
        if done.returncode != 0:
            said = done.stderr.text().strip().splitlines()
            reason = done.error or (said[-1] if said else f"exit status {done.returncode}")
            return failed(
                config,
                request.role,
                member,
                f"{' '.join(argv[:2])} failed on host {member.name}: {reason}",
            )
        text = done.stdout.text()
        stacks = perf_script.parse(text) if config.tool == "perf" else parse_folded(text)
        if not stacks:
            return failed(
                config,
                request.role,
                member,
                f"the profile on host {member.name} holds no sample (a run too short for "
                f"{config.frequency} samples per second, or a profiler that wrote nothing)",
            )
        cut = (
            f"the profiler wrote {done.stdout.total} bytes: only the stacks of the first and "
            f"last {MOST_PROFILE_BYTES >> 21} MiB were read"
            if done.stdout.truncated
            else ""
        )
        return CapturedProfile(
            request.role, member.name, config.tool, event_of(config), Status.PASS, cut, stacks
        )


def merged(profiles: list[CapturedProfile]) -> CapturedProfile | None:
    """One profile of several profiled commands of a role: their stacks added up; the
    first failure's status and message when none gave stacks."""
    if not profiles:
        return None
    good = [p for p in profiles if p.status is Status.PASS]
    if not good:
        return profiles[0]
    stacks: FoldedStacks = {}
    for profile in good:
        for stack, samples in profile.stacks.items():
            stacks[stack] = stacks.get(stack, 0) + samples
    bad = [p.message for p in profiles if p.status is not Status.PASS]
    first = good[0]
    return CapturedProfile(
        first.role, first.host, first.tool, first.event, Status.PASS, "; ".join(bad), stacks
    )
