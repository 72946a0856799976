"""The values parsers lost, per checkout and test: the metrics a passing repetition of
the test lacked that it gave at the checkouts before (found by
:func:`perfwalk.analysis.lost_values.lost_values` over the whole series at the end of
a walk and after a reparse, and written whole for the series). The checkout page
marks them; the site's manifest sees them change."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from perfwalk.store import schema
from perfwalk.store.connect import StorePart

_pl = schema.parser_loss
_ck = schema.checkout

#: a loss: (checkout index, test, metrics the checkouts before gave, metrics lacked)
Loss = tuple[int, str, tuple[str, ...], tuple[str, ...]]


class ParserLosses(StorePart):
    """The parser losses of a store's series; get it from
    :attr:`perfwalk.store.Store.parser_losses`."""

    def replace(self, series_id: int, losses: Sequence[Loss]) -> None:
        """The losses of series ``series_id`` are ``losses`` (those stored before go)."""
        mine = select(_ck.c.id).where(_ck.c.series_id == series_id)
        with self._write(f"store the parser losses of series {series_id}") as conn:
            ids = {
                int(idx): int(cid)
                for cid, idx in conn.execute(
                    select(_ck.c.id, _ck.c.idx).where(_ck.c.series_id == series_id)
                )
            }
            conn.execute(_pl.delete().where(_pl.c.checkout_id.in_(mine)))
            rows = [
                {
                    "checkout_id": ids[idx],
                    "test": test,
                    "known": list(known),
                    "missing": list(missing),
                }
                for idx, test, known, missing in losses
                if idx in ids
            ]
            if rows:
                conn.execute(_pl.insert(), rows)

    def of_series(self, series_id: int) -> list[Loss]:
        """The losses of series ``series_id``, by checkout index and test."""
        query = (
            select(_ck.c.idx, _pl.c.test, _pl.c.known, _pl.c.missing)
            .join(_ck, _pl.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
            .order_by(_ck.c.idx, _pl.c.test)
        )
        with self._read(f"read the parser losses of series {series_id}") as conn:
            return [
                (int(idx), test, tuple(known), tuple(missing))
                for idx, test, known, missing in conn.execute(query)
            ]
