"""Whether a machine is quiet enough to measure a change again on: the rule a
re-measure (``[run] confirm``) waits for, up to ``[run] confirm_wait`` seconds.

The rule is defined here and nowhere else: a host is **quiet** when the load the
other processes put on it (:func:`others_load`) is below its cores by at least
:data:`FREE_CPU`: a CPU is (nearly) free for the test. The load of the others is
read from a short :class:`~perfwalk.model.MachineState` (two snapshots a second or
so apart, the test's own processes left out, as a walk records around each
repetition): the CPUs the others used, or the number of others running or waiting
for a CPU when that is more (on a saturated machine only that one grows with their
number); the 1-minute load average only when neither is known (it lags a load that
starts or stops by a minute). A host whose load or cores cannot be read does not
hold a re-measure back.

Pure: states in, words out.
"""

from __future__ import annotations

from perfwalk.analysis.machine import HostStates
from perfwalk.model import MachineState

#: the CPU a quiet host leaves free for the test, at least
FREE_CPU = 0.5


def others_load(state: MachineState) -> float | None:
    """The load of the processes other than the test's over the state's time, in CPUs
    (None: not known)."""
    known = [v for v in (state.others_cpu, state.runnable) if v is not None]
    if known:
        return max(known)
    return state.load1


def why_busy(states: HostStates) -> str:
    """Why the hosts are not quiet, each busy host named (``local: load 2.03 >= 1.5 of
    2 cores``); "" when every host is quiet (or cannot tell)."""
    found = []
    for host, state in sorted(states.items()):
        load, cores = others_load(state), state.cores
        if load is None or not cores:
            continue
        if load > cores - FREE_CPU:
            found.append(f"{host}: load {load:.2f} > {cores - FREE_CPU:g} of {cores} cores")
    return "; ".join(found)
