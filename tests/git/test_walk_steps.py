"""Steps (``--step``) and dates (``--from``/``--to``): parsing and arithmetic."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfwalk.errors import UsageError
from perfwalk.git.walk_steps import (
    Step,
    Unit,
    add_months,
    looks_like_date,
    parse_date,
    parse_step,
)


@pytest.mark.parametrize(
    ("text", "count", "unit"),
    [
        ("30sec", 30, Unit.SECOND),
        ("1s", 1, Unit.SECOND),
        ("2seconds", 2, Unit.SECOND),
        ("5min", 5, Unit.MINUTE),
        ("10minutes", 10, Unit.MINUTE),
        ("1hour", 1, Unit.HOUR),
        ("6hours", 6, Unit.HOUR),
        ("12h", 12, Unit.HOUR),
        ("1day", 1, Unit.DAY),
        ("2days", 2, Unit.DAY),
        ("1 day", 1, Unit.DAY),
        ("day", 1, Unit.DAY),
        ("1week", 1, Unit.WEEK),
        ("3weeks", 3, Unit.WEEK),
        ("1month", 1, Unit.MONTH),
        ("3month", 3, Unit.MONTH),
        ("6months", 6, Unit.MONTH),
        ("1year", 1, Unit.YEAR),
        ("2years", 2, Unit.YEAR),
        ("1y", 1, Unit.YEAR),
        (" 1Week ", 1, Unit.WEEK),
        ("commit", 1, Unit.COMMIT),
        ("commit/1", 1, Unit.COMMIT),
        ("commit/10", 10, Unit.COMMIT),
        ("COMMIT/3", 3, Unit.COMMIT),
    ],
)
def test_parse_step_accepts_every_unit(text: str, count: int, unit: Unit) -> None:
    step = parse_step(text)
    assert step == Step(count, unit)
    assert parse_step(str(step)) == step


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "0day",
        "0sec",
        "-1day",
        "1.5day",
        "1m",
        "m",
        "1fortnight",
        "day1",
        "1 day 2 hours",
        "commit/0",
        "commit/",
        "commit/x",
        "commit/-2",
        "commits/0",
        "every commit",
        "99999999999999999999year",
        "200000month",
    ],
)
def test_parse_step_rejects_bad_text_naming_it(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_step(text)
    assert repr(text) in str(caught.value)
    assert caught.value.hint


def test_step_error_lists_the_valid_forms() -> None:
    with pytest.raises(UsageError) as caught:
        parse_step("1fortnight")
    message = str(caught.value)
    for form in ("sec", "min", "hour", "day", "week", "month", "year", "commit/N"):
        assert form in message


def test_canonical_spelling() -> None:
    assert str(parse_step("2 days")) == "2day"
    assert str(parse_step("commit/1")) == "commit"
    assert str(parse_step("commit/4")) == "commit/4"
    assert parse_step("commit/4").is_commit
    assert not parse_step("1day").is_commit
    assert parse_step("1year").is_calendar


def test_step_count_must_be_positive() -> None:
    with pytest.raises(ValueError, match="1 or more"):
        Step(0, Unit.DAY)


def test_commit_step_has_no_dates() -> None:
    with pytest.raises(ValueError, match="no dates"):
        parse_step("commit").advance(datetime(2024, 1, 1, tzinfo=UTC), 1)


START = datetime(2024, 1, 31, 10, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("step", "k", "expected"),
    [
        ("30sec", 3, START + timedelta(seconds=90)),
        ("5min", 2, START + timedelta(minutes=10)),
        ("1hour", 25, START + timedelta(hours=25)),
        ("2day", 3, START + timedelta(days=6)),
        ("1week", 2, START + timedelta(days=14)),
        ("1month", 0, START),
        ("1month", 1, datetime(2024, 2, 29, 10, 30, tzinfo=UTC)),
        ("1month", 2, datetime(2024, 3, 31, 10, 30, tzinfo=UTC)),
        ("1month", 3, datetime(2024, 4, 30, 10, 30, tzinfo=UTC)),
        ("3month", 1, datetime(2024, 4, 30, 10, 30, tzinfo=UTC)),
        ("1month", 12, datetime(2025, 1, 31, 10, 30, tzinfo=UTC)),
        ("1month", 13, datetime(2025, 2, 28, 10, 30, tzinfo=UTC)),
        ("1year", 1, datetime(2025, 1, 31, 10, 30, tzinfo=UTC)),
    ],
)
def test_advance(step: str, k: int, expected: datetime) -> None:
    assert parse_step(step).advance(START, k) == expected


def test_month_clamps_without_drift() -> None:
    step = parse_step("1month")
    jan31 = datetime(2023, 1, 31, tzinfo=UTC)
    assert step.advance(jan31, 1) == datetime(2023, 2, 28, tzinfo=UTC)
    assert step.advance(jan31, 2) == datetime(2023, 3, 31, tzinfo=UTC)


def test_year_from_leap_day() -> None:
    leap = datetime(2024, 2, 29, 12, tzinfo=UTC)
    assert parse_step("1year").advance(leap, 1) == datetime(2025, 2, 28, 12, tzinfo=UTC)
    assert parse_step("4year").advance(leap, 1) == datetime(2028, 2, 29, 12, tzinfo=UTC)


def test_calendar_steps_keep_the_time_zone() -> None:
    zone = timezone(timedelta(hours=-5))
    start = datetime(2024, 1, 31, 23, 0, tzinfo=zone)
    moved = parse_step("1month").advance(start, 1)
    assert moved == datetime(2024, 2, 29, 23, 0, tzinfo=zone)
    assert moved.utcoffset() == timedelta(hours=-5)


def test_add_months_backwards_and_out_of_range() -> None:
    assert add_months(datetime(2024, 3, 31, tzinfo=UTC), -1) == datetime(2024, 2, 29, tzinfo=UTC)
    with pytest.raises(OverflowError):
        add_months(datetime(9999, 12, 1, tzinfo=UTC), 1)


def test_fixed_steps_are_exact_durations_across_daylight_saving() -> None:
    zoneinfo = pytest.importorskip("zoneinfo")
    try:
        berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    except zoneinfo.ZoneInfoNotFoundError:
        pytest.skip("no time zone data")
    before = datetime(2024, 3, 30, 12, 0, tzinfo=berlin)  # the night before DST begins
    after = parse_step("1day").advance(before, 1)
    assert (after.hour, after.minute) == (13, 0)  # the clock moved forward one hour
    assert after.astimezone(UTC) - before.astimezone(UTC) == timedelta(hours=24)


@settings(max_examples=300, database=None, deadline=None)
@given(
    step=st.sampled_from(["7sec", "5min", "1hour", "3day", "1week", "1month", "5month", "1year"]),
    start=st.datetimes(
        min_value=datetime(1990, 1, 1), max_value=datetime(2040, 1, 1), timezones=st.just(UTC)
    ),
    later=st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=3000)),
)
def test_first_at_or_after_is_the_smallest_k(step: str, start: datetime, later: timedelta) -> None:
    parsed = parse_step(step)
    when = start + later
    k = parsed.first_at_or_after(start, when)
    assert parsed.advance(start, k) >= when
    assert k == 0 or parsed.advance(start, k - 1) < when


def test_first_at_or_after_before_start_is_zero() -> None:
    assert parse_step("1day").first_at_or_after(START, START - timedelta(days=9)) == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-01-02", datetime(2024, 1, 2, tzinfo=UTC)),
        ("2024-01-02T03:04", datetime(2024, 1, 2, 3, 4, tzinfo=UTC)),
        ("2024-01-02 03:04", datetime(2024, 1, 2, 3, 4, tzinfo=UTC)),
        ("2024-01-02T03:04:05", datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2024-01-02T03:04:05Z", datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
        (
            "2024-01-02T03:04:05+02:00",
            datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2))),
        ),
        (
            "2024-01-02T03:04-0530",
            datetime(2024, 1, 2, 3, 4, tzinfo=timezone(-timedelta(hours=5, minutes=30))),
        ),
        ("2024-01-02T03:04+01", datetime(2024, 1, 2, 3, 4, tzinfo=timezone(timedelta(hours=1)))),
    ],
)
def test_parse_date(text: str, expected: datetime) -> None:
    parsed = parse_date(text)
    assert parsed == expected
    assert parsed.utcoffset() == expected.utcoffset()
    assert looks_like_date(text)


@pytest.mark.parametrize("text", ["2023-02-30", "2024-13-01", "2024-01-01T25:00"])
def test_impossible_dates_are_usage_errors(text: str) -> None:
    assert looks_like_date(text)
    with pytest.raises(UsageError, match=text):
        parse_date(text)


@pytest.mark.parametrize(
    "text", ["main", "HEAD~3", "v1.0", "2024", "2024-1-2", "24-01-02", "2024-01-02+01:00", ""]
)
def test_other_text_is_not_a_date(text: str) -> None:
    assert not looks_like_date(text)
    with pytest.raises(UsageError):
        parse_date(text)
