"""Conductor runs in the store: one ``conduct_run`` row per ``perfwalk conduct``, and
every step of every trial (phase, player, output, status, start and end) in ``step``,
and the values a parser found in each trial's run-phase outputs in ``conduct_value``.

Each trial is written in one transaction when it ends: a run stopped in the
middle keeps every finished trial.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

from sqlalchemy import Row, delete, select

from perfwalk.errors import StoreError
from perfwalk.model import Value
from perfwalk.store import schema
from perfwalk.store.connect import StorePart
from perfwalk.store.phase_steps import insert_steps, read_steps
from perfwalk.store.records import NewStep, StepRow

ConductState = Literal["running", "finished", "interrupted"]

_run = schema.conduct_run
_st = schema.step
_val = schema.conduct_value


@dataclass(frozen=True)
class ConductValue:
    """A value of one trial of a conductor run, as its parser named it."""

    trial: int
    name: str
    value: float
    unit: str


@dataclass(frozen=True, kw_only=True)
class NewConductRun:
    """A conductor run about to start: the files it read and its players."""

    name: str
    master: str
    config_text: str
    players: Mapping[str, Mapping[str, str]]
    trials: int
    started_at: datetime


@dataclass(frozen=True, kw_only=True)
class ConductRunRow:
    """A stored conductor run."""

    id: int
    name: str
    master: str
    config_text: str
    players: dict[str, Any]
    trials: int
    state: ConductState
    started_at: datetime
    finished_at: datetime | None


class ConductRecords(StorePart):
    """The conductor runs of a store; get it from :attr:`perfwalk.store.Store.conduct`."""

    def create(self, new: NewConductRun) -> int:
        with self._write(f"store the conductor run of {new.master}") as conn:
            return int(
                conn.execute(
                    _run.insert()
                    .values(
                        name=new.name,
                        master=new.master,
                        config_text=new.config_text,
                        players={k: dict(v) for k, v in new.players.items()},
                        trials=new.trials,
                        state="running",
                        started_at=new.started_at,
                        finished_at=None,
                    )
                    .returning(_run.c.id)
                ).scalar_one()
            )

    def add_trial(self, conduct_id: int, trial: int, steps: Sequence[NewStep]) -> None:
        """Store every step of one trial, in one transaction."""
        with self._write(f"store trial {trial} of conductor run {conduct_id}") as conn:
            insert_steps(conn, steps, self._db.log_secrets, conduct_id=conduct_id, trial=trial)

    def finish(self, conduct_id: int, state: ConductState, finished_at: datetime) -> None:
        with self._write(f"finish conductor run {conduct_id}") as conn:
            conn.execute(
                _run.update()
                .where(_run.c.id == conduct_id)
                .values(state=state, finished_at=finished_at)
            )

    def runs(self) -> list[ConductRunRow]:
        """Every conductor run, newest first."""
        with self._read("list the conductor runs") as conn:
            query = select(_run).order_by(_run.c.started_at.desc(), _run.c.id.desc())
            return [_row(row) for row in conn.execute(query)]

    def run(self, conduct_id: int) -> ConductRunRow:
        with self._read(f"read conductor run {conduct_id}") as conn:
            row = conn.execute(select(_run).where(_run.c.id == conduct_id)).first()
        if row is None:
            known = ", ".join(str(run.id) for run in reversed(self.runs())) or "none"
            raise StoreError(
                f"result store {self._db.shown}: no conductor run with id {conduct_id}",
                hint=f"the conductor runs stored there: {known}",
            )
        return _row(row)

    def steps(self, conduct_id: int) -> list[StepRow]:
        """Every step of a conductor run, trial by trial, in the order they ran."""
        with self._read(f"read the steps of conductor run {conduct_id}") as conn:
            return read_steps(conn, _st.c.conduct_id == conduct_id)

    def set_values(self, conduct_id: int, values: Mapping[int, Sequence[Value]]) -> int:
        """Store the values of each trial (trial -> values), in place of those stored
        before for the run; how many were stored."""
        rows = [
            {
                "conduct_id": conduct_id,
                "trial": trial,
                "name": v.name,
                "value": v.value,
                "unit": v.unit,
            }
            for trial, found in values.items()
            for v in found
        ]
        with self._write(f"store the values of conductor run {conduct_id}") as conn:
            conn.execute(delete(_val).where(_val.c.conduct_id == conduct_id))
            if rows:
                conn.execute(_val.insert(), rows)
        return len(rows)

    def values(self, conduct_id: int) -> list[ConductValue]:
        """The values of a conductor run, by trial then name."""
        with self._read(f"read the values of conductor run {conduct_id}") as conn:
            query = (
                select(_val)
                .where(_val.c.conduct_id == conduct_id)
                .order_by(_val.c.trial, _val.c.name)
            )
            return [ConductValue(r.trial, r.name, r.value, r.unit) for r in conn.execute(query)]


def _row(row: Row[Any]) -> ConductRunRow:
    return ConductRunRow(
        id=row.id,
        name=row.name,
        master=row.master,
        config_text=row.config_text,
        players=dict(row.players),
        trials=row.trials,
        state=cast(ConductState, row.state),
        started_at=row.started_at,
        finished_at=row.finished_at,
    )
