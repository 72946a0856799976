"""The rule a re-measure waits for: every host's load (of the processes other than the
test's) below its cores by half a CPU at least."""

from __future__ import annotations

from perfwalk.analysis.quiet import others_load, why_busy
from perfwalk.model import MachineState


def test_a_host_is_quiet_with_a_cpu_free_and_busy_without() -> None:
    assert why_busy({"local": MachineState(cores=2, others_cpu=0.9, runnable=1.0)}) == ""
    assert why_busy({"local": MachineState(cores=2, others_cpu=1.97, runnable=2.0)}) == (
        "local: load 2.00 > 1.5 of 2 cores"
    )


def test_on_a_saturated_host_the_queue_tells_what_the_cpu_cannot() -> None:
    # four busy others on two cores: they get two CPUs, four ask for one
    state = MachineState(cores=2, others_cpu=2.0, runnable=4.0, load1=1.0)
    assert others_load(state) == 4.0
    assert why_busy({"sink": state, "local": MachineState(cores=8, others_cpu=0.1)}) == (
        "sink: load 4.00 > 1.5 of 2 cores"
    )


def test_the_load_average_counts_only_when_nothing_else_is_known() -> None:
    assert others_load(MachineState(cores=2, load1=3.5)) == 3.5
    assert why_busy({"bsd": MachineState(cores=2, load1=3.5)}) == "bsd: load 3.50 > 1.5 of 2 cores"


def test_a_host_that_cannot_tell_holds_nothing_back() -> None:
    assert why_busy({"vm": MachineState()}) == ""
    assert why_busy({"vm": MachineState(others_cpu=5.0)}) == ""  # cores unknown
    assert why_busy({}) == ""
