"""Re-measures of changes in the store (``[run] confirm``): one ``confirmation`` row
per change of a walk that was measured again, keyed by the walk and the change's
two checkouts.

The values measured again are ordinary repetitions of the walk (one more at each
of the two checkouts: real measurements, shown with the others); the row says
which repetitions they are, whether the change held (every metric re-measured
held, :mod:`perfwalk.analysis.confirmation`) and, per metric, the levels of the
change and the two values measured again. A change measured again a second time
replaces its row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, select

from perfwalk.store import schema
from perfwalk.store.connect import StorePart

_c = schema.confirmation


@dataclass(frozen=True, kw_only=True)
class ConfirmationRow:
    """A change of walk ``series_id`` (checkouts ``before_idx`` → ``after_idx``) that
    was measured again: repetition ``before_rep`` at the first checkout, ``after_rep``
    at the second."""

    series_id: int
    before_idx: int
    after_idx: int
    before_rep: int
    after_rep: int
    held: bool
    #: per metric: test, name, before and after (the change's levels), measured_before,
    #: measured_after (the values measured again, None when the test failed), held
    metrics: tuple[dict[str, Any], ...]
    measured_at: datetime

    def metric(self, test: str, name: str) -> dict[str, Any] | None:
        """What the re-measure found for ``test``.``name`` (None: not re-measured)."""
        return next((m for m in self.metrics if (m["test"], m["name"]) == (test, name)), None)


class Confirmations(StorePart):
    """The re-measures of a store; get it from :attr:`perfwalk.store.Store.confirmations`."""

    def add(
        self,
        series_id: int,
        checkouts: tuple[int, int],
        repetitions: tuple[int, int],
        *,
        held: bool,
        metrics: Sequence[Mapping[str, Any]],
        measured_at: datetime,
    ) -> None:
        """Record that the change of ``series_id`` between ``checkouts`` (before, after)
        was measured again by ``repetitions`` (one at each), and what it found."""
        before_idx, after_idx = checkouts
        key = (_c.c.series_id == series_id, _c.c.before_idx == before_idx)
        with self._write(f"store the re-measure of a change of series {series_id}") as conn:
            conn.execute(_c.delete().where(*key, _c.c.after_idx == after_idx))
            conn.execute(
                _c.insert().values(
                    series_id=series_id,
                    before_idx=before_idx,
                    after_idx=after_idx,
                    before_rep=repetitions[0],
                    after_rep=repetitions[1],
                    held=held,
                    metrics=[dict(m) for m in metrics],
                    measured_at=measured_at,
                )
            )

    def of_series(self, series_id: int) -> dict[tuple[int, int], ConfirmationRow]:
        """The re-measures of a walk, by (before, after) checkout index."""
        query = select(_c).where(_c.c.series_id == series_id)
        with self._read(f"read the re-measures of series {series_id}") as conn:
            rows = [_row(row) for row in conn.execute(query)]
        return {(row.before_idx, row.after_idx): row for row in rows}


def _row(row: Row[Any]) -> ConfirmationRow:
    return ConfirmationRow(
        series_id=int(row.series_id),
        before_idx=int(row.before_idx),
        after_idx=int(row.after_idx),
        before_rep=int(row.before_rep),
        after_rep=int(row.after_rep),
        held=bool(row.held),
        metrics=tuple(dict(m) for m in row.metrics),
        measured_at=row.measured_at,
    )
