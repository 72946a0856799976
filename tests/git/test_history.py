"""Which commits a walk visits: the selection rules of perfwalk.git.history."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfwalk.errors import UsageError
from perfwalk.git.history import HistoryEntry, Point, Timeline, head_at, select
from perfwalk.git.walk_steps import Step, parse_step

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def line(*hours: float) -> list[HistoryEntry]:
    """A first-parent line with one commit at each of ``hours`` after T0."""
    return [HistoryEntry(f"c{i:02d}", T0 + timedelta(hours=h)) for i, h in enumerate(hours)]


def daily(n: int, start: datetime = T0) -> list[HistoryEntry]:
    return [HistoryEntry(f"c{i:02d}", start + timedelta(days=i)) for i in range(n)]


def at(days: float = 0, hours: float = 0) -> datetime:
    return T0 + timedelta(days=days, hours=hours)


def test_head_at() -> None:
    history = line(0, 6, 12)
    assert head_at(history, at(hours=-1)) == -1
    assert head_at(history, at(hours=0)) == 0
    assert head_at(history, at(hours=5.9)) == 0
    assert head_at(history, at(hours=6)) == 1
    assert head_at(history, at(days=9)) == 2


def test_head_at_with_skewed_dates_is_the_last_commit_at_or_before() -> None:
    # commit 2 claims to be older than commit 1 (a skewed clock)
    history = line(0, 10, 5, 20)
    assert head_at(history, at(hours=4)) == 0
    assert head_at(history, at(hours=5)) == 2
    assert head_at(history, at(hours=12)) == 2
    assert head_at(history, at(hours=20)) == 3


def test_both_ends_included() -> None:
    history = daily(10)
    assert select(history, 0, 9, parse_step("2day")) == [0, 2, 4, 6, 8, 9]
    assert select(history, 0, 9, parse_step("3day")) == [0, 3, 6, 9]
    assert select(history, at(days=0), at(days=9), parse_step("4day")) == [0, 4, 8, 9]


def test_dates_map_to_the_last_commit_at_or_before() -> None:
    history = line(0, 30, 40, 75)
    # dates 0h 24h 48h 72h, then 80h: commit 1 is never the head at a step date
    assert select(history, at(), at(hours=80), parse_step("1day")) == [0, 2, 3]


def test_steps_on_the_same_commit_collapse() -> None:
    history = line(0, 6, 12, 18)
    assert select(history, 0, 3, parse_step("1hour")) == [0, 1, 2, 3]
    assert select(history, 0, 3, parse_step("1min")) == [0, 1, 2, 3]


def test_a_date_before_the_first_commit_selects_nothing_for_it() -> None:
    history = daily(5, start=at(days=10))
    assert select(history, at(days=0), at(days=12), parse_step("5day")) == [0, 2]
    assert select(history, at(days=0), at(days=14), parse_step("1week")) == [4]
    assert select(history, at(days=0), at(days=5), parse_step("1day")) == []


def test_a_step_longer_than_the_range_gives_the_two_ends() -> None:
    assert select(daily(10), 2, 7, parse_step("1year")) == [2, 7]


def test_from_equal_to_gives_one_checkout() -> None:
    assert select(daily(5), 3, 3, parse_step("1day")) == [3]
    assert select(daily(5), at(days=3), at(days=3), parse_step("1day")) == [3]
    assert select(daily(5), 3, 3, parse_step("commit")) == [3]


def test_commit_ends_select_themselves_even_with_equal_dates() -> None:
    history = line(0, 6, 6, 6, 12)
    assert select(history, 1, 3, parse_step("1hour")) == [1, 3]
    assert select(history, 1, 2, parse_step("1day")) == [1, 2]
    assert select(history, 2, at(hours=12), parse_step("1day")) == [2, 4]


def test_month_steps() -> None:
    history = daily(120, start=datetime(2024, 1, 31, 12, tzinfo=UTC))
    chosen = select(history, 0, 119, parse_step("1month"))
    dates = [history[i].date.date().isoformat() for i in chosen]
    assert dates == ["2024-01-31", "2024-02-29", "2024-03-31", "2024-04-30", "2024-05-29"]


def test_year_steps() -> None:
    history = [
        HistoryEntry(f"c{i}", datetime(2019 + i // 4, 1 + 3 * (i % 4), 1, tzinfo=UTC))
        for i in range(20)
    ]
    chosen = select(history, datetime(2019, 6, 1, tzinfo=UTC), 19, parse_step("1year"))
    assert [history[i].date.date().isoformat() for i in chosen] == [
        "2019-04-01",
        "2020-04-01",
        "2021-04-01",
        "2022-04-01",
        "2023-04-01",
        "2023-10-01",
    ]


def test_commit_step_selects_every_commit_in_range() -> None:
    history = daily(10)
    assert select(history, 2, 6, parse_step("commit")) == [2, 3, 4, 5, 6]
    assert select(history, at(days=2, hours=3), at(days=6, hours=3), parse_step("commit")) == [
        2,
        3,
        4,
        5,
        6,
    ]
    assert select(history, at(days=-5), at(days=2), parse_step("commit")) == [0, 1, 2]


def test_commit_every_nth_always_includes_the_last() -> None:
    history = daily(10)
    assert select(history, 0, 9, parse_step("commit/3")) == [0, 3, 6, 9]
    assert select(history, 0, 9, parse_step("commit/4")) == [0, 4, 8, 9]
    assert select(history, 1, 9, parse_step("commit/4")) == [1, 5, 9]
    assert select(history, 0, 9, parse_step("commit/50")) == [0, 9]


@pytest.mark.parametrize(
    ("start", "end"),
    [(5, 2), (at(days=5), at(days=2)), (5, at(days=2)), (at(days=5), 2)],
)
def test_from_after_to_is_a_usage_error(start: Point, end: Point) -> None:
    with pytest.raises(UsageError, match="starts after it ends") as caught:
        select(daily(10), start, end, parse_step("1day"))
    assert caught.value.hint == "swap --from and --to"


def test_to_before_the_first_commit_selects_nothing() -> None:
    history = daily(3, start=at(days=10))
    assert select(history, at(days=1), at(days=2), parse_step("1day")) == []
    assert select(history, at(days=1), at(days=2), parse_step("commit")) == []


def test_empty_history_selects_nothing() -> None:
    assert select([], at(), at(days=1), parse_step("1day")) == []


def test_position_outside_the_history() -> None:
    with pytest.raises(ValueError, match="outside"):
        select(daily(3), 0, 7, parse_step("1day"))


def test_skewed_dates_never_go_backwards() -> None:
    history = line(0, 10, 5, 20, 15, 30)
    chosen = select(history, 0, 5, parse_step("1hour"))
    assert chosen == sorted(set(chosen))
    assert chosen[0] == 0
    assert chosen[-1] == 5


def test_tiny_step_over_a_long_range_jumps_instead_of_counting() -> None:
    history = [
        HistoryEntry("a", T0),
        HistoryEntry("b", T0 + timedelta(days=3000)),
        HistoryEntry("c", T0 + timedelta(days=6000)),
    ]
    began = time.perf_counter()
    chosen = select(history, 0, 2, parse_step("1sec"))
    assert chosen == [0, 1, 2]
    assert time.perf_counter() - began < 1.0


def test_timeline_can_be_reused() -> None:
    timeline = Timeline(daily(10))
    assert select(timeline, 0, 9, parse_step("5day")) == [0, 5, 9]
    assert select(timeline, 0, 9, parse_step("commit/5")) == [0, 5, 9]


# -- the rules, written the slow and obvious way, against the implementation ----------


def reference(history: list[HistoryEntry], start: Point, end: Point, step: Step) -> list[int]:
    """The module docstring's rules, literally: every step date, one by one."""
    dates = [date for _, date in history]

    def head(when: datetime) -> int:
        return max((i for i, date in enumerate(dates) if date <= when), default=-1)

    first = start if isinstance(start, datetime) else dates[start]
    last = end if isinstance(end, datetime) else dates[end]
    low = head(first) if isinstance(start, datetime) else start
    high = head(last) if isinstance(end, datetime) else end
    if high < 0:
        return []
    if step.is_commit:
        span = list(range(max(low, 0), high + 1))
        chosen = span[:: step.count]
        return chosen if chosen[-1] == span[-1] else [*chosen, span[-1]]
    walk = [first]
    k = 1
    while step.advance(first, k) < last:
        walk.append(step.advance(first, k))
        k += 1
    walk.append(last)
    result: list[int] = []
    for n, when in enumerate(walk):
        if n == 0 and not isinstance(start, datetime):
            index = start
        elif n == len(walk) - 1 and not isinstance(end, datetime):
            index = end
        else:
            index = min(head(when), high)
        if index >= 0 and (not result or result[-1] != index):
            result.append(index)
    return result


@st.composite
def walks(draw: st.DrawFn) -> tuple[list[HistoryEntry], Point, Point, Step]:
    count = draw(st.integers(1, 12))
    gaps = draw(st.lists(st.integers(-3, 40), min_size=count, max_size=count))
    hours, now = [], 0
    for gap in gaps:
        now += gap
        hours.append(now)
    history = line(*hours)

    def point() -> Point:
        if draw(st.booleans()):
            return draw(st.integers(0, count - 1))
        return at(hours=draw(st.integers(min(hours) - 30, max(hours) + 30)))

    start, end = point(), point()
    step = parse_step(
        draw(st.sampled_from(["1hour", "5hour", "1day", "2day", "commit", "commit/3"]))
    )
    return history, start, end, step


@settings(max_examples=400, database=None, deadline=None)
@given(walks())
def test_select_follows_the_documented_rules(
    walk: tuple[list[HistoryEntry], Point, Point, Step],
) -> None:
    history, start, end, step = walk
    try:
        expected: list[int] | None = reference(history, start, end, step)
    except (IndexError, ValueError):
        expected = None
    try:
        chosen = select(history, start, end, step)
    except UsageError:
        timeline = Timeline(history)
        first, last = timeline.date_of(start), timeline.date_of(end)
        low = start if not isinstance(start, datetime) else timeline.head_at(start)
        high = end if not isinstance(end, datetime) else timeline.head_at(end)
        ints = not isinstance(start, datetime) and not isinstance(end, datetime)
        assert first > last or (ints and low > high) or low > high >= 0
        return
    assert chosen == expected
    assert chosen == sorted(set(chosen))
