"""get_parser: names, options, and the ConfigErrors a config author sees."""

from __future__ import annotations

import pytest

from perfwalk.errors import ConfigError
from perfwalk.parsers import PARSER_NAMES, get_parser
from perfwalk.parsers.regex import RegexParser

CONFIGURABLE = ("regex", "hdrhistogram", "bpftrace-hist", "dtrace-quantize")


def test_names() -> None:
    assert PARSER_NAMES == (
        "iperf3",
        "iperf3-text",
        "tcpbench",
        "udpbench",
        "netperf",
        "hyperfine",
        "time-p",
        "gnu-time",
        "fio",
        "fs_mark",
        "gbench",
        "pytest-benchmark",
        "gotest",
        "value",
        "regex",
        "hdrhistogram",
        "bpftrace-hist",
        "dtrace-quantize",
    )


@pytest.mark.parametrize("name", [n for n in PARSER_NAMES if n not in CONFIGURABLE])
def test_fixed_parsers_accept_no_or_empty_options(name: str) -> None:
    assert get_parser(name) is get_parser(name, {})


def test_unknown_name_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        get_parser("iperf", key="tests.net.parser")
    error = caught.value
    assert error.key == "tests.net.parser"
    assert "unknown parser 'iperf'" in error.message
    assert error.hint is not None
    for name in PARSER_NAMES:
        assert name in error.hint


def test_non_string_name_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        get_parser(["iperf3"])  # type: ignore[arg-type]
    assert caught.value.key == "parser"


def test_options_for_a_parser_without_options() -> None:
    with pytest.raises(ConfigError) as caught:
        get_parser("iperf3", {"pattern": "x"}, key="t.parser")
    assert caught.value.key == "t.parser_options"
    assert "takes no options" in caught.value.message
    assert caught.value.hint is not None
    assert "regex" in caught.value.hint


def test_regex_with_good_options() -> None:
    parser = get_parser("regex", {"pattern": r"t=(?P<value>\d+)", "unit": "ms", "name": "t"})
    assert isinstance(parser, RegexParser)
    assert parser("t=5 t=7") == parser("t=5\nt=7")


@pytest.mark.parametrize(
    ("options", "bad_key", "words"),
    [
        (None, "p_options.pattern", "required"),
        ({}, "p_options.pattern", "required"),
        ({"unit": "s"}, "p_options.pattern", "required"),
        ({"pattern": "", "unit": "s"}, "p_options.pattern", "non-empty string"),
        ({"pattern": 5, "unit": "s"}, "p_options.pattern", "non-empty string"),
        ({"pattern": "(?P<value>[0-9", "unit": "s"}, "p_options.pattern", "not a valid regular"),
        ({"pattern": r"(\d+)", "unit": "s"}, "p_options.pattern", "no named group for a number"),
        ({"pattern": r"(?P<value>\d+)"}, "p_options.unit", "unit must be given"),
        ({"pattern": r"(?P<value>\d+)", "unit": 3}, "p_options.unit", "non-empty string"),
        ({"pattern": r"(?P<value>\d+)", "unit": "s", "name": ""}, "p_options.name", "string"),
        ({"pattern": r"(?P<value>\d+)", "unit": "s", "scale": "2"}, "p_options.scale", "number"),
        ({"pattern": r"(?P<value>\d+)", "unit": "s", "scale": True}, "p_options.scale", "number"),
        (
            {"pattern": r"(?P<value>\d+)", "unit": "s", "scale": float("inf")},
            "p_options.scale",
            "finite",
        ),
        ({"pattern": r"(?P<value>\d+)", "unit": "s", "units": "s"}, "p_options.units", "a table"),
        ({"pattern": r"(?P<value>\d+)", "unit": "s", "unist": "s"}, "p_options.unist", "unknown"),
    ],
)
def test_regex_bad_options(options: dict[str, object] | None, bad_key: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        get_parser("regex", options, key="p")
    assert caught.value.key == bad_key
    assert words in caught.value.message
    assert str(caught.value).startswith(f"{bad_key}: ")


def test_regex_unknown_option_hint_lists_the_options() -> None:
    with pytest.raises(ConfigError) as caught:
        get_parser("regex", {"pattern": r"(?P<value>\d+)", "unit": "s", "sacle": 2})
    assert caught.value.key == "parser_options.sacle"
    assert caught.value.hint == (
        "did you mean scale? regex parser options: pattern (required), name, unit, units, scale"
    )


def test_options_that_are_not_a_table() -> None:
    with pytest.raises(ConfigError) as caught:
        get_parser("regex", ["pattern"], key="t.parser")  # type: ignore[arg-type]
    assert caught.value.key == "t.parser_options"
    assert "expected a table" in caught.value.message
