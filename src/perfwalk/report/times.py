"""How the site writes a point in time: in its one time zone (``[report] time_zone``, an
IANA name such as ``Europe/Berlin``), said once on each page that shows a time
(:meth:`SiteTimes.said`), to the minute, the second or the day. The store keeps every
time in UTC; a naive time is taken as UTC too. The plots get the zone's name and write
their axis and tooltips in it (``plot.js``), never in the viewer's own zone."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo


def as_utc(at: datetime) -> datetime:
    """``at`` in UTC (a naive time is taken as UTC, as the store keeps them)."""
    aware = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return aware.astimezone(UTC)


@dataclass(frozen=True)
class SiteTimes:
    """The site's time zone (an IANA name the loader checked) and its formats."""

    zone: str = "UTC"

    def local(self, at: datetime) -> datetime:
        return as_utc(at).astimezone(ZoneInfo(self.zone))

    def minute(self, at: datetime) -> str:
        """``2026-02-16 17:05``"""
        return f"{self.local(at):%Y-%m-%d %H:%M}"

    def second(self, at: datetime) -> str:
        """``2026-02-16 17:05:09``"""
        return f"{self.local(at):%Y-%m-%d %H:%M:%S}"

    def day(self, at: datetime) -> str:
        """``2026-02-16``"""
        return f"{self.local(at):%Y-%m-%d}"

    def said(self) -> str:
        """What a page that shows times says once: ``times in Asia/Kolkata``."""
        return f"times in {self.zone}"


#: the site's times when no configuration names a zone
UTC_TIMES = SiteTimes()
