"""Triage in the store: a person's word on a change (acknowledged, expected, invalid,
fixed), with why, who, when and the bug that tracks it.

A change is named by its series and commit range (``series_id``, ``before_sha``,
``after_sha``: what :attr:`perfwalk.report.change_list.ListedChange.key` is), not by
its checkout indexes or its metrics: a walk continued or an analysis rerun that
finds it again on the same range finds its triage too, and a change on another
range has none. Every word is a new ``triage`` row, never changed or deleted: the
rows of a change are its history, and the newest (the highest id: the order they
were written in, whatever the clocks said) is the current word.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, func, select

from perfwalk.errors import StoreError
from perfwalk.store import schema
from perfwalk.store.connect import StorePart

_t = schema.triage
_s = schema.series

#: (series_id, before_sha, after_sha): the name of a change across walks and analyses
ChangeKey = tuple[int, str, str]


@dataclass(frozen=True, kw_only=True)
class TriageRow:
    """One word on the change ``key``; ``bug`` is "" when none tracks it."""

    id: int
    series_id: int
    before_sha: str
    after_sha: str
    state: str
    reason: str
    bug: str
    who: str
    at: datetime

    @property
    def key(self) -> ChangeKey:
        return (self.series_id, self.before_sha, self.after_sha)


class TriageRecords(StorePart):
    """The triage of a store's changes; get it from :attr:`perfwalk.store.Store.triage`."""

    def add(
        self,
        key: ChangeKey,
        *,
        state: str,
        reason: str,
        who: str,
        at: datetime,
        bug: str = "",
    ) -> TriageRow:
        """Store a new word on the change ``key`` (the earlier ones stay: its history)
        and return it. The series must exist."""
        series_id, before_sha, after_sha = key
        with self._write(f"store the triage of a change of series {series_id}") as conn:
            if conn.scalar(select(_s.c.id).where(_s.c.id == series_id)) is None:
                raise StoreError(
                    f"result store {self._db.shown}: no series with id {series_id}",
                    hint="`perfwalk changes` lists the changes with their series",
                )
            values = {
                "series_id": series_id,
                "before_sha": before_sha,
                "after_sha": after_sha,
                "state": state,
                "reason": reason,
                "bug": bug,
                "who": who,
                "at": at,
            }
            new_id = int(conn.execute(_t.insert().values(values).returning(_t.c.id)).scalar_one())
            row = conn.execute(select(_t).where(_t.c.id == new_id)).one()
        return _row(row)

    def current(self, series_ids: list[int] | None = None) -> dict[ChangeKey, TriageRow]:
        """The current word on every triaged change (of ``series_ids``, or of every
        series), by key: one query."""
        newest = select(func.max(_t.c.id)).group_by(_t.c.series_id, _t.c.before_sha, _t.c.after_sha)
        if series_ids is not None:
            newest = newest.where(_t.c.series_id.in_(series_ids))
        query = select(_t).where(_t.c.id.in_(newest.scalar_subquery()))
        with self._read("read the triage of the changes") as conn:
            rows = [_row(row) for row in conn.execute(query)]
        return {row.key: row for row in rows}

    def history(self, key: ChangeKey) -> list[TriageRow]:
        """Every word on the change ``key``, oldest first (the last is the current one)."""
        series_id, before_sha, after_sha = key
        query = (
            select(_t)
            .where(
                _t.c.series_id == series_id,
                _t.c.before_sha == before_sha,
                _t.c.after_sha == after_sha,
            )
            .order_by(_t.c.id)
        )
        with self._read(f"read the triage history of a change of series {series_id}") as conn:
            return [_row(row) for row in conn.execute(query)]


def _row(row: Row[Any]) -> TriageRow:
    return TriageRow(
        id=int(row.id),
        series_id=int(row.series_id),
        before_sha=row.before_sha,
        after_sha=row.after_sha,
        state=row.state,
        reason=row.reason,
        bug=row.bug,
        who=row.who,
        at=row.at,
    )
