"""The index's "last night" strip (:mod:`perfwalk.report.last_night`): one line on top
saying when the last walk or watch cycle ran, what it added, what its new checkouts
brought and when the site was published; red (class ``stale``) when that run is older
than its ``stale_after``, checked when the site is published and again by ``night.js``
in the reader's browser (the page itself does not change when a cron stops)."""

from __future__ import annotations

from datetime import datetime

from perfwalk.report.html import esc
from perfwalk.report.last_night import LastNight
from perfwalk.report.times import SiteTimes, as_utc


def last_night_strip(night: LastNight | None, times: SiteTimes, now: datetime) -> str:
    """The strip; nothing without a run that ended (a store from before runs were
    recorded, a store fed only by pushes)."""
    if night is None:
        return ""
    stale = night.stale(now)
    ended = int(as_utc(night.finished_at).timestamp() * 1000)
    published = (
        ""
        if night.published_at is None
        else f' · <span class="published">site published {esc(times.minute(night.published_at))}'
        "</span>"
    )
    note = esc(night.stale_text(now)) if stale else ""
    return (
        f'<p id="last-night" class="last-night{" stale" if stale else ""}" '
        f'data-ended="{ended}" data-stale-after="{night.stale_after:g}">'
        f"<strong>{esc(night.title())}</strong> "
        f'<span class="ran">{esc(night.ran(times))}</span>'
        f' · <span class="added">{esc(night.added())}</span>'
        f' · <span class="found">{esc(night.found())}</span>'
        f'{published} <span class="stale-note">{note}</span></p>\n'
    )
