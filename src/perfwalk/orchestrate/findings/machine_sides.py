"""A change weighed against the machine's state: each host's state over the measured
checkouts on one side of a change, the two sides as its verdict tells them, and the
metrics of one checkout that moved together while the machine's state changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from perfwalk.analysis import machine
from perfwalk.analysis.machine import HostStates
from perfwalk.analysis.verdict import Sides
from perfwalk.config.instruments import load_immune
from perfwalk.orchestrate.findings.change_events import MetricChange
from perfwalk.store.records import CheckoutRow


def sides_told(before: Mapping[str, machine.Side], after: Mapping[str, machine.Side]) -> Sides:
    """The machine's state on a change's two sides as its verdict tells it: of the
    hosts, the most repetitions with a state and the most loaded, on each side."""
    return Sides(
        before=max((s.n for s in before.values()), default=0),
        before_loaded=max((s.loaded for s in before.values()), default=0),
        after=max((s.n for s in after.values()), default=0),
        after_loaded=max((s.loaded for s in after.values()), default=0),
    )


def machine_side(
    sets: Sequence[Sequence[float]],
    measured: Sequence[Sequence[HostStates]],
    start: int,
    step: int,
    points: int,
    *,
    weighed: dict[tuple[int, ...], dict[str, machine.Side]],
) -> dict[str, machine.Side]:
    """The machine's state of each host over the ``points`` measured checkouts from
    ``start`` on, going ``step`` (-1: back), of one metric. ``weighed`` keeps the sides
    of the repetitions already weighed (by the identities of their states, which live
    as long as the series' analysis): the metrics of a change mostly share them."""
    found: list[HostStates] = []
    at = start
    while points > 0 and 0 <= at < len(sets):
        if sets[at]:
            found.extend(measured[at])
            points -= 1
        at += step
    key = tuple(map(id, found))
    sides = weighed.get(key)
    if sides is None:
        sides = weighed[key] = machine.host_sides(found)
    return sides


def states_by_position(
    checkouts: Sequence[CheckoutRow], states: Mapping[tuple[int, int], HostStates]
) -> list[list[HostStates]]:
    """The states of every repetition, by checkout position."""
    position = {c.idx: i for i, c in enumerate(checkouts)}
    found: list[list[HostStates]] = [[] for _ in checkouts]
    for (checkout_idx, _rep), state in states.items():
        if checkout_idx in position:
            found[position[checkout_idx]].append(state)
    return found


def moved_together(
    metrics: list[MetricChange],
    every: list[list[HostStates]],
    *,
    before: int,
    after: int,
    points_before: int,
    points_after: int,
) -> list[MetricChange]:
    """``metrics`` (the changes at one checkout), all marked suspect when many moved in
    the same sense while the machine's state changed (but the instruments' metrics,
    load-immune by declaration)."""
    for worse in (True, False):
        same = [m for m in metrics if m.regression is worse and not load_immune(m.name)]
        if len(same) < machine.MANY_METRICS:
            continue
        left = machine.host_sides(
            s for states in every[max(before - points_before + 1, 0) : before + 1] for s in states
        )
        right = machine.host_sides(
            s for states in every[after : after + points_after] for s in states
        )
        sizes = [m.size for m in same]
        why = machine.together_hosts(left, right, len(same), worse_after=worse, sizes=sizes)
        if why:
            return [replace(m, suspect=m.suspect or why) if m in same else m for m in metrics]
    return metrics
