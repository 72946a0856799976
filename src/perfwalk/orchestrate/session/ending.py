"""How a use case ended, and recording it whatever happened."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal

from perfwalk.interrupts import shielded


class Ending(enum.Enum):
    """How a use case ended: its work returned, raised, or was stopped by a signal."""

    FINISHED = "finished"
    FAILED = "failed"  # an error: a lost host, a store gone, a crash
    INTERRUPTED = "interrupted"  # Ctrl-C, SIGTERM, SIGHUP

    @classmethod
    def of(cls, error: BaseException | None) -> Ending:
        """The ending of work that raised ``error`` (None: it returned)."""
        if error is None:
            return cls.FINISHED
        return cls.INTERRUPTED if isinstance(error, KeyboardInterrupt) else cls.FAILED

    @property
    def stored(self) -> Literal["finished", "interrupted"]:
        """The state the store records: it knows no failed state, and a walk that failed
        is resumed as one that was interrupted."""
        return "finished" if self is Ending.FINISHED else "interrupted"


@contextmanager
def recorded_end(record: Callable[[Ending], None], what: str) -> Iterator[None]:
    """Run the block, then ``record`` how it ended. When it raised, the recording runs
    shielded from signals and the error is raised again; a failure to record becomes a
    note on that error (the error that stopped the work is the one told)."""
    try:
        yield
    except BaseException as error:
        ending = Ending.of(error)
        with shielded():
            try:
                record(ending)
            except Exception as secondary:
                error.add_note(f"{what} could not be marked {ending.stored}: {secondary}")
        raise
    record(Ending.FINISHED)
