"""The proofs of a store: a drill's culprit undone on a later tip of its branch and
measured against that tip (a series of kind ``try`` whose B is the tip with the revert
applied), or why nothing was measured (the revert does not apply to the tip, a side did
not build). Each proof is a row of its own; the newest of a drill is its answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Row, select

from perfwalk.quantities import format_change
from perfwalk.store import schema
from perfwalk.store.connect import StorePart

_p = schema.proof

#: what a proof found: the revert gives the drilled cost back (``still``), changes
#: nothing beyond the metric's min_change (``gone``: the cost moved elsewhere or was
#: fixed since), moves it the way the culprit did (``opposite``), could not tell within
#: its repetitions (``undecided``); the revert does not apply to the tip (``conflict``);
#: a side did not build or gave no value (``failed``)
Outcome = Literal["still", "gone", "opposite", "undecided", "conflict", "failed"]
OUTCOMES: tuple[Outcome, ...] = ("still", "gone", "opposite", "undecided", "conflict", "failed")


@dataclass(frozen=True)
class NewProof:
    """A proof as it ends: the drill (its series), the culprit, the tip as named and the
    commit it named, the try that measured it (None: none ran), the outcome and its
    figures (metric, unit, change, low, high, step, share, repetitions, stopped) or the
    words of what refused it (message)."""

    drill_id: int
    culprit_sha: str
    tip_ref: str
    tip_sha: str
    at: datetime
    try_id: int | None
    outcome: Outcome
    answer: dict[str, Any]


@dataclass(frozen=True)
class ProofRow(NewProof):
    id: int = 0

    def said(self) -> str:
        """What the proof found, in one line (its culprit and tip named)."""
        a = self.answer
        culprit, tip = self.culprit_sha[:12], f"{self.tip_ref} ({self.tip_sha[:12]})"
        head = f"reverting {culprit} on {tip}"
        if self.outcome == "conflict":
            return f"{culprit} does not revert cleanly on {tip}: {a.get('message', '')}"
        if self.outcome == "failed":
            return f"{head}: not measured: {a.get('message', '')}"
        interval = "{} [{}, {}]".format(
            *(format_change(a.get(key)) for key in ("change", "low", "high"))
        )
        metric, step, share = a.get("metric", ""), format_change(a.get("step")), a.get("share")
        if self.outcome == "still":
            given = "" if share is None else f": {share * 100:.0f} % of the drilled step ({step})"
            return f"{head} gives back {metric} {interval}{given}"
        if self.outcome == "gone":
            return (
                f"{head} changes {metric} by {interval}, within its min_change: no longer, "
                f"the cost moved elsewhere or was fixed since (the drilled step: {step})"
            )
        if self.outcome == "opposite":
            return (
                f"{head} moves {metric} {interval}, the way the culprit did (its step: "
                f"{step}): what it costs now is not the culprit's"
            )
        counts = "{} + {} repetitions".format(*a.get("repetitions", (0, 0)))
        return f"{head}: {metric} {interval} undecided after {counts}"


class ProofRecords(StorePart):
    """The proofs of this store; get it from :attr:`perfwalk.store.Store.proofs`."""

    def add(self, new: NewProof) -> int:
        """Store a proof; its id."""
        with self._write(f"store the proof of drill {new.drill_id}") as conn:
            inserted = conn.execute(
                _p.insert().values(
                    drill_id=new.drill_id,
                    culprit_sha=new.culprit_sha,
                    tip_ref=new.tip_ref,
                    tip_sha=new.tip_sha,
                    at=new.at,
                    try_id=new.try_id,
                    outcome=new.outcome,
                    answer=dict(new.answer),
                )
            )
            key = inserted.inserted_primary_key
            assert key is not None
            return int(key[0])

    def of_drill(self, drill_id: int) -> list[ProofRow]:
        """The proofs of drill ``drill_id``, oldest first."""
        with self._read(f"read the proofs of drill {drill_id}") as conn:
            rows = conn.execute(select(_p).where(_p.c.drill_id == drill_id).order_by(_p.c.id))
            return [_row(r) for r in rows]

    def all(self) -> list[ProofRow]:
        """Every proof, oldest first."""
        with self._read("read the proofs") as conn:
            return [_row(r) for r in conn.execute(select(_p).order_by(_p.c.id))]

    def latest(self, drill_ids: Sequence[int] | None = None) -> dict[int, ProofRow]:
        """The newest proof of each drill (of ``drill_ids``; None: of every drill)."""
        wanted = None if drill_ids is None else set(drill_ids)
        return {row.drill_id: row for row in self.all() if wanted is None or row.drill_id in wanted}


def _row(row: Row[Any]) -> ProofRow:
    return ProofRow(
        id=row.id,
        drill_id=row.drill_id,
        culprit_sha=row.culprit_sha,
        tip_ref=row.tip_ref,
        tip_sha=row.tip_sha,
        at=row.at,
        try_id=row.try_id,
        outcome=row.outcome,
        answer=dict(row.answer),
    )
