"""TAP (the Test Anything Protocol, versions 12 to 14), plain or as ``prove`` prints it.

Each test point is a test: ``<file>: <description>`` under ``prove`` (``prove -v``
shows every point of every file), the description alone in plain TAP; a point
without description is ``test <number>``. Its status:

=========================  ======
``ok``                     PASS
``not ok``                 FAIL (message: the first diagnostic line after it)
``ok … # TODO``            XPASS
``not ok … # TODO``        XFAIL
``… # SKIP``               SKIP
=========================  ======

Under ``prove`` each test file is a test too, with ``prove``'s verdict: ``ok``
PASS, ``skipped: …`` SKIP, ``Failed n/m subtests`` FAIL (message: the failing
points), ``Dubious, test returned n`` or ``No subtests run`` NOEXIT, and parse
errors of its summary report FAIL. In plain TAP, what concerns the whole stream —
``Bail out!`` (NOEXIT), a plan not kept, tests out of sequence (FAIL),
``1..0 # SKIP`` — is a test called ``default_name``.

Indented lines (subtests, YAML diagnostics) and ``# Subtest:`` lines go to the
log of the point they belong to. What is not TAP is kept in the logs and
otherwise ignored, as TAP asks. A stream without any plan, test line or
``prove`` header, two plans in one stream, a plan that is not ``1..N`` or an
unknown ``TAP version`` is a :class:`ParseError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from perfwalk.errors import ParseError
from perfwalk.model import Status
from perfwalk.regress.markers import Verdict
from perfwalk.regress.outcome import SUITE_TEST, ParsedSuite, TestOutcome, numbered

_HINT = "give TAP output (prove -v t/ > results.tap, or a test script's own output)"

_TEST = re.compile(r"^(?P<not>not )?ok\b(?P<rest>.*)$")
_POINT = re.compile(
    r"^\s*(?P<number>\d+)?\s*(?:-\s*)?(?P<desc>.*?)\s*"
    r"(?:(?<!\\)#\s*(?P<directive>skip\w*|todo\b)\s*(?P<reason>.*))?$",
    re.IGNORECASE,
)
_PLAN = re.compile(r"^1\.\.(?P<count>\d+)\s*(?:#\s*(?P<comment>.*))?$")
_PLAN_LIKE = re.compile(r"^1\.\.")
_VERSION = re.compile(r"^TAP version (?P<version>\S+)\s*$", re.IGNORECASE)
_BAIL = re.compile(r"^Bail out!\s*(?P<reason>.*)$")
_HEADER = re.compile(r"^(?P<file>\S.*?) \.{2,}(?: (?P<rest>.*))?$")
_DUBIOUS = re.compile(r"^Dubious, test returned \d+")
_FAILED = re.compile(r"^Failed (?P<failed>\d+)/(?P<total>\d+) subtests?")
_SUMMARY_FILE = re.compile(r"^(?P<file>\S.*?) \(Wstat: \d+")
_PARSE_ERRORS = re.compile(r"^\s+Parse errors: (?P<errors>.*)$")
_DIAGNOSTIC = re.compile(r"^\s*(?:#\s*(?P<comment>\S.*)|message:\s*(?P<yaml>\S.*))$")
_VERSIONS = ("12", "13", "14")


@dataclass
class _Point:
    number: int
    name: str
    status: Status
    message: str
    lines: list[str]
    at: int  # index of the test line in lines (subtest lines come before it)


@dataclass
class _Doc:
    file: str | None
    lines: list[str] = field(default_factory=list)
    points: list[_Point] = field(default_factory=list)
    plan: int | None = None
    plan_at: int = 0  # line number of the plan
    trailing_plan: bool = False
    skip_all: str | None = None
    bailed: str | None = None
    verdicts: list[Verdict] = field(default_factory=list)
    out_of_sequence: list[int] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # subtest lines before their point

    def complete(self) -> bool:
        return self.plan is not None and (self.trailing_plan or len(self.points) >= self.plan)


def parse_tap(text: str, shown: str, default_name: str = SUITE_TEST) -> ParsedSuite:
    """The tests of a TAP stream or of ``prove`` output; ``shown`` names it in errors."""
    reader = _Reader(shown)
    for number, line in enumerate(text.splitlines(), 1):
        reader.line(number, line.rstrip("\r"))
    if not reader.docs:
        raise ParseError(
            f"{shown}: no TAP found: no plan (1..N), no test line (ok / not ok) "
            "and no prove header (file .. )",
            hint=_HINT,
        )
    outcomes: list[TestOutcome] = []
    for doc in reader.docs:
        outcomes += _outcomes(doc, default_name)
    return ParsedSuite(numbered(outcomes))


class _Reader:
    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.docs: list[_Doc] = []
        self.by_file: dict[str, _Doc] = {}
        self.doc: _Doc | None = None
        self.summary = False
        self.summary_doc: _Doc | None = None

    def fail(self, number: int, message: str) -> ParseError:
        return ParseError(f"{self.shown}: line {number}: {message}", hint=_HINT)

    def start(self, file: str | None) -> _Doc:
        doc = _Doc(file)
        self.docs.append(doc)
        if file is not None:
            self.by_file[file] = doc
        self.doc = doc
        return doc

    def line(self, number: int, line: str) -> None:
        if self.summary:
            self.summary_line(line)
            return
        if line.strip() == "Test Summary Report":
            self.summary = True
            return
        if self.tap_line(number, line):
            return
        header = _HEADER.match(line)
        if header is not None and _prove_rest(header.group("rest") or ""):
            started = self.start(header.group("file"))
            started.lines.append(line)
            self.prove_verdict(started, (header.group("rest") or "").strip(), header=True)
            return
        doc = self.doc
        if doc is None:
            return  # before any TAP: stderr of a test, prove's own messages
        doc.lines.append(line)
        if doc.file is not None and self.prove_verdict(doc, line.strip(), header=False):
            return
        stripped = line.strip()
        nested = line[:1].isspace() and (_TEST.match(stripped) or _PLAN.match(stripped))
        if nested or stripped.startswith("# Subtest") or (line[:1].isspace() and doc.pending):
            doc.pending.append(line)  # a subtest: its summary point comes after it
        elif doc.points:
            doc.points[-1].lines.append(line)  # diagnostics, YAML, stderr of the point

    def tap_line(self, number: int, line: str) -> bool:
        """Handle a top-level TAP line; False when the line is not one."""
        test = _TEST.match(line)
        plan = _PLAN.match(line)
        version = _VERSION.match(line)
        bail = _BAIL.match(line)
        if not (test or plan or version or bail or _PLAN_LIKE.match(line)):
            return False
        doc = self.doc
        proved = doc is not None and doc.file is not None and doc.complete()
        if doc is not None and proved and test and line.strip() == "ok":
            doc.lines.append(line)
            doc.verdicts.append(Verdict(Status.PASS))
            return True
        if doc is None:
            doc = self.start(None)
        doc.lines.append(line)
        if version is not None:
            if version.group("version") not in _VERSIONS:
                raise self.fail(
                    number,
                    f"unknown TAP version {version.group('version')!r} "
                    f"(known: {', '.join(_VERSIONS)})",
                )
        elif plan is not None:
            self.plan(number, doc, plan)
        elif bail is not None:
            doc.bailed = bail.group("reason").strip() or "no reason given"
        elif test is not None:
            self.point(doc, test.group("not") is not None, test.group("rest"), line)
        else:
            raise self.fail(number, f"bad plan {line.strip()!r}: a plan is 1..N")
        return True

    def plan(self, number: int, doc: _Doc, plan: re.Match[str]) -> None:
        if doc.plan is not None:
            raise self.fail(
                number,
                f"a second plan {plan.group(0).strip()!r} (the first is on line {doc.plan_at}); "
                "one TAP stream has one plan",
            )
        doc.plan, doc.plan_at = int(plan.group("count")), number
        doc.trailing_plan = bool(doc.points)
        comment = (plan.group("comment") or "").strip()
        if doc.plan == 0:
            reason = re.sub(r"^skip\w*\s*", "", comment, flags=re.IGNORECASE)
            doc.skip_all = reason or "skipped"

    def point(self, doc: _Doc, failed: bool, rest: str, line: str) -> None:
        parsed = _POINT.match(rest)
        assert parsed is not None  # the pattern matches any text
        expected = len(doc.points) + 1
        number = int(parsed.group("number")) if parsed.group("number") else expected
        if number != expected:
            doc.out_of_sequence.append(number)
        desc = parsed.group("desc").replace("\\#", "#").strip()
        directive = (parsed.group("directive") or "").lower()
        reason = (parsed.group("reason") or "").strip()
        if directive.startswith("skip"):
            status, message = Status.SKIP, reason
        elif directive == "todo":
            status, message = (Status.XFAIL if failed else Status.XPASS), reason
        else:
            status, message = (Status.FAIL if failed else Status.PASS), ""
        lines = [*doc.pending, line]
        doc.pending = []
        point = _Point(number, desc or f"test {number}", status, message, lines, len(lines) - 1)
        doc.points.append(point)

    def prove_verdict(self, doc: _Doc, text: str, *, header: bool) -> bool:
        """Record one of prove's own lines about a file; False when it is none."""
        failed = _FAILED.match(text)
        if header and text == "ok":
            doc.verdicts.append(Verdict(Status.PASS))
        elif header and text.startswith("skipped"):
            doc.verdicts.append(Verdict(Status.SKIP, text.partition(":")[2].strip()))
        elif _DUBIOUS.match(text) or text == "No subtests run":
            doc.verdicts.append(Verdict(Status.NOEXIT, text))
        elif failed is not None:
            doc.verdicts.append(Verdict(Status.FAIL, text))
        else:
            return header  # a header without a verdict (prove -v): the TAP follows
        return True

    def summary_line(self, line: str) -> None:
        found = _SUMMARY_FILE.match(line)
        if found is not None:
            self.summary_doc = self.by_file.get(found.group("file"))
            return
        errors = _PARSE_ERRORS.match(line)
        if errors is not None and self.summary_doc is not None:
            self.summary_doc.verdicts.append(Verdict(Status.FAIL, errors.group("errors").strip()))


def _prove_rest(rest: str) -> bool:
    """True when what follows ``file ..`` is one of prove's verdicts (or nothing)."""
    text = rest.strip()
    return (
        text in ("", "ok", "No subtests run")
        or text.startswith("skipped")
        or bool(_DUBIOUS.match(text) or _FAILED.match(text))
    )


def _outcomes(doc: _Doc, default_name: str) -> list[TestOutcome]:
    prefix = f"{doc.file}: " if doc.file is not None else ""
    outcomes = [
        TestOutcome(
            name=prefix + point.name,
            status=point.status,
            message=_diagnostic(point) if point.status is Status.FAIL else point.message,
            log=_join(point.lines),
            source=doc.file,
        )
        for point in doc.points
    ]
    verdict = _doc_verdict(doc)
    if doc.file is not None or verdict.status is not Status.PASS:
        name = doc.file if doc.file is not None else default_name
        outcomes.append(
            TestOutcome(name, verdict.status, verdict.message, _join(doc.lines), source=doc.file)
        )
    return outcomes


def _doc_verdict(doc: _Doc) -> Verdict:
    found = list(doc.verdicts)
    failing = [p.name for p in doc.points if p.status is Status.FAIL]
    if doc.bailed is not None:
        found.append(Verdict(Status.NOEXIT, f"Bail out! {doc.bailed}"))
    if doc.skip_all is not None and not doc.points:
        found.append(Verdict(Status.SKIP, doc.skip_all))
    elif doc.plan is None and not any(v.status is Status.SKIP for v in found):
        if doc.points or doc.file is None:
            found.append(Verdict(Status.FAIL, "no plan (1..N): the output may be cut short"))
    elif doc.plan is not None and doc.plan != len(doc.points) and doc.bailed is None:
        found.append(Verdict(Status.FAIL, f"planned {doc.plan} tests but ran {len(doc.points)}"))
    if doc.out_of_sequence:
        found.append(Verdict(Status.FAIL, f"tests out of sequence: {doc.out_of_sequence[0]}"))
    if failing and doc.file is not None:  # a file fails with its points; a stream does not
        found.append(Verdict(Status.FAIL, ", ".join(failing)))
    if not found:
        return Verdict(Status.PASS)
    worst = max(v.status for v in found)
    messages = [v.message for v in found if v.status is worst and v.message]
    return Verdict(worst, "; ".join(dict.fromkeys(messages)))


def _diagnostic(point: _Point) -> str:
    for line in point.lines[point.at + 1 :]:
        found = _DIAGNOSTIC.match(line)
        if found is not None:
            return (found.group("comment") or found.group("yaml") or "").strip()
    return point.lines[point.at].strip()


def _join(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode("utf-8", errors="surrogateescape")
