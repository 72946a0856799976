"""Untrusted text (commit messages, author names, test output, host names) made
harmless to show: control characters other than tab and newline (C0, DEL and the
C1 controls U+0080–U+009F, which some terminals obey) become visible ``\\xNN``
escapes, so ANSI colour codes, a terminal title or a screen clear do nothing on a
terminal or in a page; the bidirectional embeddings, overrides and isolates
(U+202A–U+202E, U+2066–U+2069), which reorder the text shown after them (a subject
that reads backwards, a file name whose end looks like its start), become visible
``\\uNNNN`` escapes too.

A commit id pushed from elsewhere is untrusted as well: :func:`commit_address`
puts it into a web viewer's address percent-encoded, so it stays one path segment.
"""

from __future__ import annotations

import re
from urllib.parse import quote

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: What :func:`show_controls` makes visible: the controls and the bidi reorderings.
SHOWN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def show_controls(text: str) -> str:
    """``text`` with every control character but tab and newline as ``\\xNN``, and
    every bidi embedding, override or isolate as ``\\uNNNN``."""
    return SHOWN.sub(_visible, text)


def shortened(text: str, most: int = 40) -> str:
    """``text``, or its first ``most`` characters and an ellipsis."""
    return text if len(text) <= most else text[:most] + "…"


def commit_address(template: str, commit: str) -> str:
    """A web viewer's ``template`` (``…/commit/{commit}``) with ``commit`` in place of
    ``{commit}``, percent-encoded: whatever it holds (``../../x``, ``?``, ``#``), it
    is one path segment of that address."""
    return template.replace("{commit}", quote(commit, safe=""))
