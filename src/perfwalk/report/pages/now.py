"""The live page (``now.html``): what each host of the running walks does now.

Per host, as ``perfwalk status --follow`` says it (:mod:`perfwalk.store.live`): the
walk (a link to its series), the checkout, repetition and step, the command and how
long it has run (or when it ended), and the step's last output lines, escaped and
their control characters made visible. The page loads itself again every few
seconds: ``perfwalk serve`` reads it from the store at each request; a published
site has it as of its publishing, and says so with the time.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from perfwalk.report import layout
from perfwalk.report.html import esc, link, page
from perfwalk.report.last_night import span
from perfwalk.report.times import SiteTimes
from perfwalk.store.live import TAIL_LINES, LiveRow
from perfwalk.untrusted import show_controls

#: seconds between two loads of the page: served (read from the store), published
SERVED_REFRESH = 5
PUBLISHED_REFRESH = 60


def now_page(rows: Sequence[LiveRow], now: datetime, times: SiteTimes, *, served: bool) -> str:
    """The page as of ``now``: ``served`` when read from the store for this request,
    else as the site is published."""
    at = layout.NOW
    refresh = SERVED_REFRESH if served else PUBLISHED_REFRESH
    source = "read from the store" if served else "when the site was published"
    body = (
        f'<p class="as-of">As of {esc(times.second(now))}, {source}; '
        f"this page loads again every {refresh} s.</p>\n"
    )
    if not rows:
        body += '<p class="idle">No walk runs now.</p>\n'
    for row in rows:
        series = link(
            layout.href(at, layout.series_page(row.series_id)),
            f"series {row.series_id}: {row.series_name}",
        )
        since = span(row.since(now))
        doing = f"runs for {since}" if row.running else f"ended {since} ago"
        tail = "\n".join(show_controls(line) for line in row.tail_lines(TAIL_LINES))
        body += (
            f'<section class="host-now{"" if row.running else " ended"}">\n'
            f"<h2>host {esc(row.host)}</h2>\n"
            f"<p>{series} · {esc(row.where())}</p>\n"
            f"<p>{esc(doing)}: <code>{esc(show_controls(row.command))}</code></p>\n"
            f'<pre class="tail">{esc(tail)}</pre>\n</section>\n'
        )
    return page(
        at,
        "perfwalk: now",
        body,
        crumbs=((layout.INDEX, "all series"),),
        times=times,
        refresh=refresh,
    )
