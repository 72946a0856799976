"""How often a cron schedule (``[watch] schedule``) runs: the longest gap between two of
its times, over a year from a fixed day (no clock read), so that a schedule of working
days says three days (the weekend), not one."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime, timedelta

#: where the times are counted from, and how far (a year: a monthly schedule's gaps)
_FROM = datetime(2024, 1, 1, tzinfo=UTC)
_SPAN = timedelta(days=366)
_MOST_TIMES = 2000  # a schedule of every minute stops here: its gap is known long before


def longest_gap(schedule: str) -> float:
    """The longest gap in seconds between two consecutive times of the cron
    ``schedule`` (five fields, or six: the sixth seconds)."""
    croniter = importlib.import_module("croniter")  # procrastinate's: the queue reads it too
    times = croniter.croniter(schedule, _FROM)
    last: datetime = times.get_next(datetime)
    gap = 0.0
    for _ in range(_MOST_TIMES):
        at: datetime = times.get_next(datetime)
        gap = max(gap, (at - last).total_seconds())
        if at - _FROM > _SPAN:
            break
        last = at
    return gap
