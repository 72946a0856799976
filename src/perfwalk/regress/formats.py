"""The results formats by name, and telling them apart when none is named."""

from __future__ import annotations

import re
from collections.abc import Callable

from perfwalk.errors import ParseError, UsageError
from perfwalk.regress.junit import parse_junit
from perfwalk.regress.markers import has_markers, parse_markers
from perfwalk.regress.outcome import ParsedSuite
from perfwalk.regress.tap import parse_tap

#: A results parser: the file's bytes, its name for messages, the name of a suite-wide test.
Reader = Callable[[bytes, str, str], ParsedSuite]


def _junit(data: bytes, shown: str, _default_name: str) -> ParsedSuite:
    return parse_junit(data, shown)


def _tap(data: bytes, shown: str, default_name: str) -> ParsedSuite:
    return parse_tap(decode(data), shown, default_name)


def _markers(data: bytes, _shown: str, default_name: str) -> ParsedSuite:
    return parse_markers(decode(data), default_name)


FORMATS: dict[str, Reader] = {"junit": _junit, "tap": _tap, "markers": _markers}
FORMAT_NAMES = tuple(FORMATS)

_XML_START = re.compile(rb"^\s*(?:\xef\xbb\xbf)?\s*<")
_SECTION = re.compile(rb"^(?:START\t|===> )\S", re.M)
_TAP_LINE = re.compile(rb"^(?:TAP version \d+|1\.\.\d+|(?:not )?ok\b|\S.*? \.{2,}(?: |$))", re.M)


def decode(data: bytes) -> str:
    """Text of a results file: UTF-8, undecodable bytes kept for the logs (surrogateescape)."""
    return data.decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")


def detect(data: bytes) -> str:
    """The format of a results file: junit when it starts with ``<``; markers when it has
    marker-log sections; tap when it has a plan, a test line or a prove header;
    markers otherwise."""
    if _XML_START.match(data):
        return "junit"
    if _SECTION.search(data):
        return "markers"
    if _TAP_LINE.search(data):
        return "tap"
    return "markers"


_TRIED = (
    "not JUnit XML (it does not start with <), not TAP (no plan 1..N, no ok / not ok line,"
    " no prove header), not a marker log (no START<TAB>name or ===> name section, no"
    " STATUS<TAB>name verdict, no FAILED, SKIPPED … marker, no make error line)"
)
_IMPORT_HINT = (
    "import the results file the suite wrote (JUnit XML, TAP, a marker log), not a program"
    " or a crash message; --format junit, tap or markers says what a format misses in it"
)


def read_results(
    data: bytes, shown: str, fmt: str | None, default_name: str
) -> tuple[str, ParsedSuite]:
    """A whole results file to import: its format (``fmt``, else detected) and its tests.

    Stricter than a runner's output: binary data, or text in which no format finds
    anything (a crash message, an ELF file), is a :class:`ParseError` naming the file
    and the formats tried, and so is a marker log (named or detected) without a single
    section, verdict, marker or make error line: it would be one test that passes.
    """
    nul = data.find(b"\x00")
    if nul >= 0:
        raise ParseError(
            f"{shown}: binary data (a NUL byte at offset {nul}): {_TRIED}", hint=_IMPORT_HINT
        )
    found = fmt or detect(data)
    if found == "markers" and not has_markers(decode(data)):
        if fmt is None:
            raise ParseError(f"{shown}: not a results file: {_TRIED}", hint=_IMPORT_HINT)
        raise ParseError(
            f"{shown}: no marker log found: no START<TAB>name or ===> name section, no"
            " STATUS<TAB>name verdict, no FAILED, SKIPPED … marker and no make error line",
            hint=_IMPORT_HINT,
        )
    return found, reader(found)(data, shown, default_name)


def reader(name: str) -> Reader:
    """The parser of format ``name``; UsageError naming the known ones."""
    try:
        return FORMATS[name]
    except KeyError:
        raise UsageError(
            f"unknown results format {name!r}", hint=f"use one of: {', '.join(FORMAT_NAMES)}"
        ) from None
