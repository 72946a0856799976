"""A one-line progress bar with ETA on a terminal; silent elsewhere."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from perfwalk.orchestrate.walk_progress import Progress
from perfwalk.untrusted import show_controls


class ProgressBar:
    """Draws ``[#####.....] 12/150  checkout 3/30  ETA 1m20s  message`` on ``stream``."""

    def __init__(self, stream: TextIO | None = None, *, enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr  # the one of the moment, not of the import
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.started = time.monotonic()
        self.first_done: int | None = None
        self.width = 24

    def __call__(self, progress: Progress) -> None:
        if not self.enabled:
            return
        if self.first_done is None:
            self.first_done, self.started = progress.done, time.monotonic()
        filled = self.width * progress.done // max(progress.total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        line = (
            f"\r[{bar}] {progress.done}/{progress.total}  "
            f"checkout {progress.checkout}/{progress.checkouts}  "
            f"ETA {self.eta(progress)}  {show_controls(progress.message)[:40]}"
        )
        self.stream.write(line.ljust(110)[:110])
        self.stream.flush()

    def eta(self, progress: Progress) -> str:
        """Time left at the rate seen in this process (resumed work is not counted)."""
        measured = progress.done - (self.first_done or 0)
        if measured <= 0:
            return "--"
        seconds = (time.monotonic() - self.started) / measured * (progress.total - progress.done)
        minutes, secs = divmod(int(seconds), 60)
        return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
