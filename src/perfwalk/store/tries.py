"""The tries of a store: per series of kind ``try``, one ``try_run`` row saying what
its two sides are (A: index 0, the base commit; B: index 1, the head commit, or the
base commit with patches or a variant), the patches' text, and, once it stopped,
the verdict of the sequential test per metric and why it stopped.

The values of both sides are the series' own (checkouts, repetitions, results):
only what a try adds is here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Row, select

from perfwalk.store import schema
from perfwalk.store.connect import StorePart

_t = schema.try_run


@dataclass(frozen=True)
class NewTry:
    """What a try compares: its two commits, B's patches (file name, text) or variant,
    the confidence and the most repetitions per side it may spend."""

    base_sha: str
    head_sha: str
    confidence: float
    max_repetitions: int
    patches: tuple[tuple[str, str], ...] = ()
    variant: str | None = None


@dataclass(frozen=True)
class TryRow(NewTry):
    """A stored try; ``verdicts`` (one mapping per metric: test, name, unit, verdict,
    change, low, high, count_a, count_b, reason, mann_whitney_p) and ``stopped`` are
    empty while it runs."""

    series_id: int = 0
    verdicts: tuple[dict[str, Any], ...] = field(default=())
    stopped: str = ""


class TryRecords(StorePart):
    """The tries of this store; get it from :attr:`perfwalk.store.Store.tries`."""

    def start(self, series_id: int, new: NewTry) -> None:
        """Record the try of series ``series_id`` as it starts."""
        with self._write(f"store the try of series {series_id}") as conn:
            conn.execute(
                _t.insert().values(
                    series_id=series_id,
                    base_sha=new.base_sha,
                    head_sha=new.head_sha,
                    patches=[list(patch) for patch in new.patches],
                    variant=new.variant,
                    confidence=new.confidence,
                    max_repetitions=new.max_repetitions,
                    verdicts=[],
                    stopped="",
                )
            )

    def finish(self, series_id: int, verdicts: Sequence[dict[str, Any]], stopped: str) -> None:
        """Record what the try of series ``series_id`` decided and why it stopped."""
        with self._write(f"store the verdict of the try of series {series_id}") as conn:
            conn.execute(
                _t.update()
                .where(_t.c.series_id == series_id)
                .values(verdicts=[dict(v) for v in verdicts], stopped=stopped)
            )

    def get(self, series_id: int) -> TryRow | None:
        """The try of series ``series_id``; None when it is not a try."""
        with self._read(f"read the try of series {series_id}") as conn:
            row = conn.execute(select(_t).where(_t.c.series_id == series_id)).first()
        return None if row is None else _row(row)

    def all(self) -> list[TryRow]:
        """Every try, newest first."""
        with self._read("read the tries") as conn:
            rows = conn.execute(select(_t).order_by(_t.c.series_id.desc())).all()
        return [_row(row) for row in rows]


def _row(row: Row[Any]) -> TryRow:
    return TryRow(
        series_id=row.series_id,
        base_sha=row.base_sha,
        head_sha=row.head_sha,
        patches=tuple((str(name), str(text)) for name, text in row.patches),
        variant=row.variant,
        confidence=row.confidence,
        max_repetitions=row.max_repetitions,
        verdicts=tuple(dict(v) for v in row.verdicts),
        stopped=row.stopped,
    )
