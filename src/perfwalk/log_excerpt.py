"""What a failure's log says in a few lines: its first line that looks like an
error, and its last lines. Pure functions of the text: the site computes them when
it publishes, so that a failed build's or test's page shows why without loading the
whole log.

The text is untrusted (compiler and test output): what renders an excerpt escapes
it; here it is only cut (each line to :data:`LINE_LIMIT` characters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: what an error line looks like in a build or test log: compilers, linkers, make,
#: shells, Python, Go, Rust, test runners
_ERROR = re.compile(
    r"\berror\b[ \t]*[:\[(]"  # "error:", "error[E0308]", "error (…)"
    r"|\bError\b"  # "Error 2", "TypeError", "ModuleNotFoundError"
    r"|\bERROR\b"
    r"|\bfatal\b|\bFATAL\b|\bFatal\b"
    r"|\bFAILED\b|\bFAIL\b"
    r"|undefined reference"
    r"|No such file or directory|No such file"
    r"|command not found"
    r"|Traceback \(most recent call last\)"
    r"|\bpanic:"
    r"|Segmentation fault|core dumped"
    r"|Permission denied"
    r"|Killed\b"
)

#: the characters of a line an excerpt keeps
LINE_LIMIT = 300
#: the lines of a log's end an excerpt keeps
TAIL_LINES = 20


@dataclass(frozen=True)
class Excerpt:
    """The first error line of a log (its last non-empty line when none looks like an
    error; "" for an empty log) and its last lines, each cut to LINE_LIMIT."""

    first_error: str
    tail: tuple[str, ...]


def _cut(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= LINE_LIMIT else line[: LINE_LIMIT - 1] + "…"


def matching_line(text: str) -> str:
    """The first line of ``text`` that looks like an error (``error:``, ``Error``,
    ``fatal``, ``FAILED``, ``undefined reference``, ``No such file``, ``Traceback``…),
    cut to LINE_LIMIT characters; "" when none does."""
    found = _ERROR.search(text)
    if found is None:
        return ""
    start = text.rfind("\n", 0, found.start()) + 1
    end = text.find("\n", found.end())
    return _cut(text[start : end if end >= 0 else len(text)].strip())


def first_error_line(text: str) -> str:
    """The first line of ``text`` that looks like an error (:func:`matching_line`),
    else its last non-empty line, else ""; cut to LINE_LIMIT characters."""
    return matching_line(text) or _cut(last_lines(text, 1)[0].strip() if text.strip() else "")


def last_lines(text: str, count: int = TAIL_LINES) -> tuple[str, ...]:
    """The last ``count`` lines of ``text`` (trailing empty lines left out), each cut."""
    lines = text.rstrip().splitlines()
    return tuple(_cut(line) for line in lines[-count:]) if count > 0 else ()


def excerpt(text: str, count: int = TAIL_LINES) -> Excerpt:
    return Excerpt(first_error_line(text), last_lines(text, count))
