"""Untrusted text (commit messages, author names, test output, host names) made
harmless to show: control characters other than tab and newline (C0, DEL and the
C1 controls U+0080–U+009F, which some terminals obey) become visible ``\\xNN``
escapes, so ANSI colour codes, a terminal title or a screen clear do nothing on a
terminal or in a page."""

from __future__ import annotations

import re

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def show_controls(text: str) -> str:
    """``text`` with every control character but tab and newline as ``\\xNN``."""
    return CONTROL.sub(_visible, text)
