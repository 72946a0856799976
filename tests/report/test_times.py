"""The site writes every time in its one time zone (``[report] time_zone``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from perfwalk.report.times import UTC_TIMES, SiteTimes

#: 2024-05-01 20:10:09 UTC: the evening of the 1st in UTC, the 2nd in India
EVENING = datetime(2024, 5, 1, 20, 10, 9, tzinfo=UTC)


def test_utc_is_the_default_and_writes_the_store_s_time() -> None:
    assert UTC_TIMES.zone == "UTC"
    assert UTC_TIMES.minute(EVENING) == "2024-05-01 20:10"
    assert UTC_TIMES.second(EVENING) == "2024-05-01 20:10:09"
    assert UTC_TIMES.day(EVENING) == "2024-05-01"
    assert UTC_TIMES.said() == "times in UTC"


def test_a_time_across_midnight_in_kolkata_is_on_the_next_day() -> None:
    kolkata = SiteTimes("Asia/Kolkata")  # UTC+05:30, no daylight saving
    assert kolkata.minute(EVENING) == "2024-05-02 01:40"
    assert kolkata.second(EVENING) == "2024-05-02 01:40:09"
    assert kolkata.day(EVENING) == "2024-05-02"
    assert kolkata.said() == "times in Asia/Kolkata"


def test_a_time_given_in_another_offset_or_naive_is_the_same_instant() -> None:
    kolkata = SiteTimes("Asia/Kolkata")
    new_york = EVENING.astimezone(timezone(timedelta(hours=-4)))  # 16:10 the 1st
    assert kolkata.minute(new_york) == "2024-05-02 01:40"
    assert kolkata.minute(EVENING.replace(tzinfo=None)) == "2024-05-02 01:40"  # naive: UTC


def test_daylight_saving_in_berlin_moves_the_offset() -> None:
    berlin = SiteTimes("Europe/Berlin")
    # the clocks went forward at 01:00 UTC on 2024-03-31 (02:00 → 03:00 local)
    before = datetime(2024, 3, 31, 0, 59, tzinfo=UTC)
    after = datetime(2024, 3, 31, 1, 0, tzinfo=UTC)
    assert (berlin.minute(before), berlin.minute(after)) == ("2024-03-31 01:59", "2024-03-31 03:00")
    # and back at 01:00 UTC on 2024-10-27: 02:30 local twice, an hour apart
    first = datetime(2024, 10, 27, 0, 30, tzinfo=UTC)
    second = datetime(2024, 10, 27, 1, 30, tzinfo=UTC)
    assert berlin.minute(first) == berlin.minute(second) == "2024-10-27 02:30"
    assert berlin.minute(datetime(2024, 1, 15, 12, 0, tzinfo=UTC)) == "2024-01-15 13:00"  # CET
    assert berlin.minute(datetime(2024, 7, 15, 12, 0, tzinfo=UTC)) == "2024-07-15 14:00"  # CEST
