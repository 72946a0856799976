"""The drill's differential table in text: hostile function names are shown with
their control characters made visible, never acted on."""

from __future__ import annotations

from perfwalk.analysis.profile_diff import diff_functions
from perfwalk.cli.drill_commands import _profile_text

HOSTILE = "<script>alert(1)</script>\x1b[31mred\x07"


def test_the_table_lists_the_largest_change_first_and_shows_controls() -> None:
    before = {"prog;main;crc": 50, f"prog;main;{HOSTILE}": 50}
    after = {"prog;main;crc": 50, f"prog;main;{HOSTILE}": 150}
    ref = {"samples": 100, "host": "local", "event": "cpu-clock"}
    rows = [row.as_dict() for row in diff_functions(before, after, top=20)]
    lines = _profile_text({"test": "crc", "before": ref, "after": ref, "functions": rows})
    assert "differential profile of crc" in lines[0]
    first = lines[lines.index(next(x for x in lines if "self before" in x)) + 1]
    assert "<script>alert(1)</script>" in first
    assert "\x1b" not in "".join(lines)
    assert "\x07" not in "".join(lines)
    assert "+25.0%" in first


def test_a_missing_profile_says_why() -> None:
    (line,) = _profile_text({"test": "crc", "missing": "perf cannot profile on host x\x1b"})
    assert "no differential profile: perf cannot profile on host x" in line
    assert "\x1b" not in line
    assert _profile_text(None) == []
