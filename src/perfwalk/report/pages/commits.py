"""The commit log between a checkout and the one before it: the count, then each
commit's date, author, subject, body and files (linked to the web viewer when a
link template is configured), drawn by pages.js from one data file per block."""

from __future__ import annotations

import json
from collections.abc import Sequence

from perfwalk.model import Commit
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.pages.checkout import drawn_page
from perfwalk.store import CheckoutRow


def commits_shell_page(ctx: SeriesContext) -> str:
    return drawn_page(ctx, "commits", layout.commits_shell(ctx.id), f"commits of series {ctx.id}")


def commits_data_file(
    ctx: SeriesContext,
    block_no: int,
    rows: Sequence[CheckoutRow],
    commits: dict[int, list[Commit]],
) -> str:
    """``perfwalk.commits(series, block, {idx: [previous idx, previous sha, sha,
    [[sha, date, author, subject, body, [files]]…]]})``, commits oldest first."""
    document = {}
    for row in rows:
        position = ctx.position(row.idx)
        before = ctx.checkouts[position - 1] if position > 0 else None
        document[str(row.idx)] = [
            before.idx if before else None,
            before.sha if before else None,
            row.sha,
            [
                [c.id, ctx.times.minute(c.date), c.author, c.subject, c.body, list(c.files)]
                for c in commits.get(row.idx, ())
            ],
        ]
    text = json.dumps(document, separators=(",", ":"), allow_nan=False)
    return f"perfwalk.commits({ctx.id},{block_no},{text});\n"
