"""What a walk really ran, per checkout: on each host, the running kernel's version
string and the compiler's (``build_fact``); and the symbol list of the ``[build]
symbols`` binary with its difference from the previous checkout's (``symbol_list``:
the list and the diff kept as compressed logs, their counts as columns, so that the
pages read a few small rows per checkout).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import select

from perfwalk.model import Log
from perfwalk.store import logs, schema
from perfwalk.store.bulk import insert_returning_ids
from perfwalk.store.connect import StorePart

_ck = schema.checkout
_bf = schema.build_fact
_sl = schema.symbol_list
_log = schema.log


@dataclass(frozen=True)
class HostFacts:
    """The kernel and the compiler of one host at one checkout."""

    host: str
    kernel: str
    compiler: str


@dataclass(frozen=True)
class NewSymbols:
    """The symbol list of a checkout's binary (None when there is none, ``message``
    saying why), and its difference from checkout ``against_idx``'s (counts and text;
    None when there is no previous list)."""

    binary: str
    listing: Log | None
    count: int | None
    message: str = ""
    against_idx: int | None = None
    added: int | None = None
    removed: int | None = None
    moved: int | None = None
    diff: Log | None = None


@dataclass(frozen=True)
class SymbolsRow:
    """A stored symbol list: counts, the ids of the list and diff logs, and why not."""

    binary: str
    count: int | None
    list_log_id: int | None
    against_idx: int | None
    added: int | None
    removed: int | None
    moved: int | None
    diff_log_id: int | None
    message: str

    @property
    def compared(self) -> bool:
        return self.against_idx is not None and self.added is not None


@dataclass(frozen=True)
class CheckoutFacts:
    """What one checkout ran: its hosts' facts (by host name) and its symbol list."""

    hosts: tuple[HostFacts, ...] = ()
    symbols: SymbolsRow | None = None


class BuildFactRecords(StorePart):
    """The facts of the checkouts of this store; get it from
    :attr:`perfwalk.store.Store.build_facts`."""

    def set_hosts(self, checkout_id: int, facts: Mapping[str, tuple[str, str]]) -> None:
        """Record (host → (kernel, compiler)) of a checkout, replacing earlier ones."""
        with self._write(f"store the kernel and compiler of checkout {checkout_id}") as conn:
            conn.execute(_bf.delete().where(_bf.c.checkout_id == checkout_id))
            if facts:
                conn.execute(
                    _bf.insert(),
                    [
                        {"checkout_id": checkout_id, "host": h, "kernel": k, "compiler": c}
                        for h, (k, c) in sorted(facts.items())
                    ],
                )

    def set_symbols(self, checkout_id: int, new: NewSymbols) -> None:
        """Record the symbol list of a checkout, replacing an earlier one and its logs."""
        with self._write(f"store the symbol list of checkout {checkout_id}") as conn:
            old = conn.execute(
                select(_sl.c.list_log_id, _sl.c.diff_log_id).where(_sl.c.checkout_id == checkout_id)
            ).first()
            kept = [log for log in (new.listing, new.diff) if log is not None]
            packed = [logs.pack(log, self._db.log_secrets) for log in kept]
            ids = iter(insert_returning_ids(conn, _log, packed))
            list_id = next(ids) if new.listing is not None else None
            diff_id = next(ids) if new.diff is not None else None
            conn.execute(_sl.delete().where(_sl.c.checkout_id == checkout_id))
            conn.execute(
                _sl.insert().values(
                    checkout_id=checkout_id,
                    binary=new.binary,
                    count=new.count,
                    list_log_id=list_id,
                    against_idx=new.against_idx,
                    added=new.added,
                    removed=new.removed,
                    moved=new.moved,
                    diff_log_id=diff_id,
                    message=new.message,
                )
            )
            if old is not None:
                gone = [i for i in old if i is not None]
                if gone:
                    conn.execute(_log.delete().where(_log.c.id.in_(gone)))

    def previous_listing(self, checkout_id: int) -> tuple[int, int] | None:
        """(index, list log id) of the nearest checkout before ``checkout_id`` in its
        series that has a symbol list; None when none has."""
        with self._read(f"read the symbol lists before checkout {checkout_id}") as conn:
            me = conn.execute(
                select(_ck.c.series_id, _ck.c.idx).where(_ck.c.id == checkout_id)
            ).first()
            if me is None:
                return None
            row = conn.execute(
                select(_ck.c.idx, _sl.c.list_log_id)
                .select_from(_ck)
                .join(_sl, _sl.c.checkout_id == _ck.c.id)
                .where(
                    _ck.c.series_id == me.series_id,
                    _ck.c.idx < me.idx,
                    _sl.c.list_log_id.is_not(None),
                )
                .order_by(_ck.c.idx.desc())
                .limit(1)
            ).first()
        return None if row is None else (int(row.idx), int(row.list_log_id))

    def of_series(self, series_id: int) -> dict[int, CheckoutFacts]:
        """The facts of every checkout of a series that has some, by checkout index."""
        hosts: dict[int, list[HostFacts]] = {}
        symbols: dict[int, SymbolsRow] = {}
        with self._read(f"read the build facts of series {series_id}") as conn:
            query = (
                select(_ck.c.idx, _bf.c.host, _bf.c.kernel, _bf.c.compiler)
                .select_from(_ck)
                .join(_bf, _bf.c.checkout_id == _ck.c.id)
                .where(_ck.c.series_id == series_id)
                .order_by(_ck.c.idx, _bf.c.host)
            )
            for row in conn.execute(query):
                hosts.setdefault(int(row.idx), []).append(
                    HostFacts(row.host, row.kernel, row.compiler)
                )
            query = (
                select(_ck.c.idx, _sl)
                .select_from(_ck)
                .join(_sl, _sl.c.checkout_id == _ck.c.id)
                .where(_ck.c.series_id == series_id)
            )
            for row in conn.execute(query):
                symbols[int(row.idx)] = SymbolsRow(
                    binary=row.binary,
                    count=row._mapping["count"],
                    list_log_id=row.list_log_id,
                    against_idx=row.against_idx,
                    added=row.added,
                    removed=row.removed,
                    moved=row.moved,
                    diff_log_id=row.diff_log_id,
                    message=row.message,
                )
        return {
            idx: CheckoutFacts(tuple(hosts.get(idx, ())), symbols.get(idx))
            for idx in sorted(hosts.keys() | symbols.keys())
        }
