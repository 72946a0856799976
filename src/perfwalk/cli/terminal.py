"""What the terminal is: whether an output is one, whether it wants colour
(``--color``, ``NO_COLOR``, ``TERM=dumb``), how wide it is (``COLUMNS``), what of a
long untrusted text fits on a line, a line wrapped or cut to it, a text painted in a
colour, and a rich console drawing on it. rich is imported only by the commands that
draw (start-up time).

Width: ``COLUMNS`` when set, else the terminal's (80 when it cannot tell); an output
that is no terminal (a file, a pipe) without ``COLUMNS`` keeps its lines whole, as
scripts that read them expect."""

from __future__ import annotations

import os
import shutil
import textwrap
from typing import TYPE_CHECKING, TextIO

from perfwalk.untrusted import shortened, show_controls

if TYPE_CHECKING:
    from rich.console import Console


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except ValueError:  # closed
        return False


#: what ``--color`` may say: colour on a terminal that wants it, always, never
COLOUR_CHOICES = ("auto", "always", "never")
#: what the command's ``--color`` said
_chosen = {"colour": "auto"}


def choose_colour(choice: str) -> None:
    """Colour as ``--color`` says (:data:`COLOUR_CHOICES`) for the rest of the command."""
    _chosen["colour"] = choice


def wants_colour(stream: TextIO) -> bool:
    """Whether to colour what goes to ``stream`` (:func:`colour_on`)."""
    return colour_on(is_terminal(stream))


def colour_on(terminal: bool) -> bool:
    """Colour with ``--color=always``, none with ``never``; else (``auto``) on a
    ``terminal``, unless ``NO_COLOR`` is set (https://no-color.org) or the terminal is
    dumb."""
    chosen = _chosen["colour"]
    if chosen != "auto":
        return chosen == "always"
    if os.environ.get("NO_COLOR", "") != "" or os.environ.get("TERM") == "dumb":
        return False
    return terminal


#: the styles :func:`paint` knows, as SGR codes (a word or two of rich's names)
_SGR = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "magenta": "35"}

#: the colour of a change's direction and of a verdict's state, wherever a line or a
#: table says them
WORSE, BETTER = "red", "green"
STATE_STYLES = {
    "confirmed": "bold",
    "suspect": "yellow",
    "undecided": "magenta",
    "layout artefact": "dim",
    "refuted": "dim",
}


def paint(text: str, style: str | None, colour: bool = True) -> str:
    """``text`` in ``style`` (words of :data:`_SGR`, e.g. ``bold red``) when ``colour``;
    as it is otherwise (or without a style)."""
    if not colour or not style or not text:
        return text
    codes = ";".join(_SGR[word] for word in style.split())
    return f"\x1b[{codes}m{text}\x1b[0m"


def wrapped(line: str, width: int | None, indent: str = "    ") -> list[str]:
    """``line`` on lines of ``width`` columns at most (``indent`` before the next
    ones; a word longer than the line is broken); whole without a width."""
    if width is None or len(line) <= width:
        return [line]
    lead = line[: len(line) - len(line.lstrip(" "))]
    more = indent if len(indent) > len(lead) else lead + "  "
    return textwrap.wrap(
        line, width, initial_indent="", subsequent_indent=more, drop_whitespace=True
    ) or [line[:width]]


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
    colour = colour_on(terminal)
    return Console(
        file=stream,
        force_terminal=terminal,
        color_system=("auto" if _chosen["colour"] == "auto" else "standard") if colour else None,
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
