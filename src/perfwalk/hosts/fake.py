"""A scripted host for unit tests of logic: no process is ever started.

``FakeHost`` answers each command from the first :class:`Rule` that matches it and
records every call, so a test can say both "given these outputs" and "these
commands were run, with these timeouts"::

    host = FakeHost([
        Rule(("git", "rev-parse", "HEAD"), stdout="abc123\\n"),
        Rule("iperf3 -c", stdout=IPERF_JSON, times=1),   # first repetition
        Rule("iperf3 -c", returncode=1, stderr="refused"), # every later one
        Rule(lambda argv: argv[0] == "make", duration=3.0),
    ])
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from perfwalk.errors import HostError
from perfwalk.hosts.base import DEFAULT_OUTPUT_LIMIT, INTERRUPTED, Completed
from perfwalk.hosts.capture import Capture
from perfwalk.model import Log

#: What a rule matches: the exact argv, a predicate on it, or a substring of
#: the words joined by single spaces.
Matcher = tuple[str, ...] | list[str] | Callable[[tuple[str, ...]], bool] | str


@dataclass
class Rule:
    """One scripted answer.

    ``times`` limits how often the rule answers (``None``: always); a used-up rule
    is skipped, so rules listed in order script a sequence of answers. A call whose
    ``timeout`` is shorter than ``duration`` times out: ``timed_out`` is set,
    ``returncode`` is None and the duration is the timeout. ``host_lost`` scripts a
    host that vanished (with ``error``: it could not be reached at all).
    """

    match: Matcher
    returncode: int | None = 0
    stdout: bytes | str = b""
    stderr: bytes | str = b""
    duration: float = 0.0
    timed_out: bool = False
    error: str | None = None
    host_lost: bool = False
    times: int | None = None
    used: int = field(default=0, init=False)

    def matches(self, argv: tuple[str, ...]) -> bool:
        if self.times is not None and self.used >= self.times:
            return False
        if isinstance(self.match, str):
            return self.match in " ".join(argv)
        if isinstance(self.match, tuple | list):
            return tuple(self.match) == argv
        return bool(self.match(argv))


@dataclass(frozen=True)
class Call:
    """One recorded call of :meth:`FakeHost.run`."""

    argv: tuple[str, ...]
    timeout: float | None
    env: Mapping[str, str] | None
    cwd: str | None
    output_limit: int = DEFAULT_OUTPUT_LIMIT


class FakeHost:
    """A :class:`~perfwalk.hosts.base.Host` that answers from ``rules``.

    Unknown commands get returncode 127 and an error, or raise AssertionError when
    ``strict``. ``files`` maps remote paths to contents for :meth:`put`/:meth:`get`.
    """

    def __init__(
        self,
        rules: Iterable[Rule] = (),
        *,
        name: str = "fake",
        strict: bool = False,
        files: Mapping[str, bytes] | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._name = name
        self.rules: list[Rule] = list(rules)
        self.strict = strict
        self.files: dict[str, bytes] = dict(files or {})
        self.calls: list[Call] = []
        self.closed = False
        self._clock = clock or (lambda: datetime(2000, 1, 1, tzinfo=UTC))

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"FakeHost({self._name!r}, {len(self.rules)} rules, {len(self.calls)} calls)"

    def add(self, rule: Rule) -> FakeHost:
        """Append ``rule`` (matched after the existing ones); returns the host."""
        self.rules.append(rule)
        return self

    @property
    def commands(self) -> list[tuple[str, ...]]:
        """The argv of every call, in order."""
        return [call.argv for call in self.calls]

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        cancel: threading.Event | None = None,
    ) -> Completed:
        self._check_open()
        command = tuple(argv)
        if isinstance(argv, str | bytes) or not command:
            raise HostError(f"host {self._name}: command must be a non-empty list of words")
        self.calls.append(
            Call(
                argv=command,
                timeout=timeout,
                env=None if env is None else dict(env),
                cwd=cwd,
                output_limit=output_limit,
            )
        )
        rule = next((r for r in self.rules if r.matches(command)), None)
        if rule is None:
            return self._unknown(command)
        rule.used += 1
        timed_out = rule.timed_out or (timeout is not None and rule.duration > timeout)
        if cancel is not None and cancel.is_set():
            return self._cancelled(command)
        return Completed(
            argv=command,
            returncode=None if timed_out or rule.host_lost else rule.returncode,
            stdout=_log(rule.stdout, output_limit),
            stderr=_log(rule.stderr, output_limit),
            started=self._clock(),
            duration=(
                min(rule.duration, timeout) if timed_out and timeout is not None else rule.duration
            ),
            timed_out=timed_out,
            error=rule.error,
            host_lost=rule.host_lost,
        )

    def _cancelled(self, command: tuple[str, ...]) -> Completed:
        return Completed(
            argv=command,
            returncode=None,
            stdout=Log.of(b""),
            stderr=Log.of(b""),
            started=self._clock(),
            duration=0.0,
            error=INTERRUPTED,
        )

    def _unknown(self, command: tuple[str, ...]) -> Completed:
        text = f"{self._name}: no rule matches command: {' '.join(command)}"
        if self.strict:
            known = "\n".join(f"  {rule.match!r}" for rule in self.rules) or "  (none)"
            raise AssertionError(f"{text}\nrules:\n{known}")
        return Completed(
            argv=command,
            returncode=127,
            stdout=Log.of(b""),
            stderr=Log.of(text.encode() + b"\n"),
            started=self._clock(),
            duration=0.0,
            error=text,
        )

    def put(self, local: Path, remote: str) -> None:
        self._check_open()
        try:
            self.files[remote] = Path(local).read_bytes()
        except OSError as exc:
            raise HostError(
                f"host {self._name}: put {local} -> {remote} failed: {exc.strerror}: {local}"
            ) from exc

    def get(self, remote: str, local: Path) -> None:
        self._check_open()
        if remote not in self.files:
            raise HostError(f"host {self._name}: get {remote} failed: no such file: {remote}")
        try:
            Path(local).write_bytes(self.files[remote])
        except OSError as exc:
            raise HostError(
                f"host {self._name}: get {remote} -> {local} failed: {exc.strerror}: {local}"
            ) from exc

    def close(self) -> None:
        self.closed = True

    def _check_open(self) -> None:
        if self.closed:
            raise HostError(f"host {self._name}: used after close()")


def _log(data: bytes | str, limit: int) -> Log:
    capture = Capture(limit)
    capture.feed(data.encode() if isinstance(data, str) else data)
    return capture.to_log()
