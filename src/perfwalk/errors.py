"""The one error hierarchy of perfwalk.

Every error a user can cause is a :class:`PerfwalkError`. Its message names the
file, key, host or commit at fault; ``hint`` says what to do about it. The CLI
prints ``error: <message>`` and ``hint: <hint>`` and exits with ``exit_code``;
nothing below the CLI prints.
"""

from __future__ import annotations


class PerfwalkError(Exception):
    """Base of every user-facing error."""

    exit_code = 2

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class ConfigError(PerfwalkError):
    """A configuration file is missing, unreadable or invalid.

    ``path`` is the file, ``key`` the dotted key path (``test.iperf.timeout``).
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        key: str | None = None,
        hint: str | None = None,
    ) -> None:
        where = ": ".join(part for part in (path, key) if part)
        super().__init__(f"{where}: {message}" if where else message, hint=hint)
        self.path = path
        self.key = key


class UsageError(PerfwalkError):
    """A command-line argument is wrong (bad step, bad date, unknown id)."""


class GitError(PerfwalkError):
    """A git operation failed: missing repository, unknown commit-ish, empty range."""


class HostError(PerfwalkError):
    """A host cannot be reached or refused an operation."""


class StoreError(PerfwalkError):
    """The result store cannot be opened, migrated or written."""


class StoreUnavailable(StoreError):
    """The result store cannot be reached now: its server is down or unreachable, the
    connection was lost, the file stayed locked. Trying again later may work."""


class ParseError(PerfwalkError):
    """A parser found no value in a test's output; the test is FAIL with this message."""


class BuildError(PerfwalkError):
    """A checkout could not be prepared or built."""


class Interrupted(KeyboardInterrupt):
    """A stop asked by a signal: SIGINT (Ctrl-C), SIGTERM or SIGHUP.

    It is a KeyboardInterrupt, so every layer stops as it does for Ctrl-C (the
    running test's reset phase runs, its process group is killed, the series is
    marked interrupted); the CLI exits with 128 + ``signum``. Not an error: nothing
    went wrong, someone asked perfwalk to stop.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
