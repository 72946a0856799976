"""``perf stat -x,`` output read into counts: all the asked events counted for the whole
run, or nothing with why (this machine's real output, where the counters are not
exposed; the documented form of counted and multiplexed lines; hybrid CPUs; garbage)."""

from __future__ import annotations

import pytest

from perfwalk.parsers.perf_stat import base_event, parse_perf_stat

EVENTS = ("instructions", "cycles", "cache-misses", "branch-misses")

#: `perf stat -x, -e instructions,cycles,cache-misses,branch-misses -o FILE -- true` on
#: this project's development VM (a virtual machine without counters)
UNSUPPORTED = """\
# started on Sat Nov 28 12:54:10 2026

<not supported>,,instructions,0,100.00,,
<not supported>,,cycles,0,100.00,,
<not supported>,,cache-misses,0,100.00,,
<not supported>,,branch-misses,0,100.00,,
"""

#: the same command where the counters are there: value, unit, event, run time, the
#: share of the run counted, then the metric perf derives (its documented CSV form)
COUNTED = """\
# started on Sat Nov 28 12:00:00 2026

1030742150,,instructions,12010984057,100.00,1.21,insn per cycle
851234567,,cycles,12010984057,100.00,,
1234567,,cache-misses,12010984057,100.00,,
234567,,branch-misses,12010984057,100.00,,
"""


def test_the_counts_of_every_event_counted_for_the_whole_run() -> None:
    found = parse_perf_stat(COUNTED, EVENTS)
    assert found.problem == ""
    assert found.counts == {
        "instructions": 1030742150,
        "cycles": 851234567,
        "cache-misses": 1234567,
        "branch-misses": 234567,
    }


def test_counters_a_machine_does_not_expose_give_no_count_and_say_so() -> None:
    found = parse_perf_stat(UNSUPPORTED, EVENTS)
    assert found.counts == {}
    assert found.problem == (
        "<not supported> instructions, <not supported> cycles, <not supported> cache-misses, "
        "<not supported> branch-misses"
    )


def test_a_multiplexed_or_uncounted_event_gives_nothing() -> None:
    scaled = COUNTED.replace("851234567,,cycles,12010984057,100.00", "851234567,,cycles,1,62.50")
    found = parse_perf_stat(scaled, EVENTS)
    assert found.counts == {}
    assert found.problem == "cycles counted 62.5 % of the run (multiplexed)"
    uncounted = COUNTED.replace("234567,,branch-misses", "<not counted>,,branch-misses")
    assert parse_perf_stat(uncounted, EVENTS).problem == "<not counted> branch-misses"


def test_a_hybrid_cpus_kinds_of_core_are_summed() -> None:
    hybrid = COUNTED.replace(
        "1030742150,,instructions,",
        "1000000000,,cpu_core/instructions/,1,100.00,,\n30742150,,cpu_atom/instructions/,",
    )
    assert parse_perf_stat(hybrid, EVENTS).counts["instructions"] == 1030742150
    assert base_event("cpu_atom/cycles/") == "cycles"
    assert base_event("cycles:u") == "cycles"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# started on …\n",
        "garbage\n",
        COUNTED.replace("851234567,,cycles", "many,,cycles"),
        COUNTED.replace("851234567,,cycles", "-5,,cycles"),
        "\n".join(COUNTED.splitlines()[:-1]),  # branch-misses missing
        COUNTED.replace(",12010984057,100.00", ""),  # too few fields: not a count
    ],
)
def test_output_that_is_not_every_count_gives_nothing_and_says_why(text: str) -> None:
    found = parse_perf_stat(text, EVENTS)
    assert found.counts == {}
    assert found.problem
