"""Plain-text tables for the terminal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from perfwalk.untrusted import show_controls

if TYPE_CHECKING:
    from perfwalk.report.summaries import SeriesTable
    from perfwalk.store.records import SeriesRow


def format_table(rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell; the first row is the header. Control
    characters of a cell (stored text: value names, units, messages) are shown as
    ``\\xNN``, never sent to the terminal."""
    rows = [[show_controls(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    return "\n".join(lines)


def series_rows(
    series: Sequence[SeriesRow], states: Mapping[int, str] | None = None
) -> list[list[str]]:
    """One row per series, in their order but a walk's variants right after it (kind
    ``variant NAME``, their walk the parent); ``states`` overrides the stored states
    (a walk that is gone)."""
    from perfwalk.report.context import kind_of

    shown = states or {}
    rows = [["id", "kind", "name", "state", "from", "to", "step", "reps", "parent", "started"]]
    rows += [
        [
            str(s.id),
            kind_of(s),
            s.name,
            shown.get(s.id, s.state),
            _spec(s.from_spec) or "-",
            _spec(s.to_spec),
            s.step,
            f"{s.repetitions}/{s.between}",
            "-" if s.parent_id is None else str(s.parent_id),
            f"{s.started_at:%Y-%m-%d %H:%M}",
        ]
        for s in variants_after_walks(series)
    ]
    return rows


def variants_after_walks(series: Sequence[SeriesRow]) -> list[SeriesRow]:
    """``series`` in their order, each walk's variants (oldest first) moved right after it."""
    kinds = {s.id: s.kind for s in series}

    def beside(s: SeriesRow) -> bool:
        """A variant whose walk is listed (and not itself a variant's)."""
        parent = s.parent_id
        return (
            s.kind == "variant" and parent is not None and kinds.get(parent, "variant") != "variant"
        )

    variants: dict[int, list[SeriesRow]] = {}
    for s in sorted(series, key=lambda s: s.id):
        if beside(s):
            assert s.parent_id is not None
            variants.setdefault(s.parent_id, []).append(s)
    ordered: list[SeriesRow] = []
    for s in series:
        if not beside(s):
            ordered += [s, *variants.get(s.id, ())]
    return ordered


def _spec(text: str) -> str:
    """A walk's end as given (a date, a tag), a full commit id shortened."""
    full = len(text) == 40 and all(c in "0123456789abcdef" for c in text)
    return text[:12] if full else text


def _number(value: float) -> str:
    return f"{value:.4g}"


def show_rows(table: SeriesTable, only_test: str | None) -> list[list[str]]:
    """One line per checkout; per metric its summary, rsd and marks (! unstable).

    An ``only_test`` the series never ran is a :class:`UsageError` naming the tests it
    ran."""
    if only_test is not None:
        known = sorted({m.test for m in table.metrics} | {t for t, _ in table.statuses})
        if only_test not in known:
            from perfwalk.errors import UsageError

            raise UsageError(
                f"--test {show_controls(only_test)}: series {table.series.id} ran no such test",
                hint="its tests: " + (", ".join(map(show_controls, known)) or "none yet"),
            )
    metrics = [m for m in table.metrics if only_test in (None, m.test)]
    header = ["#", "date", "commit", "build", "quirks", "since"]
    header += [f"{m.test}.{m.name} [{m.unit}]" for m in metrics]
    rows = [header]
    for co in table.checkouts:
        row = [
            str(co.idx),
            f"{co.date:%Y-%m-%d %H:%M}",
            co.sha[:10],
            co.build_status.name if co.build_status else "-",
            ",".join(co.quirks) or "-",
            str(co.commit_count),
        ]
        for metric in metrics:
            cell = table.cells.get((metric, co.idx))
            if cell is None:
                status = table.statuses.get((metric.test, co.idx))
                row.append(status.name if status else "-")
            else:
                mark = "!" if cell.unstable else ""
                row.append(f"{_number(cell.summary)} ±{cell.rsd:.1%}{mark} n={cell.n}")
        rows.append(row)
    return rows
