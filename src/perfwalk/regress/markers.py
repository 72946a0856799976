"""The status of a test command, and marker-style logs.

A test that runs as a command (a test directory's ``make regress``, a script) gets
its status from the first rule that matches, in this order (design notes,
"Statuses"; the lab tool's regress rules):

==========  ===============================================================
NOEXIST     its directory does not exist
NOCLEAN     the clean command run before it failed
NORUN       it could not be started
NOTERM      it timed out (its process group was killed; output kept)
NOEXIT      its exit status was not 0
FAIL        a line ``FAILED``; the message is the line before each one
XPASS       a line ``UNEXPECTED_PASS`` or ``UNEXPECTED_PASSED``
SKIP        a line ``SKIPPED``
XFAIL       a line ``EXPECTED_FAIL`` or ``EXPECTED_FAILED``
PASS        none of the above
==========  ===============================================================

A marker is a whole line (trailing blanks ignored). The message of a marker
status is the line before the marker (the one naming the subtest), several
joined by ``, ``.

A *marker log* is the output of a whole suite saved elsewhere: sections opened by
``START<TAB>name`` (the lab tool's logs) or ``===> name`` (BSD make entering a
test directory), each judged by the markers; a make error line (``*** Error 1``)
in a section counts as a non-zero exit (NOEXIT). A verdict line
``STATUS<TAB>name[<TAB>message]`` (the lab tool's ``test.result``) gives a test's
status outright, timeouts included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from perfwalk.errors import ParseError
from perfwalk.model import Status
from perfwalk.regress.outcome import ParsedSuite, TestOutcome, numbered

_MARKERS: dict[str, Status] = {
    "FAILED": Status.FAIL,
    "UNEXPECTED_PASS": Status.XPASS,
    "UNEXPECTED_PASSED": Status.XPASS,
    "SKIPPED": Status.SKIP,
    "EXPECTED_FAIL": Status.XFAIL,
    "EXPECTED_FAILED": Status.XFAIL,
}

#: The marker statuses in the order their rules are tried.
_MARKER_ORDER = (Status.FAIL, Status.XPASS, Status.SKIP, Status.XFAIL)

_MAKE_ERROR = re.compile(r"^(?:\S*make(?:\[\d+\])?: )?\*\*\* .*\bError(?: code)? \d+")
_START = re.compile(r"^START\t(?P<name>.+?)\s*$")
_ENTER = re.compile(r"^===> (?P<name>\S.*?)\s*$")
_VERDICT = re.compile(
    r"^(?P<status>" + "|".join(s.name for s in Status) + r")\t(?P<name>[^\t]+?)(?:\t(?P<msg>.*))?$"
)


@dataclass(frozen=True)
class Verdict:
    """A status and its message."""

    status: Status
    message: str = ""


@dataclass
class Markers:
    """The markers found in an output: per marker status, the lines naming the subtests."""

    named: dict[Status, list[str]] = field(default_factory=dict)

    def first(self) -> Verdict | None:
        """The verdict of the first marker rule that matches, or None (no marker)."""
        for status in _MARKER_ORDER:
            if status in self.named:
                return Verdict(status, ", ".join(self.named[status]))
        return None


def find_markers(lines: list[str]) -> Markers:
    """The marker lines of an output and the line before each one."""
    found = Markers()
    previous = ""
    for line in lines:
        text = line.rstrip()
        status = _MARKERS.get(text)
        if status is not None:
            found.named.setdefault(status, []).append(previous.strip() or "(unnamed subtest)")
        previous = text
    return found


def judge_command(
    output: str,
    *,
    returncode: int | None,
    timed_out: bool = False,
    error: str | None = None,
    timeout: float | None = None,
    host_lost: bool = False,
) -> Verdict:
    """The status of a test command that was started, from its exit and its output.

    ``error`` says why it could not start, ``host_lost`` that its host went away
    while it ran (NORUN); ``timed_out`` means it was killed at ``timeout`` seconds
    (NOTERM); otherwise a non-zero ``returncode`` is NOEXIT (negative: killed by
    that signal), then the markers decide.
    """
    if error is not None:
        return Verdict(Status.NORUN, error)
    if host_lost:
        return Verdict(Status.NORUN, "the host was lost while the test ran (output kept)")
    markers = find_markers(output.splitlines())
    marked = markers.first()
    if timed_out:
        limit = f" after {timeout:g} s" if timeout is not None else ""
        return Verdict(Status.NOTERM, f"timed out{limit}; its process group was killed")
    if returncode is None:
        return Verdict(Status.NOTERM, "no exit status (killed)")
    if returncode != 0:
        how = f"killed by signal {-returncode}" if returncode < 0 else f"exit status {returncode}"
        if marked is not None and marked.status is Status.FAIL:
            how += f" (FAILED: {marked.message})"
        return Verdict(Status.NOEXIT, how)
    return marked or Verdict(Status.PASS)


def has_markers(text: str) -> bool:
    """Whether ``text`` has anything of a marker log: a section, a verdict line, a
    marker line or a make error line. Text without any (a crash message, a
    program's usage) says nothing about any test."""
    for line in text.splitlines():
        if (
            _START.match(line)
            or _ENTER.match(line)
            or _VERDICT.match(line)
            or line.rstrip() in _MARKERS
            or _MAKE_ERROR.match(line)
        ):
            return True
    return False


def parse_markers(text: str, default_name: str) -> ParsedSuite:
    """The tests of a marker log (see the module's docstring).

    A log without any section or verdict line is one test called ``default_name``.
    An empty log is a :class:`ParseError`: there is nothing to import.
    """
    if not text.strip():
        raise ParseError(
            f"{default_name}: the marker log is empty",
            hint="give the saved output of the suite (sections START<TAB>name or ===> name)",
        )
    lines = text.splitlines()
    sections: list[tuple[str, list[str]]] = []
    verdicts: dict[str, Verdict] = {}
    preamble: list[str] = []
    current: list[str] = preamble
    for line in lines:
        start = _START.match(line) or _ENTER.match(line)
        if start is not None:
            current = [line]
            sections.append((start.group("name"), current))
            continue
        said = _VERDICT.match(line)
        if said is not None:
            verdicts.setdefault(said["name"], Verdict(Status[said["status"]], said["msg"] or ""))
        current.append(line)
    if not sections and not verdicts:
        sections = [(default_name, preamble)]
    outcomes = []
    judged = set()
    for name, body in sections:
        verdict = verdicts.get(name) if name not in judged else None
        judged.add(name)
        if verdict is None:
            verdict = _judge_section(body[1:] if body is not preamble else body)
        outcomes.append(TestOutcome(name, verdict.status, verdict.message, _join(body)))
    outcomes += [
        TestOutcome(name, verdict.status, verdict.message)
        for name, verdict in verdicts.items()
        if name not in judged
    ]
    return ParsedSuite(numbered(outcomes))


def _judge_section(lines: list[str]) -> Verdict:
    errors = [line.strip() for line in lines if _MAKE_ERROR.match(line)]
    marked = find_markers(lines).first()
    if errors:
        message = errors[0]
        if marked is not None and marked.status is Status.FAIL:
            message += f" (FAILED: {marked.message})"
        return Verdict(Status.NOEXIT, message)
    return marked or Verdict(Status.PASS)


def _join(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode("utf-8", errors="surrogateescape")
