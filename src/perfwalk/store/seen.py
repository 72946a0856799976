"""The changes ``perfwalk watch`` has seen: one ``seen_change`` row per series and
commit range (a change's key, :attr:`perfwalk.report.change_list.ListedChange.key`).

A watch cycle drills, notifies and counts in its exit status only the changes that
are new: found now and not here yet. It adds them once it has handled them, so a
cycle that dies before that sees them again as new next time.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Connection, select

from perfwalk.store import schema
from perfwalk.store.connect import StorePart
from perfwalk.store.triage import ChangeKey

_s = schema.seen_change


class SeenChanges(StorePart):
    """The changes watch cycles have seen; get it from :attr:`perfwalk.store.Store.seen`."""

    def keys(self) -> set[ChangeKey]:
        """Every change seen so far."""
        with self._read("read the changes watch cycles saw") as conn:
            return _keys(conn)

    def add(self, keys: Iterable[ChangeKey], at: datetime) -> int:
        """Record ``keys`` as seen at ``at`` (those seen before keep their first time);
        return how many were new."""
        with self._write("store the changes a watch cycle saw") as conn:
            new = sorted(set(keys) - _keys(conn))
            if new:
                conn.execute(
                    _s.insert(),
                    [
                        {"series_id": s, "before_sha": b, "after_sha": a, "first_seen_at": at}
                        for s, b, a in new
                    ],
                )
            return len(new)


def _keys(conn: Connection) -> set[ChangeKey]:
    rows = conn.execute(select(_s.c.series_id, _s.c.before_sha, _s.c.after_sha))
    return {(row.series_id, row.before_sha, row.after_sha) for row in rows}
