"""A stored result parsed again (``perfwalk reparse``), as the walk parsed it when it
ran: its command's stored output read by the test's parser (stdout, else stderr:
:func:`perfwalk.orchestrate.phases.outcome.judge`), the run output of each role with a
parser of its own read by that parser (its values named ``<role>.<value>``), the
instruments' values kept as they were measured, the test's derived metrics computed
again from them all (:mod:`perfwalk.orchestrate.phases.derived_values`).

Its status follows as a walk would have recorded it: a result that was PASS or FAIL
(every other status says something the parse does not change: the command's exit,
its timeout, a lost host, a reset that failed) is PASS when every parser found values,
FAIL when one found none, with the parser's reason. Its message is made again the
same way (the rest of it, the instruments' notes, kept).

A result whose output was cut (the head and tail kept beyond ``[store] log_limit``)
or cannot be read is not parsed again: the parser would see less than the command
printed, and find fewer values. ``refused`` says so, and its values stay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from perfwalk.config.instruments import ALL_INSTRUMENT_METRICS
from perfwalk.config.model import TestConfig
from perfwalk.hosts.base import Completed
from perfwalk.model import EMPTY_LOG, Log, Status, Value
from perfwalk.orchestrate.phases.derived_values import derived_values
from perfwalk.orchestrate.phases.outcome import Outcome, judge
from perfwalk.parsers import Parser
from perfwalk.quantities import many
from perfwalk.store.records import ResultRow, StoredValue, stored_direction
from perfwalk.store.reparses import StoredResult

#: the statuses a parse decides (every other one says what happened to the command)
_PARSED = (Status.PASS, Status.FAIL)
#: how a result's message says a derived metric was left out (derived_values)
_DERIVED = "derived "


@dataclass(frozen=True)
class ResultParsers:
    """The parsers a result of ``test`` is read with: its command's, and each role's
    that has one."""

    test: TestConfig
    main: Parser
    roles: Mapping[str, Parser]


@dataclass(frozen=True)
class Reparsed:
    """A stored result and what it becomes: its status, message and values (those it
    had, with ``refused`` saying why it was not parsed again)."""

    stored: StoredResult
    status: Status
    message: str
    values: tuple[StoredValue, ...]
    refused: str = ""

    @property
    def changed(self) -> bool:
        """Whether its status, message or values are not those stored."""
        old = self.stored.result
        return (
            self.status is not old.status
            or self.message != old.message
            or _comparable(self.values) != _comparable(old.values)
        )


class _Refused(Exception):
    """A log the parse needs cannot be read whole."""


@dataclass(frozen=True)
class StoredLogs:
    """The logs a reparse read, by id, and why each it could not read could not."""

    found: Mapping[int, Log]
    unreadable: Mapping[int, str]

    def whole(self, log_id: int, what: str) -> Log:
        """The log ``log_id`` (``what``: what it holds), whole; refused when it was cut
        or cannot be read."""
        found = self.found.get(log_id)
        if found is None:
            raise _Refused(f"{what} cannot be read: {self.unreadable.get(log_id, 'not stored')}")
        if found.truncated:
            raise _Refused(
                f"{what} was cut to {many(len(found.data), 'byte')} of {found.total} ([store] "
                "log_limit): its values are kept"
            )
        return found


def reparse_result(stored: StoredResult, parsers: ResultParsers, logs: StoredLogs) -> Reparsed:
    """``stored`` parsed again by ``parsers`` from its ``logs``."""
    old = stored.result
    if old.duration is None:  # its command never ran: nothing to parse
        return Reparsed(stored, old.status, old.message, old.values)
    try:
        main = _main(old, parsers, logs)
        roles = {
            role: _role(stored, role, parser, parsers.test, logs)
            for role, parser in parsers.roles.items()
            if stored.role_logs.get(role)
        }
    except _Refused as why:
        return Reparsed(stored, old.status, old.message, old.values, refused=str(why))
    test = parsers.test
    values = [_stored(test, value) for value in main.values]
    values += [value for value in old.values if value.name in ALL_INSTRUMENT_METRICS]
    for role, outcome in roles.items():
        values += [
            _stored(test, Value(f"{role}.{v.name}", v.value, v.unit)) for v in outcome.values
        ]
    measured = [Value(v.name, v.value, v.unit) for v in values]
    derived, left_out = derived_values(test, measured)
    values += [_stored(test, value) for value, _direction in derived]
    if old.status not in _PARSED:
        return Reparsed(stored, old.status, old.message, tuple(values))
    failed = [role for role, outcome in roles.items() if not outcome.values]
    status = Status.worst([main.status, *(Status.FAIL for _ in failed)])
    said = [f"{role}: {roles[role].message or 'no value'}" for role in failed]
    kept = _kept(old.message, (*(f"{role}: " for role in parsers.roles), _DERIVED))
    message = "; ".join(part for part in (main.message, *kept, *said, *left_out) if part)
    return Reparsed(stored, status, message, tuple(values))


def _main(stored: ResultRow, parsers: ResultParsers, logs: StoredLogs) -> Outcome:
    """The command's outcome from its stored outputs (stderr only when stdout gives
    nothing, as the walk reads them)."""
    stdout = logs.whole(stored.stdout_log_id, "its output")
    stderr_cut = ""
    try:
        stderr = logs.whole(stored.stderr_log_id, "its standard error")
    except _Refused as why:
        stderr, stderr_cut = EMPTY_LOG, str(why)
    completed = Completed(
        argv=(),
        returncode=stored.exit_code if stored.exit_code is not None else 0,
        stdout=stdout,
        stderr=stderr,
        started=datetime.now(UTC),
        duration=stored.duration or 0.0,
    )
    outcome = _judged(completed, parsers.main, parsers.test)
    if not outcome.values and stderr_cut:
        raise _Refused(stderr_cut)
    return outcome


def _role(
    stored: StoredResult, role: str, parser: Parser, test: TestConfig, logs: StoredLogs
) -> Outcome:
    """A role's outcome from the stdout of its run commands, one after the other."""
    data = b"".join(
        logs.whole(log_id, f"the output of role {role}").data for log_id in stored.role_logs[role]
    )
    merged = Completed(
        argv=("run", role),
        returncode=0,
        stdout=Log.of(data),
        stderr=EMPTY_LOG,
        started=datetime.now(UTC),
        duration=0.0,
    )
    return _judged(merged, parser, test)


def _judged(completed: Completed, parser: Parser, test: TestConfig) -> Outcome:
    try:
        return judge(completed, parser, test.timeout)
    except RuntimeError as error:  # the parser's own bug, reported by its worker
        raise _Refused(f"its parser failed: {error}") from None


def _stored(test: TestConfig, value: Value) -> StoredValue:
    """``value`` as a walk stores it: the parser's unit, its metric's direction."""
    return StoredValue(
        name=value.name,
        unit=value.unit,
        value=value.value,
        direction=stored_direction(test.metric(value.name, value.unit).direction),
    )


def _kept(message: str, made_again: tuple[str, ...]) -> list[str]:
    """What a stored message says besides its parsers: its parts after the first (the
    command's outcome) that do not begin with one of ``made_again`` (a role's name,
    a derived metric left out)."""
    parts = message.split("; ")[1:]
    return [part for part in parts if not part.startswith(made_again)]


def _comparable(values: tuple[StoredValue, ...]) -> list[tuple[str, str, str, str]]:
    """``values`` in an order of their own, NaN equal to NaN."""
    return sorted((v.name, v.unit, v.direction, repr(v.value)) for v in values)
