"""What the terminal is: whether an output is one, whether it wants colour
(``NO_COLOR``, ``TERM=dumb``), how wide it is (``COLUMNS``) and what of a long
untrusted text fits on a line, and a rich console drawing on it. rich is imported
only by the commands that draw (start-up time)."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING, TextIO

from perfwalk.untrusted import shortened, show_controls

if TYPE_CHECKING:
    from rich.console import Console


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except ValueError:  # closed
        return False


def wants_colour(stream: TextIO) -> bool:
    """Colour on a terminal, unless ``NO_COLOR`` is set (https://no-color.org) or the
    terminal is dumb."""
    if os.environ.get("NO_COLOR", "") != "" or os.environ.get("TERM") == "dumb":
        return False
    return is_terminal(stream)


def width_of(stream: TextIO) -> int | None:
    """The columns a table fits in: ``COLUMNS`` when set, else the terminal's width
    when ``stream`` is a terminal; None (no limit) for a file or a pipe."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if is_terminal(stream):
        return shutil.get_terminal_size().columns
    return None


#: the most characters an untrusted text at the end of a line (a commit's subject and
#: author, a function's name) shows when the output is no terminal, and the fewest a
#: narrow terminal leaves it; --format json and the pages keep it whole
TEXT_MOST = 200
TEXT_LEAST = 20


def fitted(text: str, used: int, width: int | None) -> str:
    """``text`` as shown (:func:`show_controls`) at the end of a line whose first
    ``used`` columns are taken: cut with an ellipsis to the room a terminal of ``width``
    columns leaves (:data:`TEXT_LEAST` characters at least), to :data:`TEXT_MOST`
    characters without one (``width`` None: a file, a pipe)."""
    shown = show_controls(text)
    room = TEXT_MOST if width is None else max(TEXT_LEAST, width - used)
    return shown if len(shown) <= room else shortened(shown, room - 1)


def console(stream: TextIO, *, terminal: bool | None = None, width: int | None = None) -> Console:
    """A rich console writing to ``stream``: colour only as :func:`wants_colour` says
    (without, no style at all: no escape code but the cursor's), no markup, emoji or
    highlighting of the text it is given (untrusted text is shown as it is)."""
    from rich.console import Console

    terminal = is_terminal(stream) if terminal is None else terminal
    colour = terminal and os.environ.get("NO_COLOR", "") == ""
    return Console(
        file=stream,
        force_terminal=terminal,
        color_system="auto" if colour else None,
        width=width,
        markup=False,
        emoji=False,
        highlight=False,
        soft_wrap=False,
    )


def duration(seconds: float) -> str:
    """``2.5s``, ``45s``, ``3m07s``, ``2h05m``."""
    if seconds < 10:
        return f"{max(seconds, 0.0):.1f}s"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
