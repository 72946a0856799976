"""Runs' columns of statuses turned into each host's rows: one history per test.

A run's column is bytes where byte ``i`` is the severity of the test with id ``i``
(0: not run). A host's grid has, for every test it ever ran, its history: bytes
of severities, one per run of the host, **newest first** — what
:mod:`perfwalk.regress.history` reads. Transposing columns into rows is done by
``zip`` in C, so a year of nightly runs of 500 tests costs a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class HostGrid:
    """One host's runs (newest first) and, per test id, its history over them."""

    host: str
    run_ids: list[int] = field(default_factory=list)
    rows: dict[int, bytes] = field(default_factory=dict)


def host_grids(columns: Iterable[tuple[int, str, bytes]]) -> dict[str, HostGrid]:
    """The grid of every host from ``(run id, host, column)`` newest first.

    Hosts come in the order of their newest run.
    """
    by_host: dict[str, tuple[HostGrid, list[bytes]]] = {}
    for run_id, host, column in columns:
        grid, host_columns = by_host.setdefault(host, (HostGrid(host), []))
        grid.run_ids.append(run_id)
        host_columns.append(column)
    for grid, host_columns in by_host.values():
        width = max(len(column) for column in host_columns)
        padded = [column.ljust(width, b"\0") for column in host_columns]
        for test_id, history in enumerate(zip(*padded, strict=True)):
            row = bytes(history)
            if row.count(0) != len(row):
                grid.rows[test_id] = row
    return {host: grid for host, (grid, _columns) in by_host.items()}
