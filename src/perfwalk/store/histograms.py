"""The histograms of a store: each distribution a result reported whole (a latency
histogram; :class:`perfwalk.model.Histogram`), written with its repetition, in the same
transaction as its values, and read back for a series' pages (the heatmap over the
checkouts, each repetition's histogram on the checkout page)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, select

from perfwalk.model import Histogram
from perfwalk.store import schema
from perfwalk.store.connect import StorePart
from perfwalk.store.records import NewResult

_h = schema.histogram
_rs = schema.result
_rp = schema.repetition
_ck = schema.checkout


@dataclass(frozen=True, kw_only=True)
class HistogramRow:
    """A stored histogram, with where it was measured."""

    idx: int  # the checkout's index in its series
    repetition: int  # the repetition's index at the checkout
    test: str
    role: str
    histogram: Histogram


def insert_histograms(
    conn: Connection, results: Sequence[NewResult], result_ids: Sequence[int]
) -> None:
    """Write the histograms that the values of ``results`` carry (each once per
    result, by its name), as results ``result_ids``."""
    rows = []
    for result, result_id in zip(results, result_ids, strict=True):
        seen: set[str] = set()
        for value, _ in result.values:
            histogram = value.histogram
            if histogram is None or histogram.name in seen:
                continue
            seen.add(histogram.name)
            rows.append(
                {
                    "result_id": result_id,
                    "name": histogram.name,
                    "unit": histogram.unit,
                    "buckets": [[low, high, count] for low, high, count in histogram.buckets],
                }
            )
    if rows:
        conn.execute(_h.insert(), rows)


class HistogramRecords(StorePart):
    """The histograms of a store's series; get it from
    :attr:`perfwalk.store.Store.histograms`."""

    def of_series(self, series_id: int) -> list[HistogramRow]:
        """Every histogram of series ``series_id``, by checkout, repetition, test and
        the order they were stored in."""
        query = (
            select(_ck.c.idx, _rp.c.idx, _rs.c.test, _rs.c.role, _h.c.name, _h.c.unit, _h.c.buckets)
            .join(_rs, _h.c.result_id == _rs.c.id)
            .join(_rp, _rs.c.repetition_id == _rp.c.id)
            .join(_ck, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
            .order_by(_ck.c.idx, _rp.c.idx, _h.c.id)
        )
        with self._read(f"read the histograms of series {series_id}") as conn:
            return [
                HistogramRow(
                    idx=int(idx),
                    repetition=int(rep),
                    test=test,
                    role=role,
                    histogram=Histogram(
                        name, unit, tuple((float(lo), float(hi), int(n)) for lo, hi, n in buckets)
                    ),
                )
                for idx, rep, test, role, name, unit, buckets in conn.execute(query)
            ]
