from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import MappingProxyType

from perfwalk.config.model import QuirkConfig, QuirkTestConfig, TestConfig
from perfwalk.orchestrate.checkout.quirks import (
    QuirkPoint,
    applying,
    base_position,
    build_steps,
    plan_quirks,
    replaced_test,
)

START = datetime(2026, 1, 1, tzinfo=UTC)
IDS = [f"c{i}" for i in range(10)]
DATES = [START + timedelta(days=i) for i in range(10)]
TOOL = QuirkConfig(at="", comment="tool", commands=("make tool",))


def test_letters_follow_dates_not_config_order() -> None:
    quirks = plan_quirks(
        [
            (0, QuirkPoint(DATES[5]), None, QuirkConfig(at="", comment="late")),
            (1, QuirkPoint(DATES[2], "c2"), None, QuirkConfig(at="", comment="early")),
        ],
        IDS,
        DATES,
    )
    assert [(q.letter, q.comment) for q in quirks] == [("A", "early"), ("B", "late")]


def test_patch_applies_in_half_open_range() -> None:
    old = QuirkConfig(at="", comment="old", patch=Path("fix.patch"))
    (quirk,) = plan_quirks([(0, QuirkPoint(DATES[0]), QuirkPoint(DATES[4], "c4"), old)], IDS, DATES)
    assert [pos for pos in range(10) if quirk.patches(pos)] == [0, 1, 2, 3]


def test_commands_run_only_when_the_walk_crosses() -> None:
    (quirk,) = plan_quirks([(0, QuirkPoint(DATES[3] - timedelta(hours=1)), None, TOOL)], IDS, DATES)
    assert quirk.at_pos == 3
    assert applying([quirk], None, 5) == ([], [])  # first checkout: machine taken as it is
    assert applying([quirk], 1, 3)[1] == [quirk]
    assert applying([quirk], 3, 5)[1] == []
    assert applying([quirk], 0, 2)[1] == []


def test_a_reboot_alone_is_crossed() -> None:
    reboot = QuirkConfig(at="", comment="new kernel needed", reboot=True)
    (quirk,) = plan_quirks([(0, QuirkPoint(DATES[3]), None, reboot)], IDS, DATES)
    assert applying([quirk], 1, 3)[1] == [quirk]


def test_the_base_of_quirks_since() -> None:
    # a date: the quirks from it on are crossed; a commit: those after it
    assert base_position(QuirkPoint(DATES[3]), IDS, DATES) == 2
    assert base_position(QuirkPoint(DATES[3] - timedelta(hours=1)), IDS, DATES) == 2
    assert base_position(QuirkPoint(DATES[3], "c3"), IDS, DATES) == 3
    assert base_position(QuirkPoint(START - timedelta(days=9)), IDS, DATES) == -1
    (quirk,) = plan_quirks([(0, QuirkPoint(DATES[3]), None, TOOL)], IDS, DATES)
    assert applying([quirk], base_position(QuirkPoint(DATES[3]), IDS, DATES), 5)[1] == [quirk]
    assert applying([quirk], base_position(QuirkPoint(DATES[3], "c3"), IDS, DATES), 5)[1] == []


def test_the_latest_quirk_that_holds_replaces_build_steps_and_tests() -> None:
    bench = TestConfig(name="bench", command="./bench", parser="value")
    old = QuirkConfig(
        at="",
        comment="old make target",
        build_steps=("make old",),
        tests=MappingProxyType({"bench": QuirkTestConfig(command="./bench --old")}),
    )
    older = QuirkConfig(at="", comment="older make target", build_steps=("make older",))
    first, second = plan_quirks(
        [
            (0, QuirkPoint(DATES[0]), QuirkPoint(DATES[6]), old),
            (1, QuirkPoint(DATES[2]), QuirkPoint(DATES[4]), older),
        ],
        IDS,
        DATES,
    )
    assert [pos for pos in range(10) if first.holds(pos)] == [0, 1, 2, 3, 4, 5]
    assert build_steps(applying([first, second], None, 1)[0], ("make",)) == ("make old",)
    assert build_steps(applying([first, second], None, 3)[0], ("make",)) == ("make older",)
    assert build_steps(applying([first, second], None, 7)[0], ("make",)) == ("make",)
    test, letter = replaced_test(applying([first, second], None, 3)[0], bench)
    assert (test.command, test.parser, letter) == ("./bench --old", "value", "A")
    assert replaced_test([], bench) == (bench, None)


def test_a_parser_replaced_brings_its_own_options() -> None:
    bench = TestConfig(
        name="bench", command="./bench", parser="regex", parser_options={"pattern": "x"}
    )
    own = QuirkTestConfig(parser="value").applied(bench)
    assert (own.command, own.parser, dict(own.parser_options)) == ("./bench", "value", {})
    options = QuirkTestConfig(parser_options={"pattern": "y"}).applied(bench)
    assert (options.parser, dict(options.parser_options)) == ("regex", {"pattern": "y"})
