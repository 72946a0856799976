"""The environment drills of a store: per series of kind ``environment``, one row
saying which metric of which change it compared, its sides (each checkout of the
series: the change's ``before`` or ``after`` commit, in an environment), the
environments as they were defined, and once it ended its answer (the verdict and the
effects, :mod:`perfwalk.analysis.env_effects`).

The values are the series' own (checkouts, repetitions, results): only what an
environment drill adds is here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, select

from perfwalk.store import schema
from perfwalk.store.connect import StorePart

_e = schema.env_drill


@dataclass(frozen=True)
class EnvDrillRow:
    """A stored environment drill; ``answer`` is None while it runs (or when it was
    stopped)."""

    series_id: int
    test: str
    name: str
    change: dict[str, Any]
    sides: tuple[tuple[int, str, str], ...]  # checkout index, before|after, environment
    environments: tuple[dict[str, Any], ...]
    answer: dict[str, Any] | None


class EnvDrillRecords(StorePart):
    """The environment drills of this store; get it from
    :attr:`perfwalk.store.Store.env_drills`."""

    def start(
        self,
        series_id: int,
        metric: tuple[str, str],
        change: Mapping[str, Any],
        sides: Sequence[tuple[int, str, str]],
        environments: Sequence[Mapping[str, Any]],
    ) -> None:
        """Record the environment drill of series ``series_id`` as it starts."""
        with self._write(f"store the environment drill of series {series_id}") as conn:
            conn.execute(
                _e.insert().values(
                    series_id=series_id,
                    test=metric[0],
                    name=metric[1],
                    change=dict(change),
                    sides=[list(side) for side in sides],
                    environments=[dict(e) for e in environments],
                    answer=None,
                )
            )

    def finish(self, series_id: int, answer: Mapping[str, Any]) -> None:
        """Record the answer of the environment drill of series ``series_id``."""
        with self._write(f"store the answer of the environment drill {series_id}") as conn:
            conn.execute(_e.update().where(_e.c.series_id == series_id).values(answer=dict(answer)))

    def get(self, series_id: int) -> EnvDrillRow | None:
        """The environment drill of series ``series_id``; None when it is none."""
        with self._read(f"read the environment drill of series {series_id}") as conn:
            row = conn.execute(select(_e).where(_e.c.series_id == series_id)).first()
        return None if row is None else _row(row)

    def all(self) -> list[EnvDrillRow]:
        """Every environment drill, oldest first."""
        with self._read("read the environment drills") as conn:
            return [_row(r) for r in conn.execute(select(_e).order_by(_e.c.series_id))]


def _row(row: Row[Any]) -> EnvDrillRow:
    return EnvDrillRow(
        series_id=row.series_id,
        test=row.test,
        name=row.name,
        change=dict(row.change),
        sides=tuple((int(i), str(c), str(e)) for i, c, e in row.sides),
        environments=tuple(dict(e) for e in row.environments),
        answer=None if row.answer is None else dict(row.answer),
    )
