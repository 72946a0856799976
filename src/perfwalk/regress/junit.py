"""JUnit XML results (``pytest --junitxml``, Maven Surefire, ctest, go-junit-report…).

The root is ``<testsuites>`` or ``<testsuite>``; suites may nest. Each
``<testcase>`` is a test called ``classname.name`` (``name`` alone without a
classname). Its status:

================================================  ==========
``<failure message="[XPASS(strict)] …">``         XPASS (pytest's strict xfail that passed)
``<failure>``                                     FAIL
``<error message="failed on setup …">``           NOEXIST (pytest: a fixture's setup failed)
``<error message="failed on teardown …">``        NOCLEAN (pytest: a fixture's teardown failed)
``<error>``                                       NOEXIT
``<skipped type="pytest.xfail">``                 XFAIL
``<skipped>``                                     SKIP
nothing                                           PASS
================================================  ==========

Test cases of the same name (pytest writes a second one for a teardown error)
are one test with the worst status. The message is the element's ``message``
(else its text's first line); the log gathers the elements' texts,
``<system-out>`` and ``<system-err>``. A DOCTYPE is refused: results files need
none, and refusing it keeps entity expansion out.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import UTC, datetime

from perfwalk.errors import ParseError
from perfwalk.model import Status
from perfwalk.regress.outcome import ParsedSuite, TestOutcome

_HINT = "give a JUnit XML file as written by the runner (e.g. pytest --junitxml=FILE)"
_ROOTS = ("testsuites", "testsuite")


class _NoDoctype(ET.TreeBuilder):
    def doctype(self, name: str, *_ids: str | None) -> None:
        raise _DoctypeRefused(name)


class _DoctypeRefused(Exception):
    pass


@dataclass
class _Case:
    status: Status = Status.PASS
    message: str = ""
    parts: list[str] = field(default_factory=list)
    duration: float | None = None
    source: str | None = None


def parse_junit(data: bytes, shown: str) -> ParsedSuite:
    """The tests of a JUnit XML document; ``shown`` names the file in errors.

    Malformed XML, another root element, a DOCTYPE, a test case without a name
    or a file without any test case is a :class:`ParseError` naming the file
    (and the line and column for XML errors).
    """
    root = _parse_xml(data, shown)
    if _local(root.tag) not in _ROOTS:
        raise ParseError(
            f"{shown}: not JUnit XML: the root element is <{_local(root.tag)}>, "
            "not <testsuites> or <testsuite>",
            hint=_HINT,
        )
    cases: dict[str, _Case] = {}
    testcases = [element for element in root.iter() if _local(element.tag) == "testcase"]
    for number, element in enumerate(testcases, 1):
        _add_case(cases, element, shown, number)
    if not cases:
        raise ParseError(f"{shown}: no <testcase> in the JUnit XML", hint=_HINT)
    outcomes = tuple(
        TestOutcome(
            name=name,
            status=case.status,
            message=case.message,
            log="\n".join(case.parts).encode("utf-8", errors="surrogateescape"),
            duration=case.duration,
            source=case.source,
        )
        for name, case in cases.items()
    )
    suite = root if _local(root.tag) == "testsuite" else root.find("{*}testsuite")
    started = hostname = None
    if suite is not None:
        started = _timestamp(suite.get("timestamp"))
        hostname = (suite.get("hostname") or "").strip() or None
    return ParsedSuite(outcomes, started=started, hostname=hostname)


def _parse_xml(data: bytes, shown: str) -> ET.Element:
    parser = ET.XMLParser(target=_NoDoctype())
    try:
        parser.feed(data)
        root: ET.Element = parser.close()
    except _DoctypeRefused:
        raise ParseError(
            f"{shown}: the XML has a DOCTYPE declaration; JUnit XML has none",
            hint="remove the <!DOCTYPE …> declaration",
        ) from None
    except ET.ParseError as error:
        line, column = error.position
        reason = str(error).split(":", 1)[0]
        raise ParseError(
            f"{shown}: malformed XML at line {line}, column {column}: {reason}",
            hint=_HINT + "; a file cut short by a crash cannot be imported",
        ) from None
    return root


def _add_case(cases: dict[str, _Case], element: ET.Element, shown: str, number: int) -> None:
    name = (element.get("name") or "").strip()
    if not name:
        raise ParseError(f"{shown}: <testcase> number {number} has no name", hint=_HINT)
    classname = (element.get("classname") or "").strip()
    full = f"{classname}.{name}" if classname else name
    case = cases.setdefault(full, _Case())
    case.duration = _seconds(element.get("time"), case.duration)
    case.source = case.source or (element.get("file") or "").strip() or None
    for child in element:
        tag = _local(child.tag)
        text = child.text or ""
        if tag in ("system-out", "system-err"):
            if text.strip():
                case.parts.append(f"--- {tag} ---\n{text.rstrip()}")
            continue
        status = _status(tag, child)
        if status is None:
            continue
        message = _first_line(child.get("message") or "") or _first_line(text)
        case.parts.append(f"--- {tag}: {message} ---\n{text.rstrip()}".rstrip())
        if status > case.status:
            case.status, case.message = status, message
        elif status == case.status and message and message not in case.message:
            case.message = f"{case.message}, {message}" if case.message else message


def _status(tag: str, child: ET.Element) -> Status | None:
    message = (child.get("message") or "").lstrip()
    if tag == "failure":
        return Status.XPASS if message.startswith("[XPASS(strict)]") else Status.FAIL
    if tag == "error":
        if message.startswith("failed on setup"):
            return Status.NOEXIST
        if message.startswith("failed on teardown"):
            return Status.NOCLEAN
        return Status.NOEXIT
    if tag == "skipped":
        return Status.XFAIL if child.get("type") == "pytest.xfail" else Status.SKIP
    return None


def _local(tag: object) -> str:
    """The tag without its namespace (``{ns}testcase`` → ``testcase``)."""
    return str(tag).rpartition("}")[2]


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _seconds(text: str | None, previous: float | None) -> float | None:
    if text is None:
        return previous
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return previous
    return value if math.isfinite(value) and value >= 0 else previous


def _timestamp(text: str | None) -> datetime | None:
    """An ISO timestamp of the file; without a zone it is taken as UTC."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
