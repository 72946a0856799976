"""Run a list of shell steps on a host in a checkout's directory, as one log."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfwalk.hosts.base import Host
from perfwalk.model import Log, Status
from perfwalk.orchestrate.steps.recorder import why


@dataclass(frozen=True)
class StepsOutcome:
    """What a list of steps did: the worst status, the time, one combined log."""

    status: Status
    seconds: float
    log: Log
    failed: str | None  # the step that failed, if any


def run_steps(
    host: Host,
    steps: Sequence[str],
    *,
    cwd: str,
    timeout: float,
    env: Mapping[str, str],
    output_limit: int,
    failure: Status,
) -> StepsOutcome:
    """Run ``steps`` in order with ``sh -c``; stop at the first that fails.

    Any failure of a step (exit status, timeout, could not start, host lost) gives
    ``failure``: NOEXIST for a build, NOCLEAN for a command between repetitions;
    the log says which and why.
    """
    parts: list[bytes] = []
    total = 0
    truncated = False
    seconds = 0.0
    for step in steps:
        done = host.run(
            ["sh", "-c", step], timeout=timeout, env=env, cwd=cwd, output_limit=output_limit
        )
        seconds += done.duration
        parts.append(f"$ {step}\n".encode())
        for stream in (done.stdout, done.stderr):
            parts.append(stream.data)
            total += stream.total
            truncated = truncated or stream.truncated
        reason = why(done, failure)
        if reason:
            parts.append(f"\n[{failure.name}: {reason}]\n".encode())
            log = Log(b"".join(parts), total=total, truncated=truncated)
            return StepsOutcome(failure, seconds, log, step)
    return StepsOutcome(Status.PASS, seconds, Log(b"".join(parts), total, truncated), None)


def joined(first: StepsOutcome, then: StepsOutcome) -> StepsOutcome:
    """Two outcomes as one: the worse status, the time and the logs of both."""
    log = Log(
        data=first.log.data + then.log.data,
        total=first.log.total + then.log.total,
        truncated=first.log.truncated or then.log.truncated,
    )
    status = Status.worst([first.status, then.status])
    return StepsOutcome(status, first.seconds + then.seconds, log, first.failed or then.failed)
