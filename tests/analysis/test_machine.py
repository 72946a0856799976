"""The two rules of the machine's state: a loaded repetition, a suspect change."""

from __future__ import annotations

import pytest

from perfwalk.analysis import machine
from perfwalk.analysis.machine import Side, differs, is_loaded, side, suspect, together, why_loaded
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
