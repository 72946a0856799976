"""The progress of a walk: on a terminal, one bar line redrawn in place that fits its
width (repetitions done, the checkout, an ETA from the times a repetition and a build
took in this run, the last checkout's summary), a failed build and the values a
parser lost left as lines above it; elsewhere (a log file, a pipe) one plain line per
finished checkout, failed build and checkout whose parser lost values, without escape
codes, and what it is doing when it wrote nothing for
:data:`QUIET_SECONDS` (a walk in rounds finishes its checkouts only in its last
round; a long build finishes none)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from perfwalk.cli.terminal import console, duration, is_terminal
from perfwalk.orchestrate.walk.walk_progress import (
    BUILD_FAILED,
    BUILDING,
    CHECKOUT_DONE,
    HUNG,
    VALUES_LOST,
    Progress,
    time_left,
)
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live

#: a log that has had no line for this long is told what the walk is doing
QUIET_SECONDS = 60.0


@dataclass(frozen=True)
class FailedBuild:
    """A checkout whose build failed: its index, commit and what failed."""

    idx: int
    commit: str
    message: str


class ProgressBar:
    """Tells the :class:`Progress` of a walk on ``stream`` (standard error by default):
    a redrawn bar on a terminal (``terminal``: whether it is one, by default as
    ``stream`` says), plain lines elsewhere. :attr:`failed` keeps the failed builds
    for the last words of the command. ``width`` fixes the bar's (default: the
    terminal's, as it is at each redraw)."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        terminal: bool | None = None,
        width: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stderr  # the one of the moment, not of the import
        self.terminal = is_terminal(self.stream) if terminal is None else terminal
        self.width = width
        self.clock = clock
        self.started = clock()
        self.written = self.started  # when the last plain line was written
        self.first_done: int | None = None
        self.failed: list[FailedBuild] = []
        self.last = ""  # the last finished checkout's summary
        self.building_since: float | None = None  # a build under way began then
        self.build_seconds = 0.0  # the builds timed in this process took in all
        self.builds_timed = 0
        self._console: Console | None = None
        self._live: Live | None = None

    def __call__(self, progress: Progress) -> None:
        if self.first_done is None:
            self.first_done, self.started = progress.done, self.clock()
        self._time_builds(progress)
        idx, message = progress.checkout - 1, show_controls(progress.message)
        told = ""  # a line of its own, kept
        if progress.kind == BUILD_FAILED:
            self.failed.append(FailedBuild(idx, progress.commit, progress.message))
        if progress.kind in (BUILD_FAILED, HUNG):
            told = f"checkout {idx} {progress.commit[:10]}: {message}"
        elif progress.kind == CHECKOUT_DONE:
            self.last = f"#{idx} {progress.commit[:7]}: {message}"
        elif progress.kind == VALUES_LOST:
            told = f"checkout {idx} {progress.commit[:10]}: warning: {message}"
        if self.terminal:
            self._draw(progress, told)
        elif progress.kind in (BUILD_FAILED, CHECKOUT_DONE, HUNG, VALUES_LOST) or (
            self.clock() - self.written >= QUIET_SECONDS
        ):
            line = told or f"checkout {idx} {progress.commit[:10]}: {message}"
            self.stream.write(f"{line} · {self._counts(progress)}\n")
            self.stream.flush()
            self.written = self.clock()

    def _counts(self, progress: Progress) -> str:
        return (
            f"repetitions {progress.done}/{progress.total}, checkout "
            f"{progress.counted}, ETA {self.eta(progress)}"
        )

    def _draw(self, progress: Progress, told: str) -> None:
        from rich.live import Live
        from rich.text import Text

        if self._live is None:
            self._console = console(self.stream, terminal=True, width=self.width)
            self._live = Live(
                console=self._console,
                auto_refresh=False,
                transient=False,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
        assert self._console is not None
        if told:
            style = "bold yellow" if progress.kind == VALUES_LOST else "bold red"
            self._console.print(Text(told, style=style), no_wrap=True, overflow="ellipsis")
        self._live.update(self._bar(progress), refresh=True)

    def _bar(self, progress: Progress) -> RenderableType:
        """``━━━━━━━━━━  12/150  checkout 3/30  ETA 1m20s  #2 e0781fb: …``, one line as
        wide as the terminal at most (the last words cut to fit)."""
        from rich.progress_bar import ProgressBar as Bar
        from rich.table import Table
        from rich.text import Text

        assert self._console is not None
        width = self._console.width
        bar_width = max(10, min(30, width // 8))
        words = [
            f"{progress.done}/{progress.total}",
            f"checkout {progress.counted}",
            f"ETA {self.eta(progress)}",
        ]
        if self.failed:
            words.append(f"{len(self.failed)} failed")
        words.append(self.last or show_controls(progress.message))
        text = Text("  ".join(words), no_wrap=True, overflow="ellipsis")
        text.truncate(width - bar_width - 1, overflow="ellipsis")
        grid = Table.grid(padding=(0, 1, 0, 0))
        grid.add_column(width=bar_width, no_wrap=True)
        grid.add_column(no_wrap=True)
        if self._console.color_system is None:  # without colour, the bar's ends show
            filled = (bar_width - 2) * progress.done // max(progress.total, 1)
            bar: RenderableType = Text(
                "[" + "#" * filled + "." * (bar_width - 2 - filled) + "]", no_wrap=True
            )
        else:
            bar = Bar(total=max(progress.total, 1), completed=progress.done, width=bar_width)
        grid.add_row(bar, text)
        return grid

    def _time_builds(self, progress: Progress) -> None:
        """A build lasts from its BUILDING to what the walk tells next."""
        if self.building_since is None and progress.kind != BUILDING:
            return
        now = self.clock()
        if self.building_since is not None:
            self.build_seconds += now - self.building_since
            self.builds_timed += 1
            self.building_since = None
        if progress.kind == BUILDING:
            self.building_since = now

    def eta(self, progress: Progress) -> str:
        """Time left (:func:`time_left`) from the time a repetition and a build took in
        this process (resumed work is not counted): the time not spent building over the
        repetitions done, the builds' over the builds timed."""
        measured = progress.done - (self.first_done or 0)
        building = 0.0 if self.building_since is None else self.clock() - self.building_since
        spent = self.clock() - self.started - self.build_seconds - building
        seconds = time_left(
            spent / measured if measured > 0 else None,
            self.build_seconds / self.builds_timed if self.builds_timed else None,
            progress.total - progress.done,
            progress.builds - progress.built,
        )
        return "--" if seconds is None else duration(seconds)

    def close(self) -> None:
        """The bar stays as it was last drawn, the cursor on the next line."""
        if self._live is not None:
            self._live.stop()
            self._live = None


def failed_builds_line(failed: list[FailedBuild], series_id: int) -> str | None:
    """The last words of a walk whose builds failed: which checkouts, and the commands
    that show why (None when every build passed)."""
    if not failed:
        return None
    seen = {f.idx: f for f in failed}  # a checkout once, whatever its variants
    named = ", ".join(f"{idx} ({f.commit[:10]})" for idx, f in sorted(seen.items()))
    first = min(seen)
    return (
        f"builds failed at checkout{'s' if len(seen) > 1 else ''} {named}: "
        f"`perfwalk log {series_id}:{first} --build` shows a build log, "
        f"`perfwalk show {series_id}` the series"
    )
