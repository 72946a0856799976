"""Tables for the terminal: columns padded to their widest cell (a cell cut at
:data:`MAX_CELL` characters), numbers aligned on their decimal point, wrapped into
blocks of columns that fit the width
(:func:`perfwalk.cli.terminal.width_of`: ``COLUMNS``, the terminal's), in colour
only on a terminal that wants it (``NO_COLOR``)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from perfwalk.cli.terminal import fitted
from perfwalk.quantities import format_share, format_value
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:
    from perfwalk.report.summaries import SeriesTable
    from perfwalk.store.records import SeriesRow

#: a cell that starts with a number (``577.4 ±0.3% n=5``, ``12``, ``1e+308``): its
#: sign and integer digits, then its fraction and exponent
_NUMBER = re.compile(r"([-+]?\d+)(\.\d*)?([eE][-+]?\d+)?(?=$|[\s%])")

#: a cell's style (rich's words: ``bold``, ``red``…) by its row, column and text
Styler = Callable[[int, int, str], str | None]

#: the most characters a cell shows, but in the last column (nothing is padded after
#: it): a longer one (a pushed branch or host name of 255) is cut in its middle (…)
MAX_CELL = 60


def format_table(
    rows: Sequence[Sequence[str]],
    *,
    width: int | None = None,
    keep: int = 1,
    fit: int | None = None,
    whole: Collection[int] = (),
) -> str:
    """Columns padded to their widest cell; the first row is the header. Control
    characters of a cell (stored text: value names, units, messages) are shown as
    ``\\xNN``, never sent to the terminal. See :func:`table_lines`."""
    return "\n".join(
        "".join(text for text, _row, _col in line)
        for line in table_lines(rows, width=width, keep=keep, fit=fit, whole=whole)
    )


def print_table(
    rows: Sequence[Sequence[str]],
    *,
    stream: TextIO | None = None,
    keep: int = 1,
    fit: int | None = None,
    style: Styler | None = None,
    drop: Sequence[Sequence[int]] = (),
    indent: str = "",
) -> None:
    """Print :func:`table_text` of ``rows`` on ``stream`` (standard output), as wide as
    it is (:func:`perfwalk.cli.terminal.width_of`), in colour when it wants colour."""
    from perfwalk.cli.terminal import wants_colour, width_of

    out = stream or sys.stdout
    lines = table_text(
        rows,
        width=width_of(out),
        keep=keep,
        fit=fit,
        style=style,
        colour=wants_colour(out),
        drop=drop,
        indent=indent,
    )
    for line in lines:
        out.write(line + "\n")


def table_text(
    rows: Sequence[Sequence[str]],
    *,
    width: int | None,
    colour: bool,
    keep: int = 1,
    fit: int | None = None,
    style: Styler | None = None,
    drop: Sequence[Sequence[int]] = (),
    indent: str = "",
) -> list[str]:
    """The lines of :func:`table_lines` of ``rows``, each after ``indent`` and within
    ``width`` columns: the groups of columns ``drop`` left out, in that order (their
    priority, the least needed first), while the table is wider, then cut into blocks
    of columns, and a line still wider (a single cell) cut (…); with ``colour``, the
    first row bold and each cell as ``style`` says."""
    from perfwalk.cli.terminal import paint

    room = None if width is None else max(width - len(indent), 10)
    kept = list(range(len(rows[0]))) if rows else []
    for group in drop:
        if room is None or _table_width(rows, kept) <= room:
            break
        kept = [col for col in kept if col not in group]
    shown = [[row[col] for col in kept] for row in rows]
    texts = []
    for line in table_lines(shown, width=room, keep=keep, fit=fit):
        pieces, used = [], 0
        for piece, row, at in line:
            cell = piece
            if room is not None and used + len(cell) > room:
                cell = cell[: max(room - used - 1, 0)] + "…"
            used += len(cell)
            found = None
            if row == 0 and at >= 0:
                found = "bold"
            elif style is not None and row > 0 and at >= 0:
                found = style(row, kept[at], rows[row][kept[at]])
            bare = cell.rstrip(" ")
            pieces.append(paint(bare, found, colour) + cell[len(bare) :])
            if room is not None and used >= room:
                break
        texts.append((indent + "".join(pieces)) if pieces else "")
    return texts


def _table_width(rows: Sequence[Sequence[str]], columns: Sequence[int]) -> int:
    """How wide the table of these ``columns`` of ``rows`` is, on one line."""
    lines = table_lines([[row[col] for col in columns] for row in rows])
    return max((sum(len(cell) for cell, _r, _c in line) for line in lines), default=0)


def table_lines(
    rows: Sequence[Sequence[str]],
    *,
    width: int | None = None,
    keep: int = 1,
    fit: int | None = None,
    whole: Collection[int] = (),
) -> list[list[tuple[str, int, int]]]:
    """The lines of a table, each as its pieces: (text, row, column), column -1 for
    the blanks between cells. Numbers are aligned on their decimal point (and what
    follows them); within ``width`` columns, the column ``fit`` (e.g. a subject) is cut
    (…) to fit (without a width, to :data:`perfwalk.cli.terminal.TEXT_MOST`
    characters), and a table still wider is cut into blocks of columns that fit, each
    beginning with the first ``keep`` columns, a blank line between blocks. A cell but
    in the last column and the columns ``whole`` (what the user wrote: a file's path)
    is cut to :data:`MAX_CELL` characters (… in its middle)."""
    if not rows:
        return []
    columns = len(rows[0])
    cells = [
        [_shown(cell, cut=col < columns - 1 and col not in whole) for col, cell in enumerate(row)]
        for row in rows
    ]
    right = {col for col in range(columns) if _align_numbers(cells, col)}
    widths = [max(len(row[col]) for row in cells) for col in range(columns)]
    gap = 2
    if fit is not None and fit < columns:
        over = sum(widths) + gap * (columns - 1) - (width or 0)
        if width is None or over > 0:
            narrower = None if width is None else max(10, widths[fit] - over)
            for row in cells:
                row[fit] = fitted(row[fit], 0, narrower)
            widths[fit] = max(len(row[fit]) for row in cells)
    blocks = _blocks(widths, width, min(keep, columns), gap)
    lines: list[list[tuple[str, int, int]]] = []
    for number, block in enumerate(blocks):
        if number:
            lines.append([])
        for r, row in enumerate(cells):
            if not any(row[col].strip() for col in block):  # (a label row, in a block
                continue  # without the columns it labels)
            line: list[tuple[str, int, int]] = []
            for place, col in enumerate(block):
                if place:
                    line.append((" " * gap, r, -1))
                last = place == len(block) - 1
                if col in right:  # a column of numbers, its header too
                    line.append((row[col].rjust(widths[col]), r, col))
                else:
                    line.append((row[col] if last else row[col].ljust(widths[col]), r, col))
            while line and not line[-1][0].strip():  # no blanks at the end of a line
                line.pop()
            if line:
                text, at, col = line[-1]
                line[-1] = (text.rstrip(), at, col)
            lines.append(line)
    return lines


def _shown(cell: str, *, cut: bool) -> str:
    """A cell as shown: its control characters as ``\\xNN``; with ``cut``, at most
    :data:`MAX_CELL` characters, an ellipsis in their middle (a path keeps its file's
    name, a branch its start and its end)."""
    text = show_controls(cell)
    if not cut or len(text) <= MAX_CELL:
        return text
    head = (MAX_CELL - 1) // 2
    return text[:head] + "…" + text[len(text) - (MAX_CELL - 1 - head) :]


def _align_numbers(cells: list[list[str]], col: int) -> bool:
    """The cells of column ``col`` (but the header) that start with a number, aligned on
    its decimal point, the rest of the number (fraction, exponent) padded to the
    longest: what follows lines up too. Whether the column holds only numbers."""
    found: dict[int, tuple[str, str, str]] = {}
    for r, row in enumerate(cells[1:], start=1):
        match = _NUMBER.match(row[col])
        if match:
            whole = match.group(1)
            rest = (match.group(2) or "") + (match.group(3) or "")
            found[r] = (whole, rest, row[col][match.end() :])
    if not found:
        return False
    left = max(len(whole) for whole, _rest, _tail in found.values())
    right = max(len(rest) for _whole, rest, _tail in found.values())
    tails = any(tail for _whole, _rest, tail in found.values())
    for r, (whole, rest, tail) in found.items():
        cell = whole.rjust(left) + (rest.ljust(right) if tails else rest)
        cells[r][col] = cell + tail
    others = [row[col] for r, row in enumerate(cells[1:], start=1) if r not in found]
    return not tails and all(cell in ("", "-") for cell in others)


def _blocks(widths: Sequence[int], width: int | None, keep: int, gap: int) -> list[list[int]]:
    """The columns of each block: all in one when they fit in ``width`` (or no width);
    else the first ``keep`` in every block, and the others, in their order, as many as
    fit (one at least)."""
    columns = list(range(len(widths)))
    if width is None or sum(widths) + gap * (len(widths) - 1) <= width:
        return [columns]
    kept = columns[:keep]
    room = sum(widths[c] for c in kept) + gap * len(kept)
    blocks: list[list[int]] = []
    current: list[int] = []
    used = room
    for col in columns[keep:]:
        if current and used + widths[col] > width:
            blocks.append(kept + current)
            current, used = [], room
        current.append(col)
        used += widths[col] + gap
    if current or not blocks:
        blocks.append(kept + current)
    return blocks


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


#: the columns of :func:`show_rows` before its metrics, and those repeated in each
#: block of a table too wide for the terminal (#, date, commit)
SHOW_COLUMNS, SHOW_KEPT = 6, 3


def show_rows(
    table: SeriesTable, only_test: str | None, policies: Mapping[str, str] | None = None
) -> list[list[str]]:
    """One line per checkout; per metric its summary, rsd and marks (! unstable). Two
    header rows: the metric (``test.name [unit]``), then what its cells say (``median
    ±rsd n``, the summary by its policy in ``policies``, keyed ``test.name``). A metric
    a parser lost at a checkout where its test passed says ``LOST``.

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
    shown = policies or {}
    labels = [""] * len(header[:SHOW_COLUMNS])
    labels += [f"{shown.get(f'{m.test}.{m.name}', 'median')} ±rsd n" for m in metrics]
    rows = [header, labels]
    missing = {(x.idx, x.test, name) for x in table.parsers.lost for name in x.missing}
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
                gone = (co.idx, metric.test, metric.name) in missing
                row.append("LOST" if gone else status.name if status else "-")
            else:
                mark = "!" if cell.unstable else ""
                summary = format_value(cell.summary, metric.unit)
                row.append(f"{summary} ±{format_share(cell.rsd)}{mark} n={cell.n}")
        rows.append(row)
    return rows


def show_style(_row: int, col: int, cell: str) -> str | None:
    """The colour of a cell of :func:`show_rows` (:data:`Styler`): the second header row
    dim, an unstable summary (!) yellow, a status but PASS (a failed build, a test
    without values) red."""
    if _row == 1:
        return "dim"
    if col == 3 or col >= SHOW_COLUMNS:
        word = cell.split(" ", 1)[0]
        if word.isalpha() and word.isupper() and word != "PASS":
            return "red"
        if "!" in cell:
            return "yellow"
    return None
