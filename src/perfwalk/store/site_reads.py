"""The reads of the published site (read-only): a block of consecutive checkouts of a
series at a time, as plain rows straight from the driver.

A block of 100 checkouts × 100 metrics × 5 repetitions is 100 pack rows
(:mod:`perfwalk.store.packs`), its commits and its logs: a few queries, whatever
the number of values.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

from sqlalchemy import func, select

from perfwalk.model import Commit, Pruned
from perfwalk.store import schema
from perfwalk.store.bulk import plain_rows
from perfwalk.store.connect import StorePart
from perfwalk.store.packs import PACK_FORMAT, build_packs
from perfwalk.store.records import stored_commit
from perfwalk.store.retention import checkout_logs, prune_rows

_ck = schema.checkout
_cc = schema.checkout_commit
_gc = schema.git_commit
_qr = schema.quirk_run
_rp = schema.repetition
_rs = schema.result
_log = schema.log
_pk = schema.checkout_pack
_st = schema.step
_sn = schema.snapshot
_s = schema.series
_q = schema.quirk
_tr = schema.triage
_dr = schema.drill
_cf = schema.confirmation


class PackRow(NamedTuple):
    """The pack of one checkout (see :mod:`perfwalk.store.packs` for each column)."""

    idx: int
    head: str
    detail: str
    vals: bytes
    passed: bytes
    stats: bytes


class LogRow(NamedTuple):
    """A stored log as it is kept: compressed (``compression``: ``zlib``), as the
    driver gives it (``truncated`` may be 0 or 1); ``pruned``: its output dropped by
    retention (``data`` empty, ``size`` what it held)."""

    id: int
    compression: str
    data: bytes
    size: int  # bytes kept
    total: int  # bytes produced
    truncated: bool
    pruned: Pruned | None = None


class StepSite(NamedTuple):
    """A step of a repetition as the checkout page shows it (see
    :class:`~perfwalk.store.records.StepRow`); ``seconds`` from its start and end."""

    id: int
    repetition_idx: int
    test: str
    phase: str
    role: str
    host: str
    kind: str
    name: str
    command: str
    status: int
    message: str
    exit_code: int | None
    seconds: float
    stdout_log_id: int
    stderr_log_id: int


class SnapshotSite(NamedTuple):
    """A snapshot of a repetition as the checkout page shows it."""

    repetition_idx: int
    test: str
    name: str
    role: str
    host: str
    status: int
    message: str
    before: dict[str, int | float] | None
    after: dict[str, int | float] | None


class SiteReads(StorePart):
    """What publishing reads, a block of checkouts at a time (``store.site``)."""

    def packs(self, series_id: int, first_idx: int, last_idx: int) -> list[PackRow]:
        """The packs of checkouts ``first_idx``…``last_idx`` (inclusive) that have
        repetitions, in index order; a missing or older pack is built on the fly."""
        query = (
            select(
                _ck.c.idx,
                _ck.c.id,
                _pk.c.format,
                _pk.c.head,
                _pk.c.detail,
                _pk.c.vals,
                _pk.c.passed,
                _pk.c.stats,
            )
            .select_from(_ck)
            .outerjoin(_pk, _pk.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id, _ck.c.idx.between(first_idx, last_idx))
            .order_by(_ck.c.idx)
        )
        with self._read(f"read the checkout packs of series {series_id}") as conn:
            rows = plain_rows(conn, query)
            stale = {cid: idx for idx, cid, fmt, *_rest in rows if fmt != PACK_FORMAT}
            built = build_packs(conn, sorted(stale)) if stale else {}
        found = []
        for idx, cid, fmt, *stored in rows:
            columns = stored
            if fmt != PACK_FORMAT:
                pack = built.get(cid)
                if pack is None:
                    continue  # no repetition
                columns = [pack[name] for name in ("head", "detail", "vals", "passed", "stats")]
            head, detail, vals, passed, stats = columns
            found.append(PackRow(idx, head, detail, bytes(vals), bytes(passed), bytes(stats)))
        return found

    def commits(self, series_id: int, first_idx: int, last_idx: int) -> dict[int, list[Commit]]:
        """The commits since the previous checkout of checkouts ``first_idx``…``last_idx``
        (inclusive), by checkout index, in the order the walk gave them."""
        query = (
            select(_ck.c.idx.label("checkout_idx"), _gc)
            .select_from(_ck)
            .join(_cc, _cc.c.checkout_id == _ck.c.id)
            .join(_gc, _cc.c.commit_id == _gc.c.id)
            .where(_ck.c.series_id == series_id, _ck.c.idx.between(first_idx, last_idx))
            .order_by(_ck.c.idx, _cc.c.position)
        )
        found: dict[int, list[Commit]] = defaultdict(list)
        with self._read(f"read the commits of series {series_id}") as conn:
            for row in conn.execute(query):
                found[row.checkout_idx].append(stored_commit(row))
        return dict(found)

    def logs(self, series_id: int, first_idx: int, last_idx: int) -> list[LogRow]:
        """Every log with content of checkouts ``first_idx``…``last_idx`` (inclusive):
        builds, quirk runs, between repetitions, each result's and step's outputs
        (:func:`~perfwalk.store.retention.checkout_logs`); by id.

        The ids first, then the logs by ranges of ids: the logs of a block were
        written together, so a few range scans read thousands."""
        outputs = checkout_logs(
            _ck.c.series_id == series_id, _ck.c.idx.between(first_idx, last_idx)
        ).subquery()
        found: list[LogRow] = []
        with self._read(f"read the logs of series {series_id}") as conn:
            wanted = {i for (i,) in plain_rows(conn, select(outputs.c.log_id))}
            prunes: dict[int, Pruned] | None = None
            for low, high in _runs(sorted(wanted)):
                query = select(
                    _log.c.id,
                    _log.c.compression,
                    _log.c.data,
                    _log.c.size,
                    _log.c.total,
                    _log.c.truncated,
                    _log.c.prune_id,
                ).where(_log.c.id.between(low, high), _log.c.total > 0)
                for *row, prune_id in plain_rows(conn, query):
                    if row[0] not in wanted:
                        continue
                    if prune_id is not None and prunes is None:
                        prunes = {p.id: p.pruned for p in prune_rows(conn)}
                    pruned = None if prunes is None or prune_id is None else prunes[prune_id]
                    found.append(LogRow._make([*row, pruned]))
        return sorted(found, key=lambda row: row.id)

    def steps(self, series_id: int, first_idx: int, last_idx: int) -> dict[int, list[StepSite]]:
        """The phase steps of the repetitions of checkouts ``first_idx``…``last_idx``
        (inclusive), by checkout index, in the order they ran."""
        query = (
            select(
                _ck.c.idx,
                _st.c.id,
                _rp.c.idx,
                _st.c.test,
                _st.c.phase,
                _st.c.role,
                _st.c.host,
                _st.c.kind,
                _st.c.name,
                _st.c.command,
                _st.c.status,
                _st.c.message,
                _st.c.exit_code,
                _st.c.started_at,
                _st.c.finished_at,
                _st.c.stdout_log_id,
                _st.c.stderr_log_id,
            )
            .select_from(_ck)
            .join(_rp, _rp.c.checkout_id == _ck.c.id)
            .join(_st, _st.c.repetition_id == _rp.c.id)
            .where(_ck.c.series_id == series_id, _ck.c.idx.between(first_idx, last_idx))
            .order_by(_ck.c.idx, _rp.c.idx, _st.c.id)
        )
        found: dict[int, list[StepSite]] = defaultdict(list)
        with self._read(f"read the steps of series {series_id}") as conn:
            for row in conn.execute(query):
                idx, *head, started, finished, out, err = row
                seconds = (finished - started).total_seconds()
                found[int(idx)].append(StepSite._make([*head, seconds, out, err]))
        return dict(found)

    def snapshots(
        self, series_id: int, first_idx: int, last_idx: int
    ) -> dict[int, list[SnapshotSite]]:
        """The snapshots of the repetitions of checkouts ``first_idx``…``last_idx``
        (inclusive), by checkout index, in the order stored."""
        query = (
            select(
                _ck.c.idx,
                _rp.c.idx,
                _sn.c.test,
                _sn.c.name,
                _sn.c.role,
                _sn.c.host,
                _sn.c.status,
                _sn.c.message,
                _sn.c.before,
                _sn.c.after,
            )
            .select_from(_ck)
            .join(_rp, _rp.c.checkout_id == _ck.c.id)
            .join(_sn, _sn.c.repetition_id == _rp.c.id)
            .where(_ck.c.series_id == series_id, _ck.c.idx.between(first_idx, last_idx))
            .order_by(_ck.c.idx, _rp.c.idx, _sn.c.id)
        )
        found: dict[int, list[SnapshotSite]] = defaultdict(list)
        with self._read(f"read the snapshots of series {series_id}") as conn:
            for idx, *rest in conn.execute(query):
                found[int(idx)].append(SnapshotSite(*rest))
        return dict(found)

    def generation(self) -> tuple[object, ...]:
        """What changes with every write the change analysis reads, in one cheap query:
        a new series, checkout, repetition (with its values), quirk, commit, triage
        word, drill verdict or re-measure; a series that ended; a checkout built.
        Equal generations, equal changes (no row here is ever deleted but
        re-measures, which are counted)."""
        counted = (
            (_s, (func.count(), func.max(_s.c.id), func.count(_s.c.finished_at))),
            (_ck, (func.max(_ck.c.id), func.count(_ck.c.build_status))),
            (_rp, (func.max(_rp.c.id),)),
            (_q, (func.max(_q.c.id),)),
            (_gc, (func.max(_gc.c.id),)),
            (_tr, (func.max(_tr.c.id),)),
            (_dr, (func.count(), func.count(_dr.c.verdict))),
            (_cf, (func.count(), func.max(_cf.c.measured_at))),
        )
        columns = [
            select(each).select_from(table).scalar_subquery()
            for table, aggregates in counted
            for each in aggregates
        ]
        with self._read("read what the changes depend on") as conn:
            row = conn.execute(select(*columns)).one()
        return tuple(row)

    def repetition_marks(self, series_id: int) -> dict[int, tuple[int, int]]:
        """(number of repetitions, newest repetition id) of every checkout index that has
        repetitions: what changes when a run adds results."""
        query = (
            select(_ck.c.idx, func.count(_rp.c.id), func.max(_rp.c.id))
            .select_from(_ck)
            .join(_rp, _rp.c.checkout_id == _ck.c.id)
            .where(_ck.c.series_id == series_id)
            .group_by(_ck.c.idx)
        )
        with self._read(f"read the repetition counts of series {series_id}") as conn:
            return {int(idx): (int(n), int(top)) for idx, n, top in plain_rows(conn, query)}


def _runs(ids: list[int], gap: int = 1000) -> list[tuple[int, int]]:
    """Sorted ``ids`` as ranges (low, high) that skip gaps wider than ``gap``."""
    runs: list[tuple[int, int]] = []
    for i in ids:
        if runs and i - runs[-1][1] <= gap:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs
