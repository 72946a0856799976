"""The commit log between a checkout and the one before it: the count, then each
commit's date, author, subject, body and files (linked to the web viewer when a
link template is configured)."""

from __future__ import annotations

from collections.abc import Sequence

from perfwalk.model import Commit
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.html import esc, link, page
from perfwalk.store import CheckoutRow


def commits_page(ctx: SeriesContext, row: CheckoutRow, commits: Sequence[Commit]) -> str:
    sid = ctx.id
    at = layout.commits_page(sid, row.idx)
    position = ctx.position(row.idx)
    before = ctx.checkouts[position - 1] if position > 0 else None
    since = (
        "since "
        + link(layout.href(at, layout.checkout_page(sid, before.idx)), f"checkout {before.idx}")
        + f" ({esc(before.sha[:10])})"
        if before
        else "up to the first checkout"
    )
    items = []
    for c in reversed(commits):  # newest first
        target = ctx.commit_href(c.id)
        title = link(target, c.id[:12], title=c.id) if target else f"<code>{esc(c.id[:12])}</code>"
        files = "".join(
            f"<li>{link(target, f, title=f'{f} in {c.id[:12]}') if target else esc(f)}</li>"
            for f in c.files
        )
        body = f"<pre>{esc(c.body)}</pre>" if c.body.strip() else ""
        items.append(
            f'<article class="commit"><h3>{title} {esc(c.subject)}</h3>'
            f"<p>{esc(f'{c.date:%Y-%m-%d %H:%M %z}')} · {esc(c.author)}</p>"
            f'{body}<ul class="files">{files}</ul></article>'
        )
    text = (
        f"<p><strong>{len(commits)}</strong> commits {since} to "
        + link(layout.href(at, layout.checkout_page(sid, row.idx)), f"checkout {row.idx}")
        + f" ({esc(row.sha[:10])})</p>\n"
        + "\n".join(items)
    )
    crumbs = [(layout.INDEX, "all series"), (layout.series_page(sid), f"series {sid}")]
    return page(at, f"commits up to checkout {row.idx} of series {sid}", text, crumbs=crumbs)
