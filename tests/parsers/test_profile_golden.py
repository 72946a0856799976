"""The perf script parser on texts captured from the real ``perf`` (see
tests/golden/parsers/perf-script), and on the texts no capture gives: hostile
names, a cut text, another event.

``pytest tests/parsers --regen-golden`` rewrites the expected ``<case>.folded``.
"""

from __future__ import annotations

import pytest

from perfwalk.folded import format_folded, parse_folded
from perfwalk.parsers import perf_script
from tests.parsers.golden import ProfileCase, profile_cases


@pytest.mark.parametrize("case", profile_cases(), ids=lambda case: case.id)
def test_golden(case: ProfileCase, regen_golden: bool) -> None:
    actual = format_folded(perf_script.parse(case.text()))
    if regen_golden:
        case.expected_path.write_text(actual)
        return
    assert case.expected_path.exists(), (
        f"{case.expected_path} is missing: run pytest tests/parsers --regen-golden"
    )
    assert actual == case.expected_path.read_text()


def _golden(name: str) -> dict[str, int]:
    (case,) = [case for case in profile_cases() if case.name == name]
    return perf_script.parse(case.text())


def test_hot_function_under_the_process_root() -> None:
    stacks = _golden("c-hot")
    hot = sum(n for stack, n in stacks.items() if stack.endswith(";checksum_block"))
    assert hot > sum(stacks.values()) / 2
    assert all(stack.startswith("hot;") for stack in stacks)
    assert not any("+0x" in stack for stack in stacks)


def test_without_callchains_the_frame_on_the_header_line() -> None:
    stacks = _golden("c-hot-no-callchain")
    assert stacks["hot;checksum_block"] > 0
    assert all(stack.count(";") == 1 for stack in stacks)


def test_hostile_names_kept_as_one_frame() -> None:
    stacks = _golden("hostile-names")
    frames = {frame for stack in stacks for frame in stack.split(";")}
    assert "<script>alert(1)</script>" in frames
    # the ";" of a name would split it into two frames: it becomes ":"
    assert "semi:colon with space" in frames
    # the folded text keeps a name with spaces in one piece
    assert parse_folded(format_folded(stacks)) == stacks


def test_cxx_templates_and_unknown_frames() -> None:
    stacks = _golden("cxx-templates")
    frames = {frame for stack in stacks for frame in stack.split(";")}
    assert "accumulate_n<unsigned long, 20>" in frames
    assert "[unknown]" in frames


def test_only_the_first_event_counts() -> None:
    text = next(c for c in profile_cases() if c.name == "shell-two-events").text()
    cpu_clock = text.count(" cpu-clock:")
    assert text.count(" task-clock:") > 0
    assert sum(_golden("shell-two-events").values()) == cpu_clock


SAMPLE = """\
my prog 1234/1235 [001] 100.000001:    1001001 cpu-clock: \n\
\t            1269 leaf;part+0x10 (/opt/a b/prog)
\t            1300 [unknown] (/usr/lib/libstripped.so.1)
\t            1400 [unknown] ([unknown])
\t            1500 main+0x1b (/opt/a b/prog)

my prog 1234/1235 [001] 100.000002:    1001001 cpu-clock: \n\
\t            1269 leaf;part+0x10 (/opt/a b/prog)
\t            1300 [unknown] (/usr/lib/libstripped.so.1)
\t            1400 [unknown] ([unknown])
\t            1500 main+0x1b (/opt/a b/prog)
"""


def test_names_from_a_written_sample() -> None:
    assert perf_script.parse(SAMPLE) == {"my prog;main;[unknown];[libstripped.so.1];leaf:part": 2}


@pytest.mark.parametrize("cut", [0, 1, 40, 90, 150, len(SAMPLE) - 20, len(SAMPLE) - 1])
def test_truncated_text_gives_what_it_holds(cut: int) -> None:
    stacks = perf_script.parse(SAMPLE[:cut])
    assert sum(stacks.values()) <= 2
    assert all(stack.startswith("my prog") for stack in stacks)


def test_truncated_golden_never_raises() -> None:
    text = next(c for c in profile_cases() if c.name == "c-hot").text()
    for cut in range(0, len(text), len(text) // 37):
        stacks = perf_script.parse(text[:cut])
        assert sum(stacks.values()) <= text[:cut].count("cpu-clock:")


@pytest.mark.parametrize(
    "text",
    ["", "\n\n", "garbage\x00\xff", "\tdangling 12 frame (x)\n", "perf: no samples\n"],
)
def test_garbage_gives_no_stacks(text: str) -> None:
    assert perf_script.parse(text) == {}


def test_folded_text() -> None:
    text = "a;b;c 12\na;b 3\n\n# comment\na;b;c 1\nbad line\nx;y -2\nz 0\nw;v with space 5\ncut 1"
    assert parse_folded(text) == {"a;b;c": 13, "a;b": 3, "w;v with space": 5, "cut": 1}
    assert format_folded({"b": 1, "a": 1, "c": 5}) == "c 5\na 1\nb 1\n"
