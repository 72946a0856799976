"""The profiles of a store: per profiled run of a test at a checkout, its folded
stacks (:mod:`perfwalk.folded`), compressed and bounded.

A profile is either the checkout's extra run (``repetition`` None: one more run of
the test under the profiler, after the counted repetitions; its values are kept
here, never in ``value``, so that no summary, change, drill or try counts them) or
the run of a counted repetition (``repetitions = "all"``). Its stacks are stored as
zlib-compressed folded text, heaviest first, at most ``limit`` bytes before
compression: beyond it the lightest stacks are cut and ``dropped`` says how many
samples they held (``samples`` is always every sample the profiler took). Before
that, its stacks are bounded (:func:`perfwalk.folded.bound_stacks`: depth, counts),
what a bound changed said in its message, and ``samples`` and ``dropped`` are at most
:data:`~perfwalk.folded.MOST_SAMPLES`: nothing a profiler writes can fail the store.
A profiler that failed leaves a row too, with no stacks, its status (XFAIL) and the
reason. Retention (:mod:`perfwalk.store.retention`) may drop a profile's stacks: its
row, samples and values stay, ``pruned`` says when and why.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row, Select, select

from perfwalk.errors import StoreError
from perfwalk.folded import MOST_SAMPLES, FoldedStacks, bound_stacks, parse_folded
from perfwalk.model import Pruned, Status
from perfwalk.store import schema
from perfwalk.store.connect import StorePart
from perfwalk.store.retention import prune_columns, pruned_of

_p = schema.profile
_c = schema.checkout
_pr = schema.prune


def bounded(stacks: FoldedStacks, limit: int) -> tuple[str, int]:
    """The folded text of the heaviest ``stacks`` that fit in ``limit`` bytes (UTF-8),
    and the samples of the stacks left out."""
    ordered = sorted(stacks.items(), key=lambda item: (-item[1], item[0]))
    lines: list[str] = []
    size = 0
    dropped = 0
    for stack, count in ordered:
        line = f"{stack} {count}\n"
        length = len(line.encode("utf-8"))
        if size + length > limit:
            dropped += count
            continue  # a lighter but shorter stack may still fit
        lines.append(line)
        size += length
    return "".join(lines), dropped


@dataclass(frozen=True)
class NewProfile:
    """One profiled run: where it ran, with what, and what it gave."""

    test: str
    role: str
    host: str
    tool: str
    event: str
    status: Status
    message: str
    stacks: FoldedStacks = field(default_factory=dict)
    repetition: int | None = None  # None: the extra, uncounted run
    values: tuple[tuple[str, float, str], ...] = ()  # (name, value, unit) of the extra run
    duration: float | None = None


@dataclass(frozen=True)
class ProfileRow:
    """A stored profile, its stacks as stored (cut to the limit)."""

    id: int
    series_id: int
    checkout_id: int
    checkout_idx: int
    repetition: int | None
    test: str
    role: str
    host: str
    tool: str
    event: str
    status: Status
    message: str
    samples: int  # every sample taken
    dropped: int  # samples of the stacks cut by the limit
    stacks: FoldedStacks
    values: tuple[tuple[str, float, str], ...]
    duration: float | None
    recorded_at: datetime
    pruned: Pruned | None = None  # its stacks dropped by retention (``stacks`` empty)

    @property
    def cut(self) -> bool:
        return self.dropped > 0

    @property
    def extra(self) -> bool:
        """The checkout's extra, uncounted run (not a counted repetition's)."""
        return self.repetition is None


class ProfileRecords(StorePart):
    """The profiles of this store; get it from :attr:`perfwalk.store.Store.profiles`."""

    def add(self, checkout_id: int, new: NewProfile, *, limit: int) -> int:
        """Store ``new`` (its stacks bounded, cut to ``limit`` bytes) for the checkout;
        its id."""
        stacks, notes = bound_stacks(new.stacks)
        text, dropped = bounded(stacks, limit)
        message = "; ".join(part for part in (new.message, *notes) if part)
        with self._write(f"store a profile of {new.test} at checkout {checkout_id}") as conn:
            series_id = conn.scalar(select(_c.c.series_id).where(_c.c.id == checkout_id))
            if series_id is None:
                raise StoreError(
                    f"no checkout {checkout_id} to profile",
                    hint="store the checkout (Store.add_checkout) before its profiles",
                )
            found = conn.execute(
                _p.insert()
                .values(
                    series_id=series_id,
                    checkout_id=checkout_id,
                    repetition=new.repetition,
                    test=new.test,
                    role=new.role,
                    host=new.host,
                    tool=new.tool,
                    event=new.event,
                    status=int(new.status),
                    message=message,
                    samples=min(sum(stacks.values()), MOST_SAMPLES),
                    dropped=min(dropped, MOST_SAMPLES),
                    stacks=zlib.compress(text.encode("utf-8"), 6),
                    run_values=[[name, value, unit] for name, value, unit in new.values],
                    duration=new.duration,
                    recorded_at=datetime.now(UTC),
                )
                .returning(_p.c.id)
            ).scalar_one()
            return int(found)

    def at(self, checkout_id: int, test: str | None = None) -> tuple[ProfileRow, ...]:
        """The profiles of checkout ``checkout_id`` (of ``test`` only, when given), the
        extra run's first, then by repetition."""
        query = self._select().where(_p.c.checkout_id == checkout_id)
        if test is not None:
            query = query.where(_p.c.test == test)
        with self._read(f"read the profiles of checkout {checkout_id}") as conn:
            rows = conn.execute(query).all()
        return _ordered(rows)

    def get(self, profile_id: int) -> ProfileRow | None:
        """The profile ``profile_id`` (as a drill's answer names it); None: no such one."""
        query = self._select().where(_p.c.id == profile_id)
        with self._read(f"read profile {profile_id}") as conn:
            row = conn.execute(query).first()
        return None if row is None else _row(row)

    def shipped(self, profile_id: int) -> tuple[ProfileRow, bytes] | None:
        """The profile ``profile_id`` without its stacks read, and its folded text as
        stored (zlib, heaviest first): what a flame graph's data file carries as it is."""
        query = self._select().where(_p.c.id == profile_id)
        with self._read(f"read profile {profile_id}") as conn:
            row = conn.execute(query).first()
        return None if row is None else (_row(row, stacks=False), bytes(row.stacks))

    def in_series(self, series_id: int) -> tuple[ProfileRow, ...]:
        """Every profile of series ``series_id``, by checkout index."""
        query = self._select().where(_p.c.series_id == series_id)
        with self._read(f"read the profiles of series {series_id}") as conn:
            rows = conn.execute(query).all()
        return _ordered(rows)

    def listed(self, series_id: int) -> dict[int, tuple[tuple[str, int], ...]]:
        """The profiles of series ``series_id`` that hold samples (their stacks not
        pruned), by checkout index: (test, profile id) each, the extra run's first;
        their stacks are not read."""
        query = (
            select(_p.c.id, _p.c.test, _p.c.repetition, _c.c.idx)
            .join(_c, _c.c.id == _p.c.checkout_id)
            .where(
                _p.c.series_id == series_id,
                _p.c.status == int(Status.PASS),
                _p.c.samples > 0,
                _p.c.prune_id.is_(None),
            )
            .order_by(_c.c.idx, _p.c.test, _p.c.repetition.is_not(None), _p.c.repetition, _p.c.id)
        )
        found: dict[int, list[tuple[str, int]]] = {}
        with self._read(f"read the profiles listed in series {series_id}") as conn:
            for row in conn.execute(query):
                found.setdefault(int(row.idx), []).append((str(row.test), int(row.id)))
        return {idx: tuple(profiles) for idx, profiles in found.items()}

    def extra_done(self, checkout_id: int) -> set[str]:
        """The tests whose extra run at checkout ``checkout_id`` is stored (a resumed
        walk does not run them again)."""
        query = select(_p.c.test).where(_p.c.checkout_id == checkout_id, _p.c.repetition.is_(None))
        with self._read(f"read the profiled runs of checkout {checkout_id}") as conn:
            return {str(test) for test in conn.scalars(query)}

    @staticmethod
    def _select() -> Select[Any]:
        return (
            select(_p, _c.c.idx.label("checkout_idx"), *prune_columns())
            .join(_c, _c.c.id == _p.c.checkout_id)
            .outerjoin(_pr, _pr.c.id == _p.c.prune_id)
        )


def _ordered(rows: Sequence[Row[Any]]) -> tuple[ProfileRow, ...]:
    found = [_row(row) for row in rows]
    found.sort(
        key=lambda p: (p.checkout_idx, p.test, -1 if p.repetition is None else p.repetition, p.id)
    )
    return tuple(found)


def _row(row: Row[Any], *, stacks: bool = True) -> ProfileRow:
    pruned = pruned_of(row)
    stacks = stacks and pruned is None
    return ProfileRow(
        id=int(row.id),
        series_id=int(row.series_id),
        checkout_id=int(row.checkout_id),
        checkout_idx=int(row.checkout_idx),
        repetition=None if row.repetition is None else int(row.repetition),
        test=row.test,
        role=row.role,
        host=row.host,
        tool=row.tool,
        event=row.event,
        status=Status(row.status),
        message=row.message,
        samples=int(row.samples),
        dropped=int(row.dropped),
        stacks=parse_folded(zlib.decompress(row.stacks).decode("utf-8")) if stacks else {},
        values=tuple((str(n), float(v), str(u)) for n, v, u in row.run_values),
        duration=row.duration,
        recorded_at=row.recorded_at,
        pruned=pruned,
    )
