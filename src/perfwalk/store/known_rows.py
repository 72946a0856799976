"""Rows looked up by id that must be there: the one error that names a missing one.

The base of the parts of :class:`perfwalk.store.Store` that read and write its own
tables (series, checkouts, repetitions, their values).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from perfwalk.errors import StoreError
from perfwalk.store.connect import Transactions


class KnownRows(Transactions):
    """Transactions on a store whose ids a caller gives: an unknown id is a StoreError."""

    def _unknown(self, what: str, ident: int) -> StoreError:
        return StoreError(
            f"result store {self._db.shown}: no {what} with id {ident}",
            hint="list the series of the store to find the right id",
        )

    def _require(self, conn: Connection, table: Any, ident: int, what: str) -> None:
        if conn.scalar(select(table.c.id).where(table.c.id == ident)) is None:
            raise self._unknown(what, ident)
