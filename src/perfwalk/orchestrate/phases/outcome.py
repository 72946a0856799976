"""Judge one test execution: status, message and values from what the host reported."""

from __future__ import annotations

from dataclasses import dataclass

from perfwalk.errors import ParseError
from perfwalk.hosts.base import Completed
from perfwalk.model import Status, Value
from perfwalk.parsers import Parser


@dataclass(frozen=True)
class Outcome:
    status: Status
    message: str
    values: tuple[Value, ...]


def judge(completed: Completed, parser: Parser, timeout: float) -> Outcome:
    """The status of one execution, by the first rule that matches:

    NORUN (could not start), NOTERM (killed at its timeout, or its host was lost
    while it ran), NOEXIT (exit status
    not 0), FAIL (the parser found no value in stdout, nor in stderr), PASS.
    Values are parsed whatever the status, so partial output is not lost; analysis
    counts PASS values only.
    """
    if completed.error is not None:
        return Outcome(Status.NORUN, completed.error, ())
    values, parse_message = _parse(completed, parser)
    if completed.host_lost:
        return Outcome(
            Status.NOTERM, "the host was lost while the command ran; partial output kept", values
        )
    if completed.timed_out:
        return Outcome(Status.NOTERM, f"timed out after {timeout:g} s", values)
    if completed.returncode != 0:
        code = completed.returncode
        why = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
        return Outcome(Status.NOEXIT, why, values)
    if not values:
        return Outcome(Status.FAIL, parse_message, ())
    return Outcome(Status.PASS, f"{len(values)} values in {completed.duration:.3f} s", values)


def _parse(completed: Completed, parser: Parser) -> tuple[tuple[Value, ...], str]:
    """Values from stdout, else from stderr (where ``time -p`` writes)."""
    message = ""
    for stream in (completed.stdout, completed.stderr):
        try:
            return parser(stream.text()), ""
        except ParseError as error:
            message = message or str(error)
    return (), message or "no value found"
