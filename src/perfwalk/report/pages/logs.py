"""Logs: escaped and line-anchored by pages.js, from data files that hold them as the
store keeps them (zlib), so publishing never decompresses, escapes or numbers a line
of the ordinary logs.

The logs of one block of checkouts are one data file; a log too large for it (more
than :data:`INLINE_LINES` lines or :data:`INLINE_BYTES` bytes) gets a data file of
its own, written once, shown head and tail on its own page, and the whole log as a
plain text file to download. A log pruned by retention is in its block's file as what
pruned it ("log pruned on … (retention: …)"), and a large one's own files say it too.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from perfwalk.errors import StoreError
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.pages.checkout import drawn_page
from perfwalk.store.logs import COMPRESSION
from perfwalk.store.site_reads import LogRow

#: a log longer than this (lines or bytes) has a page and a download of its own
INLINE_LINES = 400
INLINE_BYTES = 64 * 1024


@dataclass(frozen=True)
class LargeLog:
    """A log that needs a page and a download of its own."""

    row: LogRow
    checkout_idx: int
    lines: int


def logs_shell_page(ctx: SeriesContext) -> str:
    return drawn_page(ctx, "logs", layout.logs_shell(ctx.id), f"logs of series {ctx.id}")


def log_shell_page(ctx: SeriesContext) -> str:
    return drawn_page(ctx, "log", layout.log_shell(ctx.id), f"a log of series {ctx.id}")


def _lines(row: LogRow) -> int:
    """Lines of a log, read only when it could have more than INLINE_LINES."""
    if row.size <= INLINE_LINES:
        return 0
    data = zlib.decompress(row.data)
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def logs_data_file(
    ctx: SeriesContext, block_no: int, rows: Sequence[LogRow], owner: Callable[[], dict[int, int]]
) -> tuple[str, list[LargeLog]]:
    """``perfwalk.logs(series, block, {...})``: the block's logs, compressed, one after
    the other in ``z``; and the large ones, left out (``large``: id → lines).

    ``owner`` gives each log id's checkout index (asked only when a log is large)."""
    kept: list[LogRow] = []
    large: list[LargeLog] = []
    pruned: dict[str, str] = {}
    owners: dict[int, int] | None = None
    for row in rows:
        if row.pruned is not None:
            pruned[str(row.id)] = row.pruned.said("log")
            continue
        lines = _lines(row)
        if row.size > INLINE_BYTES or lines > INLINE_LINES:
            owners = owner() if owners is None else owners
            large.append(LargeLog(row, owners.get(row.id, -1), lines))
        else:
            kept.append(row)
    _check_compression(kept)
    document = {
        "ids": [r.id for r in kept],
        "len": [len(r.data) for r in kept],
        "size": [r.size for r in kept],
        "total": [r.total for r in kept],
        "cut": [1 if r.truncated else 0 for r in kept],
        "large": {str(big.row.id): big.lines for big in large},
    }
    if pruned:  # id → "log pruned on … (retention: …)"
        document["pruned"] = pruned
    z = base64.b64encode(b"".join(r.data for r in kept)).decode("ascii")
    text = json.dumps(document, separators=(",", ":"), allow_nan=False)[:-1] + f',"z":"{z}"}}'
    return f"perfwalk.logs({ctx.id},{block_no},{text});\n", large


def large_log_file(ctx: SeriesContext, big: LargeLog) -> str:
    """``perfwalk.log(series, id, {...})``: one large log, compressed, for its page."""
    _check_compression([big.row])
    row = big.row
    document = {
        "c": big.checkout_idx,
        "size": row.size,
        "total": row.total,
        "cut": 1 if row.truncated else 0,
        "lines": big.lines,
    }
    z = base64.b64encode(row.data).decode("ascii")
    text = json.dumps(document, separators=(",", ":"), allow_nan=False)[:-1] + f',"z":"{z}"}}'
    return f"perfwalk.log({ctx.id},{row.id},{text});\n"


def pruned_large_log(ctx: SeriesContext, row: LogRow, checkout_idx: int) -> tuple[str, str]:
    """The data file and the text of a large log the site has, pruned since: its page
    and its download say so."""
    assert row.pruned is not None
    said = row.pruned.said("log")
    document = {"c": checkout_idx, "pruned": said}
    text = json.dumps(document, separators=(",", ":"), allow_nan=False)
    return f"perfwalk.log({ctx.id},{row.id},{text});\n", said + "\n"


def _check_compression(rows: Sequence[LogRow]) -> None:
    for row in rows:
        if row.compression != COMPRESSION:  # what pages.js reads (DecompressionStream)
            raise StoreError(
                f"log {row.id} is stored with compression {row.compression!r}, "
                "unknown to this perfwalk",
                hint="upgrade perfwalk to publish it",
            )
