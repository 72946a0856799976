"""The machine's state as evidence: which repetitions were measured on a loaded
machine, and which changes the machine's state explains better than a commit.

Two rules, each defined here and nowhere else (docs/analysis.md, "The machine's
state", says the same in words):

- a host is **loaded** over a repetition (:func:`is_loaded`) when the 1-minute load
  average at its end exceeded the host's cores by more than :data:`LOAD_MARGIN`, or
  the other processes of the host (the test's own excluded) used more than
  :data:`OTHERS_SHARE` of a CPU over its run, or a hypervisor stole more than
  :data:`STEAL_SHARE` of the CPU time; a repetition is loaded when any host it ran
  on was (:func:`repetition_loaded`, :func:`why_repetition_loaded` names the host);
- a change is **suspect: machine load** (:func:`suspect`) when its two sides were
  measured under different load (:func:`differs`): the shares of loaded repetitions
  differ by :data:`SHARE_DIFFERENCE` or more, or the CPU the others used differs by
  :data:`OTHERS_DIFFERENCE` or more, or the number of others running or waiting
  for a CPU by :data:`RUNNABLE_DIFFERENCE` or more, or the mean load averages above
  the host's cores differ by :data:`LOAD_DIFFERENCE` or more (a load below the
  cores left a CPU free: the test's own processes raise it as a walk goes on), and
  the side measured under more load is the
  worse one (a load slows a test down; it does not speed it up), by no more than
  that load could (:func:`most_effect`: the CPU left free shrank, or the queue of
  others waiting for a CPU grew, by a factor; :data:`LOAD_EFFECT_MARGIN` times that
  is the most a load explains; a throughput 18 times lower is no 0.4 CPU's doing).
  Many metrics that moved together at one checkout (:data:`MANY_METRICS`, in the
  same sense) while the machine's state changed by half those differences are all
  suspect, when the load explains the size of each. Each host
  of a repetition is compared with itself (:func:`host_sides`): the change is
  suspect when any host's state explains it (:func:`suspect_hosts`,
  :func:`together_hosts`, naming that host).

Pure: states in, verdicts out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from perfwalk.model import MachineState

#: load average above cores + this: the machine runs more than it has CPUs for
LOAD_MARGIN = 1.0
#: CPUs (1.0 = one CPU the whole time) the other processes may use before it counts
OTHERS_SHARE = 0.5
#: share of CPU time a hypervisor may steal before it counts
STEAL_SHARE = 0.10
#: a difference of loaded shares between the two sides of a change that counts
SHARE_DIFFERENCE = 0.5
#: a difference of the others' CPU (in CPUs) between the two sides that counts
OTHERS_DIFFERENCE = 0.5
#: a difference of the mean number of others running or waiting for a CPU that counts
RUNNABLE_DIFFERENCE = 1.0
#: a difference of mean load averages above the cores between the two sides that counts
LOAD_DIFFERENCE = 1.0
#: repetitions with a known state each side needs before it can be compared
MIN_STATES = 2
#: this many metrics changing together at one checkout is the machine's signature
MANY_METRICS = 3
#: how much more than by its share of the CPUs a load may slow a test down (its
#: caches, memory bandwidth and frequency suffer too): a larger change is not its doing
LOAD_EFFECT_MARGIN = 1.5
#: CPUs left free below which a load may slow a test down by any factor
LEAST_FREE = 0.1


#: the states of the hosts of one repetition, by host name
HostStates = Mapping[str, MachineState]


def is_loaded(state: MachineState) -> bool:
    """True when ``state`` says the host was loaded over the repetition (what
    :func:`why_loaded` tells, without its words: this is asked of every repetition of
    a series)."""
    return _overloaded(state) or _others_busy(state) or _stolen(state)


def why_loaded(state: MachineState) -> str:
    """Why the host counts as loaded, in a few words ("" when it does not)."""
    reasons = []
    if _overloaded(state):
        reasons.append(f"load {state.load1:.2f} > {state.cores} cores")
    if _others_busy(state):
        top = ", ".join(f"{name} {share:.0f} %" for name, share in state.busy)
        reasons.append(f"others used {state.others_cpu:.2f} CPUs" + (f" ({top})" if top else ""))
    if _stolen(state):
        reasons.append(f"steal {state.steal:.0%}")
    return "; ".join(reasons)


def _overloaded(state: MachineState) -> bool:
    load, cores = state.load1, state.cores
    return load is not None and bool(cores) and load > (cores or 0) + LOAD_MARGIN


def _others_busy(state: MachineState) -> bool:
    return state.others_cpu is not None and state.others_cpu > OTHERS_SHARE


def _stolen(state: MachineState) -> bool:
    return state.steal is not None and state.steal > STEAL_SHARE


def repetition_loaded(states: HostStates) -> bool:
    """True when any host of the repetition was loaded."""
    return any(is_loaded(state) for state in states.values())


def why_repetition_loaded(states: HostStates) -> str:
    """Why the repetition counts as loaded, each loaded host named ("sink: load 3.10 >
    2 cores"); "" when no host was."""
    found = ((host, why_loaded(state)) for host, state in sorted(states.items()))
    return "; ".join(f"{host}: {why}" for host, why in found if why)


@dataclass(frozen=True)
class Side:
    """The machine's state over the repetitions of one side of a change."""

    n: int  # repetitions with a known state
    loaded: int
    others: float  # mean CPUs the other processes used
    load: float  # mean 1-minute load average
    cores: int  # the most cores seen (0: unknown)
    runnable: float = 0.0  # mean number of others running or waiting for a CPU

    @property
    def share(self) -> float:
        return self.loaded / self.n if self.n else 0.0

    @property
    def excess(self) -> float:
        """The mean load average above the cores (0: a CPU was free, or cores unknown)."""
        return max(self.load - self.cores, 0.0) if self.cores else 0.0

    @property
    def pressure(self) -> float:
        """One number to tell the more loaded of two sides."""
        return self.share + self.others + self.runnable + self.excess

    def describe(self) -> str:
        return (
            f"{self.loaded} of {self.n} repetitions loaded, load {self.load:.2f}, "
            f"others {self.others:.2f} CPUs, {self.runnable:.1f} running"
        )


def side(states: Iterable[MachineState]) -> Side:
    """The :class:`Side` of the repetitions measured in ``states``."""
    known = list(states)
    n = len(known)
    if not n:
        return Side(0, 0, 0.0, 0.0, 0)
    loads = [s.load1 for s in known if s.load1 is not None]
    others = [s.others_cpu for s in known if s.others_cpu is not None]
    runnable = [s.runnable for s in known if s.runnable is not None]
    return Side(
        n=n,
        loaded=sum(1 for s in known if is_loaded(s)),
        others=sum(others) / len(others) if others else 0.0,
        load=sum(loads) / len(loads) if loads else 0.0,
        cores=max((s.cores or 0 for s in known), default=0),
        runnable=sum(runnable) / len(runnable) if runnable else 0.0,
    )


def host_sides(repetitions: Iterable[HostStates]) -> dict[str, Side]:
    """The :class:`Side` of each host over the repetitions measured in ``repetitions``."""
    by_host: dict[str, list[MachineState]] = {}
    for states in repetitions:
        for host, state in states.items():
            by_host.setdefault(host, []).append(state)
    return {host: side(found) for host, found in sorted(by_host.items())}


def differs(before: Side, after: Side, *, scale: float = 1.0) -> bool:
    """True when the two sides were measured under different load (``scale`` < 1:
    smaller differences count)."""
    if before.n < MIN_STATES or after.n < MIN_STATES:
        return False
    return (
        abs(before.share - after.share) >= SHARE_DIFFERENCE * scale
        or abs(before.others - after.others) >= OTHERS_DIFFERENCE * scale
        or abs(before.runnable - after.runnable) >= RUNNABLE_DIFFERENCE * scale
        or abs(before.excess - after.excess) >= LOAD_DIFFERENCE * scale
    )


def most_effect(before: Side, after: Side) -> float:
    """The largest factor by which the difference of load between two sides may have
    changed a test's values: by how much the CPU left free (the cores less what the
    others used) shrank, the queue of others running or waiting for a CPU grew, or
    the load average above the cores grew, times :data:`LOAD_EFFECT_MARGIN`; infinite
    when the more loaded side left (almost) no CPU free or the cores are not known."""
    quiet, busy = (before, after) if before.pressure <= after.pressure else (after, before)
    cores = max(quiet.cores, busy.cores)
    free = cores - busy.others
    if not cores or free < LEAST_FREE:
        return math.inf
    factors = (
        (cores - quiet.others) / free,
        (1 + busy.runnable) / (1 + quiet.runnable),
        (cores + busy.excess) / (cores + quiet.excess),
    )
    return max(1.0, *factors) * LOAD_EFFECT_MARGIN


def within_effect(size: float, before: Side, after: Side) -> bool:
    """Whether a change of relative ``size`` (-0.3: 30 % lower) is no larger than the
    load between the two sides could cause (:func:`most_effect`)."""
    ratio = 1 + size
    factor = max(ratio, 1 / ratio) if ratio > 0 and math.isfinite(ratio) else math.inf
    return factor <= most_effect(before, after)


def suspect(
    before: Side,
    after: Side,
    *,
    worse_after: bool,
    scale: float = 1.0,
    host: str = "",
    sizes: Sequence[float] = (),
) -> str:
    """Why a change from ``before`` to ``after`` (``worse_after``: a regression) of the
    relative ``sizes`` looks like the machine's doing ("" when it does not); ``host``
    names the host."""
    if not differs(before, after, scale=scale) or before.pressure == after.pressure:
        return ""
    if (after.pressure > before.pressure) != worse_after:
        return ""  # the more loaded side is the better one: load does not explain it
    if not all(within_effect(size, before, after) for size in sizes):
        return ""  # larger than that load could make it
    on = f"{host}: " if host else ""
    return f"machine load: {on}before {before.describe()}; after {after.describe()}"


def together(
    before: Side,
    after: Side,
    moved: int,
    *,
    worse_after: bool,
    host: str = "",
    sizes: Sequence[float] = (),
) -> str:
    """Why ``moved`` metrics changing in the same sense (``worse_after``: all got worse)
    at one checkout, by the relative ``sizes``, look like the machine's doing ("" when
    they do not)."""
    if moved < MANY_METRICS or not suspect(
        before, after, worse_after=worse_after, scale=0.5, sizes=sizes
    ):
        return ""
    of = f" of {host}" if host else ""
    return (
        f"machine load: {moved} metrics moved together while the machine's state{of} "
        f"changed (before {before.describe()}; after {after.describe()})"
    )


def suspect_hosts(
    before: Mapping[str, Side],
    after: Mapping[str, Side],
    *,
    worse_after: bool,
    sizes: Sequence[float] = (),
) -> str:
    """:func:`suspect` on the host whose state moved the most among those that explain
    the change, naming it ("" when no host's does)."""

    def why(b: Side, a: Side, host: str = "") -> str:
        return suspect(b, a, worse_after=worse_after, host=host, sizes=sizes)

    found = _most_moved(before, after, why)
    return "" if found is None else why(before[found], after[found], found)


def together_hosts(
    before: Mapping[str, Side],
    after: Mapping[str, Side],
    moved: int,
    *,
    worse_after: bool,
    sizes: Sequence[float] = (),
) -> str:
    """:func:`together` on the host whose state moved the most among those that explain
    the ``moved`` metrics, naming it ("" when no host's does)."""

    def why(b: Side, a: Side, host: str = "") -> str:
        return together(b, a, moved, worse_after=worse_after, host=host, sizes=sizes)

    found = _most_moved(before, after, why)
    return "" if found is None else why(before[found], after[found], found)


def _most_moved(
    before: Mapping[str, Side], after: Mapping[str, Side], why: Callable[[Side, Side], str]
) -> str | None:
    """The host seen on both sides for which ``why`` says something, whose pressure
    moved the most (the first by name among equals); None when there is none."""
    found = [
        host for host in sorted(before.keys() & after.keys()) if why(before[host], after[host])
    ]
    return max(
        found, key=lambda host: abs(after[host].pressure - before[host].pressure), default=None
    )


def load_words(sides: Mapping[str, Side]) -> str:
    """The load over some repetitions in a few words, of the host under the most
    pressure (named when there are several): "load 10.9 on 2 cores", "sink: load 3.1 on
    2 cores, others 0.8 CPUs"; "" when no host's state is known."""
    known = {host: s for host, s in sides.items() if s.n}
    if not known:
        return ""
    host = max(sorted(known), key=lambda h: known[h].pressure)
    found = known[host]
    words = f"load {found.load:.1f}" + (f" on {found.cores} cores" if found.cores else "")
    if found.others > OTHERS_SHARE:
        words += f", others {found.others:.1f} CPUs"
    return f"{host}: {words}" if len(known) > 1 else words
