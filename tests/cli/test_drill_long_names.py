"""The drill's differential table cuts a function name of 100 000 characters to the
terminal's width (to TEXT_MOST characters in a pipe), with an ellipsis; a name that
fits is shown whole."""

from __future__ import annotations

from perfwalk.analysis.profile_diff import diff_functions
from perfwalk.cli.drill_commands import _profile_text
from perfwalk.cli.terminal import TEXT_LEAST, TEXT_MOST

LONG = "std::vector<" * 10_000 + "x"
REF = {"samples": 100, "host": "local", "event": "cpu-clock"}


def _rows(width: int | None) -> list[str]:
    before = {"main;crc": 50, f"main;{LONG}": 50}
    after = {"main;crc": 50, f"main;{LONG}": 150}
    rows = [row.as_dict() for row in diff_functions(before, after, top=20)]
    profile = {"test": "crc", "before": REF, "after": REF, "functions": rows}
    lines = _profile_text(profile, width)
    header = next(n for n, line in enumerate(lines) if "self before" in line)
    return lines[header + 1 : header + 3]  # the two that moved


def test_a_long_name_is_cut_to_the_terminal() -> None:
    first, second = _rows(100)
    assert len(first) == 100
    assert first.endswith("%  " + LONG[:38] + "…")
    assert second.endswith("  crc")
    narrow, _ = _rows(30)
    assert narrow.endswith("…")
    assert len(narrow.rpartition("%  ")[2]) == TEXT_LEAST


def test_a_long_name_is_cut_in_a_pipe_too() -> None:
    first, second = _rows(None)
    name = first.rpartition("%  ")[2]
    assert (len(name), name[-1]) == (TEXT_MOST, "…")
    assert second.endswith("  crc")
