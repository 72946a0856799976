"""The perf-stat instrument: on this machine (a virtual machine whose hardware counters
``perf stat`` reports as ``<not supported>``) the test runs as ever, no metric is stored
(never a zero) and its first result on the host says why, once; on a host that exposes
them (scripted, logic only) the counts are stored with their units, and a run whose
counters were multiplexed stores nothing and says so."""

from __future__ import annotations

import shutil

import pytest

from perfwalk.config.model import InstrumentConfig
from perfwalk.hosts import FakeHost, LocalHost, Rule
from perfwalk.orchestrate.hosts.topology import Member
from perfwalk.orchestrate.instruments.instruments import Instruments
from perfwalk.orchestrate.instruments.perf_stat import PerfStat
from tests.parsers.test_perf_stat import COUNTED

PERF_STAT = (InstrumentConfig("perf-stat"),)


def _counters_here() -> bool:
    """Whether this machine's perf counts instructions (few virtual machines do)."""
    member = Member("local", LocalHost(), local=True)
    return PerfStat().unavailable(member) is None


@pytest.mark.skipif(shutil.which("perf") is None, reason="needs perf (apt-get install linux-perf)")
def test_a_machine_without_counters_runs_the_test_stores_nothing_and_says_so_once() -> None:
    if _counters_here():
        pytest.skip("this machine exposes hardware counters: the path without them is not here")
    member = Member("local", LocalHost(), local=True)
    instruments = Instruments({"perf-stat": PerfStat()})
    first = instruments.arm("t", PERF_STAT, member, "/tmp/perfwalk-test-perf-a")
    done = member.host.run([*first.prefix, "sh", "-c", "echo VALUE 1 s x"], timeout=60)
    values, notes = first.read(done)
    again = instruments.arm("t", PERF_STAT, member, "/tmp/perfwalk-test-perf-b")
    print(notes)
    assert done.returncode == 0
    assert done.stdout.text() == "VALUE 1 s x\n"
    assert values == ()  # no metric, never a zero
    (note,) = notes
    assert note.startswith(
        "perf-stat: not measured on host local: its hardware counters are not there "
        "(<not supported> instructions, <not supported> cycles"
    )
    assert note.endswith("cachegrind counts instructions anywhere")
    assert (again.prefix, again.notes) == ((), ())


@pytest.mark.skipif(shutil.which("perf") is None, reason="needs perf (apt-get install linux-perf)")
def test_a_machine_with_counters_counts_a_real_program() -> None:
    if not _counters_here():
        pytest.skip(
            "this machine exposes no hardware counters (a virtual machine seldom does): "
            "the counted path runs where they are"
        )
    member = Member("local", LocalHost(), local=True)
    armed = Instruments({"perf-stat": PerfStat()}).arm(
        "t", PERF_STAT, member, "/tmp/perfwalk-test-perf-c"
    )
    loop = "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; echo VALUE 1 s x"
    done = member.host.run([*armed.prefix, "sh", "-c", loop], timeout=60)
    values, notes = armed.read(done)
    print(values, notes)
    assert done.returncode == 0
    assert notes == ()
    counted = {v.name: v.value for v in values}
    assert counted["perf-stat.instructions"] > 1e6  # a shell's loop of 100 000 turns


def test_a_host_with_counters_stores_their_counts() -> None:
    host = FakeHost(
        [
            Rule(
                "perf stat -x, -e instructions,cycles,cache-misses,branch-misses -o /dev/stdout",
                stdout=COUNTED,
            ),
            Rule("-- sh -c true"),
            Rule("cat --", stdout=COUNTED),
        ]
    )
    member = Member("dut", host, local=False)
    armed = Instruments({"perf-stat": PerfStat()}).arm("t", PERF_STAT, member, "/tmp/run")
    assert armed.prefix[:2] == ("perf", "stat")
    assert armed.prefix[-3:] == ("-o", "/tmp/run.perf-stat", "--")
    done = host.run([*armed.prefix, "sh", "-c", "true"], timeout=10)
    assert done.returncode == 0
    values, notes = armed.read(done)
    assert notes == ()
    assert {(v.name, v.value, v.unit) for v in values} == {
        ("perf-stat.instructions", 1030742150.0, "instructions"),
        ("perf-stat.cycles", 851234567.0, "cycles"),
        ("perf-stat.cache_misses", 1234567.0, "misses"),
        ("perf-stat.branch_misses", 234567.0, "misses"),
    }


def test_a_run_whose_counters_were_multiplexed_stores_nothing_and_says_so() -> None:
    scaled = COUNTED.replace("851234567,,cycles,12010984057,100.00", "851234567,,cycles,1,62.50")
    host = FakeHost(
        [
            Rule("-o /dev/stdout", stdout=COUNTED),
            Rule("-- sh -c true"),
            Rule("cat --", stdout=scaled),
        ]
    )
    member = Member("dut", host, local=False)
    armed = Instruments({"perf-stat": PerfStat()}).arm("t", PERF_STAT, member, "/tmp/run")
    done = host.run([*armed.prefix, "sh", "-c", "true"], timeout=10)
    values, notes = armed.read(done)
    assert values == ()
    assert notes == (
        "perf-stat: nothing stored on host dut: cycles counted 62.5 % of the run (multiplexed)",
    )
