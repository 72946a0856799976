"""Runtime modifiers of variants that are in place on a host: recorded before their
apply commands run, removed once their undo commands passed.

A walk killed (``kill -9``, a power cut) between the two leaves its record: the next
walk that leases the host finds it here and runs its undo commands before it measures
(:mod:`perfwalk.orchestrate.phases.modifiers`). A record keeps the undo commands themselves,
placeholders filled in, as they would have run, not a reference to the
configuration: the next walk may run another file, a job's own copy of it, or the
same file edited since (the variant renamed, its undo changed, a host variable
moved), and it must undo what was applied, not what is configured now.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, select

from perfwalk.store import schema
from perfwalk.store.connect import StorePart
from perfwalk.store.leases import Holder, process_start

_m = schema.applied_modifier


@dataclass(frozen=True, kw_only=True)
class NewModifier:
    """A runtime modifier about to be applied on a host (``host``: its lease name,
    ``member``: its name in the configuration)."""

    host: str
    member: str
    role: str
    variant: str
    modifier: int
    undo: tuple[str, ...]
    cwd: str
    timeout: float
    series_id: int | None


@dataclass(frozen=True, kw_only=True)
class AppliedModifier(NewModifier):
    """A runtime modifier recorded as in place, with the walk that applied it."""

    id: int
    token: str
    owner: str
    machine: str
    pid: int
    process_start: str
    applied_at: datetime

    def applier_alive(self) -> bool:
        """Whether the process that applied it still runs on this machine."""
        return self.machine == socket.gethostname() and (
            process_start(self.pid) == self.process_start
        )

    def describe(self) -> str:
        """``the modifier 0 of variant 'v1' on host dut (role dut), applied by root@lab
        (pid 42, series 3) at 2026-01-01 10:00:00 UTC``."""
        role = f" (role {self.role})" if self.role else ""
        series = "" if self.series_id is None else f", series {self.series_id}"
        return (
            f"the modifier {self.modifier} of variant {self.variant!r} on host {self.member}"
            f"{role}, applied by {self.owner} (pid {self.pid} on {self.machine}{series}) "
            f"at {self.applied_at:%Y-%m-%d %H:%M:%S} UTC"
        )


class AppliedModifiers(StorePart):
    """The modifiers in place; get it from :attr:`perfwalk.store.Store.modifiers`."""

    def record(self, new: NewModifier, holder: Holder, now: datetime) -> int:
        """``holder`` applies ``new`` from ``now`` on: its record (in place of one it
        left of the same modifier on the same host, whose undo failed); its id."""
        with self._write(f"record the modifier of variant {new.variant} on {new.member}") as conn:
            conn.execute(
                _m.delete().where(
                    _m.c.token == holder.token,
                    _m.c.host == new.host,
                    _m.c.variant == new.variant,
                    _m.c.modifier == new.modifier,
                    _m.c.role == new.role,
                )
            )
            done = conn.execute(
                _m.insert().values(
                    host=new.host,
                    member=new.member,
                    role=new.role,
                    variant=new.variant,
                    modifier=new.modifier,
                    undo=list(new.undo),
                    cwd=new.cwd,
                    timeout=new.timeout,
                    series_id=new.series_id,
                    token=holder.token,
                    owner=holder.owner,
                    machine=holder.machine,
                    pid=holder.pid,
                    process_start=holder.process_start,
                    applied_at=now,
                )
            )
            key = done.inserted_primary_key
            assert key is not None
            return int(key[0])

    def clear(self, modifier_id: int) -> None:
        """The modifier ``modifier_id`` is undone."""
        with self._write(f"clear the applied modifier {modifier_id}") as conn:
            conn.execute(_m.delete().where(_m.c.id == modifier_id))

    def forget(self, modifier_id: int) -> AppliedModifier | None:
        """Remove the record ``modifier_id`` (undone by hand); it, or None when there
        is none."""
        with self._write(f"forget the applied modifier {modifier_id}") as conn:
            row = conn.execute(select(_m).where(_m.c.id == modifier_id)).first()
            if row is None:
                return None
            conn.execute(_m.delete().where(_m.c.id == modifier_id))
        return _row(row)

    def on(self, hosts: Sequence[str] | None = None) -> list[AppliedModifier]:
        """The modifiers in place on ``hosts`` (lease names; None: on every host), the
        oldest first."""
        query = select(_m).order_by(_m.c.id)
        if hosts is not None:
            query = query.where(_m.c.host.in_(list(hosts)))
        with self._read("read the applied modifiers") as conn:
            return [_row(row) for row in conn.execute(query)]


def _row(row: Row[Any]) -> AppliedModifier:
    return AppliedModifier(
        id=row.id,
        host=row.host,
        member=row.member,
        role=row.role,
        variant=row.variant,
        modifier=row.modifier,
        undo=tuple(row.undo),
        cwd=row.cwd,
        timeout=row.timeout,
        series_id=row.series_id,
        token=row.token,
        owner=row.owner,
        machine=row.machine,
        pid=row.pid,
        process_start=row.process_start,
        applied_at=row.applied_at,
    )
