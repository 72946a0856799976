"""Re-measures of changes in the store (``[run] confirm``, ``[watch] confirm``): one
``confirmation`` row per change of a walk that was measured again, keyed by the walk
and the change's two checkouts.

The values measured again are ordinary repetitions of the walk (more at each of the
two checkouts: real measurements, shown with the others); the row says which
repetitions they are (``rounds``, in the order measured, each with the load of the
hosts it ran on), what the sequential test made of them (``outcome``: held, not held
or undecided; ``final`` once nothing more will be measured), whether the change held
(every metric re-measured held, :mod:`perfwalk.analysis.confirmation`), how long it
waited for a quiet machine (``waits``) and, per metric, the levels of the change, the
values measured again and the decision with its p-value and confidence. A change
measured on (an undecided re-measure the next walk or watch cycle continues)
replaces its row with one that holds all its rounds.

A row stored before schema step 25 (a re-measure of one pair, before and after) has
no outcome, rounds or waits: its ``held`` alone says what it found.
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

#: the outcomes of a sequential re-measure (:mod:`perfwalk.analysis.confirmation`)
OUTCOMES = ("held", "not held", "undecided")


@dataclass(frozen=True, kw_only=True)
class ConfirmationRow:
    """A change of walk ``series_id`` (checkouts ``before_idx`` → ``after_idx``) that
    was measured again: its first repetition measured again at the first checkout is
    ``before_rep``, at the second ``after_rep``."""

    series_id: int
    before_idx: int
    after_idx: int
    before_rep: int
    after_rep: int
    held: bool
    #: per metric: test, name, before and after (the change's levels), measured_before,
    #: measured_after (the means of the values measured again, None when the test gave
    #: none), held; since step 25 also values_before, values_after (in the order
    #: measured), outcome, final, change, low, high, p_value, level, confidence, reason
    metrics: tuple[dict[str, Any], ...]
    measured_at: datetime
    #: held, not held, undecided; None: a one-pair re-measure stored before step 25
    outcome: str | None = None
    #: nothing more will be measured: decided, or the most repetitions reached (a
    #: one-pair re-measure of an older store was never continued: final too)
    final: bool = True
    #: each repetition measured again, in order: side (before, after), checkout,
    #: repetition, loaded (bool) and hosts ({host: {load1, cores, others, runnable}})
    rounds: tuple[dict[str, Any], ...] = ()
    #: each wait for a quiet machine: at (ISO time), seconds, quiet (bool), why (not)
    waits: tuple[dict[str, Any], ...] = ()

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
        outcome: str | None = None,
        final: bool = True,
        rounds: Sequence[Mapping[str, Any]] = (),
        waits: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        """Record that the change of ``series_id`` between ``checkouts`` (before, after)
        was measured again, from ``repetitions`` on (the first at each), and what it
        found (``outcome``: one of :data:`OUTCOMES`, None for a lone pair)."""
        if outcome is not None and outcome not in OUTCOMES:
            raise ValueError(f"outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
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
                    outcome=outcome,
                    final=final if outcome is not None else None,
                    rounds=[dict(r) for r in rounds] if outcome is not None else None,
                    waits=[dict(w) for w in waits] if outcome is not None else None,
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
        outcome=row.outcome if row.outcome in OUTCOMES else None,
        final=True if row.final is None else bool(row.final),
        rounds=tuple(dict(r) for r in row.rounds or () if isinstance(r, dict)),
        waits=tuple(dict(w) for w in row.waits or () if isinstance(w, dict)),
    )
