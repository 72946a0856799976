"""The two rules of the machine's state: a loaded repetition, a suspect change; a
repetition of several hosts is loaded when any host was, and a change is suspect
when any host's state explains it, the host named."""

from __future__ import annotations

import math

import pytest

from perfwalk.analysis import machine
from perfwalk.analysis.machine import (
    Side,
    differs,
    host_sides,
    is_loaded,
    repetition_loaded,
    side,
    suspect,
    suspect_hosts,
    together,
    together_hosts,
    why_loaded,
    why_repetition_loaded,
)
from perfwalk.model import MachineState

QUIET = MachineState(load1=1.0, cores=2, others_cpu=0.1, steal=0.0)


@pytest.mark.parametrize(
    ("state", "loaded"),
    [
        (QUIET, False),
        (MachineState(), False),  # nothing known: not loaded
        (MachineState(load1=3.0, cores=2), False),  # cores + the margin, not above
        (MachineState(load1=3.01, cores=2), True),
        (MachineState(load1=30.0, cores=None), False),  # cores unknown: load says nothing
        (MachineState(others_cpu=0.5), False),
        (MachineState(others_cpu=0.51, busy=(("cc1", 51.0),)), True),
        (MachineState(steal=0.10), False),
        (MachineState(steal=0.11), True),
    ],
)
def test_loaded_rule(state: MachineState, loaded: bool) -> None:
    assert is_loaded(state) is loaded


def test_why_names_every_reason_and_the_busiest() -> None:
    state = MachineState(load1=5.5, cores=2, others_cpu=1.9, busy=(("x", 98.0),), steal=0.2)
    assert why_loaded(state) == "load 5.50 > 2 cores; others used 1.90 CPUs (x 98 %); steal 20%"


def _side(loaded: int, quiet: int, others: float = 0.0) -> Side:
    busy = MachineState(load1=4.0, cores=2, others_cpu=1.5 + others)
    calm = MachineState(load1=1.0, cores=2, others_cpu=0.0 + others)
    return side([busy] * loaded + [calm] * quiet)


def test_sides_summarise_their_repetitions() -> None:
    s = _side(3, 1)
    assert (s.n, s.loaded, s.share, s.cores) == (4, 3, 0.75, 2)
    assert s.load == pytest.approx(3.25)
    assert s.others == pytest.approx(1.125)
    assert side([]) == Side(0, 0, 0.0, 0.0, 0)


def test_sides_differ_by_share_by_others_or_by_load_and_need_two_states() -> None:
    assert differs(_side(0, 6), _side(6, 0))
    assert not differs(_side(0, 6), _side(0, 6))
    assert not differs(_side(0, 6), _side(1, 5))
    assert differs(_side(0, 6), _side(0, 6, others=0.5))  # others busier, under the rule
    assert not differs(_side(0, 1), _side(6, 0))  # one state: too few to tell
    calm = side([MachineState(load1=8.5, cores=8)] * 4)
    loaded = side([MachineState(load1=9.5, cores=8)] * 4)
    assert differs(calm, loaded)  # the load above the cores moved by LOAD_DIFFERENCE
    # below the cores a CPU was free: the walk's own processes raise the load average
    # from 0.5 to 1.9 on two cores as it goes on, and that is no different load
    assert not differs(
        side([MachineState(load1=0.5, cores=2)] * 4), side([MachineState(load1=1.9, cores=2)] * 4)
    )
    # a saturated machine: the others get the same CPU, but more of them wait for it
    before = side([MachineState(others_cpu=1.8, runnable=3.0)] * 4)
    after = side([MachineState(others_cpu=1.8, runnable=5.0)] * 4)
    assert differs(before, after)
    assert suspect(before, after, worse_after=True)
    assert not differs(before, side([MachineState(others_cpu=1.8, runnable=3.5)] * 4))


def test_a_change_is_suspect_only_when_the_more_loaded_side_is_the_worse() -> None:
    calm, busy = _side(0, 6), _side(6, 0)
    assert suspect(calm, busy, worse_after=True).startswith("machine load: before 0 of 6")
    assert suspect(busy, calm, worse_after=False)  # the end of a loaded stretch
    assert not suspect(calm, busy, worse_after=False)  # faster under load: not the load
    assert not suspect(busy, calm, worse_after=True)
    assert not suspect(calm, _side(0, 6), worse_after=True)


def test_many_metrics_together_with_a_smaller_change_of_the_machine() -> None:
    calm, slightly = _side(0, 6), _side(0, 6, others=0.3)
    assert not suspect(calm, slightly, worse_after=True)  # one metric: not enough
    assert together(calm, slightly, machine.MANY_METRICS, worse_after=True)
    assert not together(calm, slightly, machine.MANY_METRICS - 1, worse_after=True)
    assert not together(calm, slightly, machine.MANY_METRICS, worse_after=False)
    assert not together(calm, calm, 10, worse_after=True)  # the machine did not change


BUSY = MachineState(load1=3.1, cores=2, others_cpu=1.5)


def test_a_repetition_is_loaded_when_any_of_its_hosts_was_and_says_which() -> None:
    assert not repetition_loaded({"dut": QUIET, "sink": QUIET})
    assert not repetition_loaded({})
    assert repetition_loaded({"dut": QUIET, "sink": BUSY})
    assert why_repetition_loaded({"dut": QUIET, "sink": QUIET}) == ""
    assert why_repetition_loaded({"source": QUIET, "sink": MachineState(load1=3.1, cores=2)}) == (
        "sink: load 3.10 > 2 cores"
    )
    both = why_repetition_loaded({"sink": BUSY, "dut": MachineState(steal=0.2)})
    assert both == "dut: steal 20%; sink: load 3.10 > 2 cores; others used 1.50 CPUs"


def test_each_host_is_compared_with_itself_and_the_one_that_explains_is_named() -> None:
    calm = [{"dut": QUIET, "sink": QUIET}] * 6
    sink_busy = [{"dut": QUIET, "sink": BUSY}] * 6
    before, after = host_sides(calm), host_sides(sink_busy)
    assert sorted(after) == ["dut", "sink"]
    assert (after["sink"].loaded, after["dut"].loaded) == (6, 0)
    why = suspect_hosts(before, after, worse_after=True)
    assert why.startswith("machine load: sink: before 0 of 6 repetitions loaded")
    assert not suspect_hosts(before, after, worse_after=False)  # faster under load
    assert not suspect_hosts(before, host_sides(calm), worse_after=True)
    # a host seen on one side only tells nothing
    assert not suspect_hosts(before, host_sides([{"other": BUSY}] * 6), worse_after=True)
    # of two hosts that explain it, the one whose state moved the most
    both = host_sides([{"dut": MachineState(load1=1.0, cores=2, others_cpu=0.6), "sink": BUSY}] * 6)
    assert suspect_hosts(before, both, worse_after=True).startswith("machine load: sink: ")
    slightly = host_sides(
        [{"dut": QUIET, "sink": MachineState(load1=1.0, cores=2, others_cpu=0.4)}] * 6
    )
    assert together_hosts(before, slightly, machine.MANY_METRICS, worse_after=True).startswith(
        "machine load: 3 metrics moved together while the machine's state of sink changed"
    )
    assert not together_hosts(before, slightly, machine.MANY_METRICS - 1, worse_after=True)


def test_a_load_explains_no_change_larger_than_it_could_cause() -> None:
    # as the lab example measured on a busy controller: the others took 0.55, then
    # 0.91 of 2 CPUs, while a rate limit made TCP 18 times slower and UDP 40 % slower
    before = side([MachineState(load1=4.02, cores=2, others_cpu=0.55, runnable=1.9)] * 15)
    after = side([MachineState(load1=4.47, cores=2, others_cpu=0.91, runnable=1.9)] * 15)
    assert machine.most_effect(before, after) == pytest.approx(1.45 / 1.09 * 1.5)
    assert machine.most_effect(after, before) == machine.most_effect(before, after)
    rate_limit = [-0.946, -0.943, -0.402, -0.405]
    assert together(before, after, 4, worse_after=True)  # sizes not told: as before
    assert not together(before, after, 4, worse_after=True, sizes=rate_limit)
    assert together(before, after, 4, worse_after=True, sizes=[-0.402, -0.405, -0.2, 0.3])
    # the one metric rule: a busier machine explains 20 % slower, not 10 times slower
    calm, busy = _side(0, 6), _side(6, 0)  # others 0, then 1.5 of 2 CPUs: 4 × 1.5
    assert machine.most_effect(calm, busy) == pytest.approx(6.0)
    assert suspect(calm, busy, worse_after=True, sizes=[0.2])
    assert suspect(calm, busy, worse_after=True, sizes=[-0.8])  # 5 times lower
    assert not suspect(calm, busy, worse_after=True, sizes=[-0.9])  # 10 times lower
    assert not suspect(calm, busy, worse_after=True, sizes=[math.inf])
    # a machine with no CPU left free may slow a test down by any factor
    saturated = side([MachineState(load1=6.0, cores=2, others_cpu=1.95, runnable=4.0)] * 4)
    assert machine.most_effect(calm, saturated) == math.inf
    assert suspect(calm, saturated, worse_after=True, sizes=[-0.99])
    # cores not known: no bound
    unknown = side([MachineState(others_cpu=1.5)] * 4)
    assert machine.most_effect(side([MachineState(others_cpu=0.0)] * 4), unknown) == math.inf
