"""``perfwalk status --follow``: what each host of the running walks does now, again
and again until Ctrl-C (or ``--count`` views).

Each view is read from the store (:mod:`perfwalk.store.live`): per host, the walk
(its series), the checkout, the repetition and the step it is at, the command the
host runs and how long it has, then the last lines of the step's output. Lines fit
the terminal (``COLUMNS``); every text from the store is shown with its control
characters made visible (test output is untrusted). On a terminal each view
replaces the one before; to a file or a pipe, views follow each other, a blank
line between two.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime

from perfwalk.cli.terminal import duration, fitted, is_terminal, width_of
from perfwalk.store import Store
from perfwalk.store.live import LiveRow
from perfwalk.untrusted import show_controls

#: What a view says when no walk runs.
NO_WALK = "no walk runs now"
#: The lines of a step's output a view shows per host.
SHOWN_LINES = 10
_CLEAR = "\x1b[H\x1b[2J"


def view_lines(
    rows: Sequence[LiveRow], now: datetime, width: int | None, every: float
) -> list[str]:
    """One view: a heading, then per host what it does and its last output lines."""
    lines = [f"perfwalk now, {now:%Y-%m-%d %H:%M:%S} UTC (every {every:g} s; Ctrl-C stops)"]
    if not rows:
        return [*lines, NO_WALK]
    for row in rows:
        walk = f"series {row.series_id} {show_controls(repr(row.series_name))}"
        head = f"host {show_controls(row.host)}: {walk}, "
        lines.append(head + fitted(row.where(), len(head), width))
        since = duration(row.since(now))
        said = f"  runs for {since}: " if row.running else f"  ended {since} ago: "
        lines.append(said + fitted(row.command, len(said), width))
        lines += ["  | " + fitted(line, 4, width) for line in row.tail_lines(SHOWN_LINES)]
    return lines


def follow(store: Store, series: Sequence[int], every: float, count: int | None) -> None:
    """Show a view every ``every`` seconds, ``count`` times (None: until Ctrl-C)."""
    clear = is_terminal(sys.stdout)
    shown = 0
    try:
        while count is None or shown < count:
            if shown:
                time.sleep(every)
            rows = store.live.now(series)
            lines = view_lines(rows, datetime.now(UTC), width_of(sys.stdout), every)
            if clear:
                sys.stdout.write(_CLEAR)
            elif shown:
                sys.stdout.write("\n")
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()
            shown += 1
    except KeyboardInterrupt:  # how a person ends it
        return
