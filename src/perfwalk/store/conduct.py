"""Conductor runs in the store: one ``conduct_run`` row per ``perfwalk conduct``, and
every step of every trial (phase, player, output, status, start and end) in ``step``,
and the values a parser found in each trial's run-phase outputs in ``conduct_value``.

Each trial is written in one transaction when it ends: a run stopped in the
middle keeps every finished trial. The parser that found a run's values is kept with
the run (store step 16).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

from sqlalchemy import Row, delete, func, select, union_all

from perfwalk.errors import StoreError
from perfwalk.model import Log, Status, Value
from perfwalk.store import logs, schema
from perfwalk.store.bulk import plain_rows
from perfwalk.store.connect import StorePart
from perfwalk.store.phase_steps import insert_steps, read_steps
from perfwalk.store.records import NewStep, StepRow

ConductState = Literal["running", "finished", "interrupted"]

_run = schema.conduct_run
_st = schema.step
_val = schema.conduct_value
_log = schema.log


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
    parser: str | None = None  # that found its values, as given; None: never parsed


@dataclass(frozen=True, kw_only=True)
class ConductSummary:
    """A stored conductor run with what its steps and values add up to."""

    run: ConductRunRow
    trials_done: int  # trials with stored steps
    steps: int
    worst: Status | None  # of every step; None: no step stored
    values: int  # values stored
    newest_step: int  # the id of its newest step (0: none): grows when a trial is stored


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

    def summaries(self) -> list[ConductSummary]:
        """Every conductor run with its trials done, steps, worst status and values,
        newest first."""
        steps = (
            select(
                _st.c.conduct_id,
                func.count(func.distinct(_st.c.trial)),
                func.count(_st.c.id),
                func.max(_st.c.status),
                func.max(_st.c.id),
            )
            .where(_st.c.conduct_id.is_not(None))
            .group_by(_st.c.conduct_id)
        )
        values = select(_val.c.conduct_id, func.count()).group_by(_val.c.conduct_id)
        with self._read("list the conductor runs") as conn:
            runs = [
                _row(row)
                for row in conn.execute(
                    select(_run).order_by(_run.c.started_at.desc(), _run.c.id.desc())
                )
            ]
            done = {int(row[0]): row[1:] for row in plain_rows(conn, steps)}
            counted = {int(run): int(n) for run, n in plain_rows(conn, values)}
        summaries = []
        for run in runs:
            trials, count, worst, newest = done.get(run.id, (0, 0, None, 0))
            summaries.append(
                ConductSummary(
                    run=run,
                    trials_done=int(trials),
                    steps=int(count),
                    worst=None if worst is None else Status(int(worst)),
                    values=counted.get(run.id, 0),
                    newest_step=int(newest or 0),
                )
            )
        return summaries

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

    def logs(self, conduct_id: int) -> dict[int, Log]:
        """The outputs (stdout and stderr) of every step of a conductor run, by log id."""
        ids = union_all(
            select(_st.c.stdout_log_id).where(_st.c.conduct_id == conduct_id),
            select(_st.c.stderr_log_id).where(_st.c.conduct_id == conduct_id),
        )
        query = select(_log).where(_log.c.id.in_(ids.scalar_subquery()))
        with self._read(f"read the outputs of conductor run {conduct_id}") as conn:
            return {row.id: logs.unpack_row(row) for row in conn.execute(query)}

    def set_values(
        self, conduct_id: int, values: Mapping[int, Sequence[Value]], *, parser: str
    ) -> int:
        """Store the values of each trial (trial -> values), in place of those stored
        before for the run, and ``parser``, what found them (its name and options);
        how many were stored."""
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
            conn.execute(_run.update().where(_run.c.id == conduct_id).values(parser=parser))
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
        parser=row.parser,
    )
