"""The instruments of a test (``[[test.instrument]]``): measurements of its command
beside its own values, stored as values of the test (:mod:`perfwalk.config.instruments`
declares the kinds and their metrics; docs/instruments.md tells what each measures).

Each kind is an :class:`Instrument`: the words it places before the test's command
(``sh -c <command>``, after ``taskset`` when the test is pinned) to measure it into
a file on the command's host, and how it reads that file back (and removes it) as
values. Several instruments of one test nest in the order the test lists them.

Before an instrument first measures on a host, :class:`Instruments` asks it once
whether it can there (the answer kept for the walk). Where it cannot, the test runs
without it and stores none of its metrics (never a zero); the first result of the
test on that host in the walk says why in its message (its status unchanged). An
instrument that could not read its measurement back says so the same way, in the
message of that result. Warm-up runs are not measured.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from perfwalk.config.model import InstrumentConfig
from perfwalk.hosts.base import Completed
from perfwalk.model import Value
from perfwalk.orchestrate.hosts.topology import Member
from perfwalk.orchestrate.steps.recorder import step_status, why


class Instrument(Protocol):
    """One kind of instrument."""

    @property
    def kind(self) -> str: ...

    def unavailable(self, member: Member) -> str | None:
        """Why it cannot measure on ``member``'s host (None: it can); asked once per
        host and walk."""
        ...

    def wrapper(self, member: Member, path: str) -> tuple[str, ...]:
        """The words placed before the command to measure it into ``path``."""
        ...

    def read(self, member: Member, path: str) -> tuple[tuple[Value, ...], str]:
        """The values measured into ``path`` (the file removed), or none and why."""
        ...


@dataclass(frozen=True)
class Armed:
    """The instruments that measure one run of a test's command on ``member``: the
    words before it, each instrument with its file, and what to say of the others."""

    member: Member | None = None
    prefix: tuple[str, ...] = ()
    measuring: tuple[tuple[Instrument, str], ...] = ()
    notes: tuple[str, ...] = ()

    def read(self, done: Completed) -> tuple[tuple[Value, ...], tuple[str, ...]]:
        """What the instruments measured of the command that ``done`` reports, and
        the notes of the run (nothing measured of a command that never started or
        whose host is gone)."""
        if self.member is None or (done.returncode is None and (done.error or done.host_lost)):
            return (), self.notes
        values: list[Value] = []
        notes = list(self.notes)
        for instrument, path in self.measuring:
            found, problem = instrument.read(self.member, path)
            values.extend(found)
            if problem and done.returncode is not None:  # a killed run has no measure
                notes.append(f"{instrument.kind}: {problem}")
        return tuple(values), tuple(notes)


#: nothing measured: a warm-up, a test without instruments
UNARMED = Armed()

#: seconds allowed to read a measurement back from a host
READ_TIMEOUT = 60.0


def read_back(member: Member, path: str, limit: int) -> tuple[str | None, str]:
    """The text an instrument measured into the file ``path`` on ``member``'s host (at
    most ``limit`` bytes), the file removed; (None, why) when it could not be read."""
    argv = ("sh", "-c", 'cat -- "$0" && rm -f -- "$0"', path)
    done = member.host.run(argv, timeout=READ_TIMEOUT, output_limit=limit)
    if done.returncode != 0:
        return (
            None,
            f"no measurement read back on host {member.name}: {why(done, step_status(done))}",
        )
    return done.stdout.text(), ""


class Instruments:
    """The walk's instruments: each kind by its name, each asked once per host
    whether it can measure there, each host's inability told once."""

    def __init__(self, kinds: Mapping[str, Instrument]) -> None:
        self._kinds = kinds
        self._unavailable: dict[tuple[str, str], str | None] = {}
        self._told: set[tuple[str, str, str]] = set()
        self._lock = threading.Lock()

    def arm(
        self, test: str, configs: Sequence[InstrumentConfig], member: Member, base: str
    ) -> Armed:
        """The instruments ``configs`` of ``test`` for one run on ``member``, each
        measuring into a file named after ``base``."""
        if not configs:
            return UNARMED
        prefix: list[str] = []
        measuring: list[tuple[Instrument, str]] = []
        notes: list[str] = []
        for config in configs:
            instrument = self._kinds[config.kind]
            problem = self._problem(instrument, member)
            if problem is None:
                path = f"{base}.{config.kind}"
                prefix.extend(instrument.wrapper(member, path))
                measuring.append((instrument, path))
            elif self._first_time(test, config.kind, member.name):
                notes.append(f"{config.kind}: not measured on host {member.name}: {problem}")
        return Armed(member, tuple(prefix), tuple(measuring), tuple(notes))

    def _problem(self, instrument: Instrument, member: Member) -> str | None:
        key = (instrument.kind, member.name)
        with self._lock:
            if key in self._unavailable:
                return self._unavailable[key]
        problem = instrument.unavailable(member)
        with self._lock:
            self._unavailable[key] = problem
        return problem

    def _first_time(self, test: str, kind: str, host: str) -> bool:
        with self._lock:
            if (test, kind, host) in self._told:
                return False
            self._told.add((test, kind, host))
            return True
