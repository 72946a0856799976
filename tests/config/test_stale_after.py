"""When the runs count as stopped: ``[watch] stale_after``, else twice the schedule (the
longest gap of its cron times: a working-days schedule has a weekend), else twice the
interval."""

from __future__ import annotations

from perfwalk.config.model import WatchConfig

HOUR, DAY = 3600.0, 86400.0


def test_twice_the_interval_by_default() -> None:
    assert WatchConfig().stale_seconds == 2 * DAY
    assert WatchConfig(interval=HOUR).stale_seconds == 2 * HOUR


def test_twice_the_longest_gap_of_the_schedule() -> None:
    assert WatchConfig(schedule="0 3 * * *").stale_seconds == 2 * DAY
    assert WatchConfig(schedule="0 3 * * 1-5").stale_seconds == 6 * DAY  # the weekend
    assert WatchConfig(schedule="*/15 * * * *").stale_seconds == HOUR / 2
    assert WatchConfig(schedule="0 3 1 * *").stale_seconds == 2 * 31 * DAY


def test_stale_after_wins() -> None:
    assert WatchConfig(schedule="0 3 * * *", stale_after=HOUR).stale_seconds == HOUR
