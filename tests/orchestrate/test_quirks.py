from datetime import UTC, datetime, timedelta
from pathlib import Path

from perfwalk.orchestrate.quirks import QuirkPoint, applying, plan_quirks

START = datetime(2026, 1, 1, tzinfo=UTC)
IDS = [f"c{i}" for i in range(10)]
DATES = [START + timedelta(days=i) for i in range(10)]


def test_letters_follow_dates_not_config_order() -> None:
    quirks = plan_quirks(
        [
            (0, QuirkPoint(DATES[5]), None, "late", ("make tools",), None),
            (1, QuirkPoint(DATES[2], "c2"), None, "early", ("make tools",), None),
        ],
        IDS,
        DATES,
    )
    assert [(q.letter, q.comment) for q in quirks] == [("A", "early"), ("B", "late")]


def test_patch_applies_in_half_open_range() -> None:
    (quirk,) = plan_quirks(
        [(0, QuirkPoint(DATES[0]), QuirkPoint(DATES[4], "c4"), "old", (), Path("fix.patch"))],
        IDS,
        DATES,
    )
    assert [pos for pos in range(10) if quirk.patches(pos)] == [0, 1, 2, 3]


def test_commands_run_only_when_the_walk_crosses() -> None:
    (quirk,) = plan_quirks(
        [(0, QuirkPoint(DATES[3] - timedelta(hours=1)), None, "tool", ("make tool",), None)],
        IDS,
        DATES,
    )
    assert quirk.at_pos == 3
    assert applying([quirk], None, 5) == ([], [])  # first checkout: machine taken as it is
    assert applying([quirk], 1, 3)[1] == [quirk]
    assert applying([quirk], 3, 5)[1] == []
    assert applying([quirk], 0, 2)[1] == []
